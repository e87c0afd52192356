# Die Ticketseite: Seitenleiste, Formulare, Kommentare und die Bestätigungen ihrer Formulare.
ticket-breadcrumb = Tickets
ticket-waiting = Wir warten auf Sie: Das Team benötigt Ihre Antwort.
ticket-waiting-reply = Unten antworten
ticket-merged-into = Zusammengeführt in
ticket-merged-rest = : Die Unterhaltung geht dort weiter, und hier hinzugefügte Kommentare landen dort.
ticket-details = Details
ticket-change-status = Status ändern
ticket-resolution-add = Lösungsnotiz hinzufügen
ticket-resolution-label = Lösungsnotiz (optional, wird beim Lösen als Kommentar an die anfragende Person gesendet)
ticket-assign-to-me = Mir zuweisen
ticket-priority = Priorität
ticket-assignee = Zuständig
ticket-assign-by-name = Oder jemand anderem zuweisen (Benutzername)
ticket-group = Gruppe
ticket-project = Projekt
ticket-due-date = Fälligkeitsdatum
ticket-save = Speichern
ticket-requester = Anfragende(r)
ticket-unassigned = Nicht zugewiesen
ticket-due = Fällig
ticket-sla = SLA
ticket-sla-paused = Pausiert
ticket-tags = Schlagwörter
ticket-tag-remove = Schlagwort { $tag } entfernen
ticket-tags-add-label = Schlagwörter hinzufügen (durch Kommas getrennt)
ticket-tags-add-placeholder = Schlagwörter hinzufügen, durch Kommas getrennt
ticket-add = Hinzufügen
ticket-followers = Beobachtende
ticket-follower-remove = Beobachtende(n) { $name } entfernen
ticket-unfollow = Nicht mehr beobachten
ticket-follow = Beobachten
ticket-follower-add-label = Beobachtende(n) hinzufügen (Benutzername oder E-Mail-Adresse)
ticket-follower-add-placeholder = Benutzername oder E-Mail-Adresse
ticket-time-spent = Aufgewendete Zeit
ticket-created = Erstellt
ticket-updated = Aktualisiert
ticket-description = Beschreibung
ticket-no-description = Keine Beschreibung.
ticket-fields = Felder
ticket-field-team = (Team)
ticket-fields-edit = Felder bearbeiten
ticket-fields-save = Felder speichern
ticket-edit = Titel und Beschreibung bearbeiten
ticket-title = Titel
ticket-save-changes = Änderungen speichern
ticket-attachments = Anhänge
ticket-links = Verknüpfte Tickets
ticket-blocking = Blockiert dieses Ticket
ticket-link-remove = Verknüpfung mit { $number } entfernen
ticket-resolve-children = { $n ->
    [one] { $n } offenes Unterticket lösen
   *[other] { $n } offene Untertickets lösen
  }
ticket-link-this = Dieses Ticket
ticket-link-ticket = Ticket
ticket-link = Verknüpfen
ticket-merge-open = Mit einem anderen Ticket zusammenführen…
ticket-merge-label = { $number } zusammenführen in
ticket-merge-note = Kommentare, Dateien, Zeiten, Schlagwörter, Beobachtende und Verknüpfungen werden dorthin übertragen; dieses Ticket wird geschlossen und die anfragende Person benachrichtigt. Eine Zusammenführung kann nicht rückgängig gemacht werden.
ticket-merge = Zusammenführen
ticket-split-open = Kommentare in ein neues Ticket abspalten…
ticket-split-note = Markieren Sie „Abspalten“ bei den Kommentaren, die verschoben werden sollen. Sie gehen mit ihren Dateien und Zeiten in ein neues Ticket derselben anfragenden Person, das mit diesem verknüpft wird.
ticket-split-title = Titel des neuen Tickets
ticket-split-from = (abgespalten von { $number })
ticket-split = Abspalten
ticket-macros = Makros
ticket-macro = Makro
ticket-macro-apply = Anwenden
ticket-sections = Ticketbereiche
ticket-comments = Kommentare
ticket-history = Verlauf
ticket-comments-count = Kommentare ({ $n })
ticket-no-comments = Noch keine Kommentare.
ticket-internal-note = Interne Notiz
ticket-edited = (bearbeitet
ticket-internal-file = Intern
ticket-comment-edit-label = Kommentar bearbeiten
ticket-cancel = Abbrechen
ticket-comment-edit = Bearbeiten
ticket-comment-delete-open = Löschen…
ticket-comment-delete-ask = Diesen Kommentar löschen? Das lässt sich hier nicht rückgängig machen.
ticket-comment-delete = Löschen bestätigen
ticket-comment-history = Bearbeitungsverlauf
ticket-comment-before = Vor der Bearbeitung durch { $editor } am { $at }:
ticket-comment-add-label = Kommentar hinzufügen
ticket-comment-who = Wer darf ihn lesen
ticket-comment-public = Öffentliche Antwort
ticket-comment-internal = Interne Notiz (nur für das Team)
ticket-comment-minutes = Aufgewendete Zeit in Minuten (optional)
ticket-comment-files = Dateien anhängen (optional, bis zu 10)
ticket-comment-drop = Oder ziehen Sie Dateien auf dieses Formular oder fügen Sie einen Screenshot in den Text ein.
ticket-comment-add = Kommentar hinzufügen
ticket-history-none = Keine Änderungen aufgezeichnet.
ticket-none = Keine
ticket-deleted-user = Gelöschter Benutzer
ticket-rule-author = Service-Desk

# Benutzerdefinierte Felder (auch im Formular für neue Tickets).
ticket-field-required = Pflichtfeld
ticket-field-required-start = Pflichtfeld, sobald die Arbeit beginnt
ticket-field-required-resolve = Pflichtfeld zum Lösen
ticket-field-yes = ja
ticket-field-no = nein
ticket-field-zone = ({ $zone })
ticket-field-user = Benutzer { $id }
ticket-field-asset = Asset { $id }
ticket-field-datetime = { $at } ({ $zone })

# Dateigrößen.

# Bestätigungen nach einem Formular auf der Ticketseite.
ticket-flash-resolved = Gelöst
ticket-flash-closed = Geschlossen
ticket-flash-reopened = Wieder geöffnet
ticket-flash-moved = Status auf { $status } gesetzt
ticket-flash-saved = Änderungen gespeichert
ticket-flash-priority = Priorität auf { $priority } gesetzt
ticket-flash-assigned-you = Ihnen zugewiesen
ticket-flash-assignee = Zuständigkeit geändert
ticket-flash-unassigned = Zuweisung aufgehoben
ticket-flash-group = Gruppe geändert
ticket-flash-group-removed = Gruppe entfernt
ticket-flash-project = Projekt geändert
ticket-flash-project-removed = Projekt entfernt
ticket-flash-due = Fälligkeitsdatum auf { $day } gesetzt
ticket-flash-due-removed = Fälligkeitsdatum entfernt
ticket-flash-macro = { $name } angewendet
ticket-flash-tags-added = Schlagwörter hinzugefügt
ticket-flash-tag-removed = Schlagwort { $tag } entfernt
ticket-flash-link-removed = Verknüpfung entfernt
ticket-flash-linked = Mit { $number } verknüpft
ticket-flash-merged = { $source } in { $target } zusammengeführt
ticket-flash-split = In { $number } abgespalten
ticket-flash-children = { $n ->
    [one] 1 Unterticket gelöst
   *[other] { $n } Untertickets gelöst
  }
ticket-flash-children-failed = { $n } Untertickets gelöst; { $failed } konnten nicht gelöst werden
ticket-flash-following = Sie beobachten das Ticket
ticket-flash-unfollowed = Sie beobachten das Ticket nicht mehr
ticket-flash-follower-removed = Beobachtende(r) entfernt
ticket-flash-follower-added = { $name } beobachtet das Ticket
ticket-status-needs-fields = Bitte zuerst { $fields } ausfüllen.
ticket-flash-fields = Felder gespeichert

# Wie ein Ticket eine Verknüpfung mit einem anderen sieht.
value-parent_of = Übergeordnet zu
value-child_of = Untergeordnet zu
value-relates_to = Verwandt mit
value-duplicate_of = Duplikat von
value-duplicated_by = Dupliziert durch
value-blocks = Blockiert
value-blocked_by = Blockiert durch
