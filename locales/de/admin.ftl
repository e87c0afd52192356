# Die Verwaltungsseiten: Personen, Gruppen, Webhooks, Tags, Zeitregeln, das Prüfprotokoll und das
# Verwaltungsmenü (das auch zu den Seiten in admin-rules.ftl führt).
admin-title = Verwaltung
admin-nav-users = Personen
admin-nav-groups = Gruppen
admin-nav-webhooks = Webhooks
admin-nav-chat = Chat
admin-nav-mail = E-Mail
admin-nav-sla = SLA-Richtlinien
admin-nav-projects = Projekte
admin-nav-assets = Inventar
admin-nav-triggers = Auslöser
admin-nav-time-rules = Zeitregeln
admin-nav-fields = Felder
admin-nav-tags = Tags
admin-nav-audit = Prüfprotokoll

# Wörter, die die Verwaltungsseiten teilen.
admin-name = Name
admin-username = Benutzername
admin-email = E-Mail
admin-state = Status
admin-staff = Mitarbeiter
admin-any = Alle
admin-filter = Filtern
admin-previous = Zurück
admin-next = Weiter
admin-save = Speichern
admin-saved = Gespeichert.
admin-add = Hinzufügen
admin-remove = Entfernen
admin-rename = Umbenennen
admin-delete = Löschen
admin-actions = Aktionen
admin-when = Wann
admin-on = An
admin-off = Aus
admin-role-requester = Anfragende(r)
admin-role-agent = Agent
admin-role-admin = Administrator

# Personen: die Liste und das Formular für ein neues Konto.
admin-users-search = Suchen
admin-users-role = Rolle
admin-users-caption = Konten
admin-users-last-sign-in = Letzte Anmeldung
admin-users-active = Aktiv
admin-users-deactivated = Deaktiviert
admin-users-new = Neues Konto
admin-users-password = Passwort
admin-users-create = Konto anlegen
admin-users-created = Konto angelegt.

# Ein Konto.
admin-user-open = { $n ->
    [one] { $n } offenes Ticket ist { $name } zugewiesen:
   *[other] { $n } offene Tickets sind { $name } zugewiesen:
}
admin-user-reassign = neu zuweisen
admin-user-account = Konto
admin-user-superuser = Superuser
admin-user-access = Zugang
admin-user-last-sign-in = Letzte Anmeldung: { $when }
admin-user-deactivate = Deaktivieren
admin-user-deactivate-note = Beendet sofort die Sitzungen der Person, widerruft ihre Tokens und verhindert weitere Anmeldungen. Nichts, was sie geschrieben hat, wird entfernt.
admin-user-reactivate = Reaktivieren
admin-user-new-password = Neues Passwort
admin-user-set-password = Passwort setzen
admin-user-tokens = API-Tokens
admin-user-tokens-none = Keine.
admin-user-tokens-caption = API-Tokens der Person
admin-user-token-created = Erstellt
admin-user-token-last-used = Zuletzt verwendet
admin-user-deactivated = Deaktiviert: Sitzungen und Tokens der Person funktionieren nicht mehr.
admin-user-reactivated = Reaktiviert: Die Person kann sich wieder anmelden.
admin-user-password-set = Passwort gesetzt; die Sitzungen der Person wurden abgemeldet.

# Gruppen.
admin-groups-team = (Teamgruppe)
admin-groups-no-members = Keine Mitglieder.
admin-groups-remove-member = { $member } aus { $group } entfernen
admin-groups-add-member = Mitglied hinzufügen (Benutzername)
admin-groups-new-name = Neuer Name
admin-groups-delete = Gruppe löschen
admin-groups-delete-named = Gruppe löschen: { $group }
admin-groups-new = Neue Gruppe
admin-groups-create = Gruppe anlegen
admin-groups-created = Gruppe angelegt.
admin-groups-deleted = Gruppe gelöscht.
admin-groups-no-user = kein Benutzer mit dem Namen { $name }

# Das Prüfprotokoll.
admin-audit-filter-label = Prüfprotokoll filtern
admin-audit-entity = Objekt
admin-audit-entity-hint = z. B. ticket, comment, user…
admin-audit-id = ID
admin-audit-action = Aktion
admin-audit-action-hint = z. B. create, update…
admin-audit-actor = Wer (Benutzername)
admin-audit-total = { $n ->
    [one] { $n } Eintrag
   *[other] { $n } Einträge
}
admin-audit-none = Kein Eintrag passt.
admin-audit-who = Wer
admin-audit-what = Was
admin-audit-changes = Änderungen
admin-audit-rule = die Regel „{ $rule }“
admin-audit-user = Benutzer { $id }
admin-audit-system = das System

# Webhooks: die Endpunkte und das Formular für einen neuen.
admin-webhooks-none = Noch kein Endpunkt.
admin-webhooks-url = URL
admin-webhooks-events = Ereignisse
admin-webhooks-every-event = jedes Ereignis
admin-webhooks-new = Neuer Endpunkt
admin-webhooks-secret = Signaturgeheimnis
# Um den Namen des Headers, X-Webhook-Signature.
admin-webhooks-secret-note-before = Jede Zustellung wird damit signiert (
admin-webhooks-secret-note-after = ); es wird nicht wieder angezeigt.
admin-webhooks-events-legend = Ereignisse (keines angehakt: alle Ereignisse)
admin-webhooks-add = Endpunkt hinzufügen
admin-webhooks-created = Endpunkt hinzugefügt. Sein Geheimnis wird nicht wieder angezeigt.
admin-webhooks-deleted = Endpunkt entfernt.
admin-webhooks-redelivered = Erneut gesendet: Die Zustellung steht in der Warteschlange.

# Ein Webhook-Endpunkt und seine Zustellungen.
admin-webhook-title = Webhook { $id }
admin-webhook-endpoint = Endpunkt
admin-webhook-new-secret = Neues Signaturgeheimnis
admin-webhook-keep-secret = Leer lassen, um das bisherige Geheimnis zu behalten.
admin-webhook-on = An (Zustellungen werden gesendet)
admin-webhook-remove = Endpunkt entfernen
admin-webhook-deliveries = Zustellungen
admin-webhook-total = { $n ->
    [one] { $n } Versuch
   *[other] { $n } Versuche
}, neueste zuerst
admin-webhook-none = Noch nichts zugestellt.
admin-webhook-event = Ereignis
admin-webhook-attempt = Versuch
admin-webhook-answer = Antwort
admin-webhook-time = Dauer
admin-webhook-send-again = Erneut senden
admin-webhook-send-again-named = Zustellung { $id } erneut senden
admin-webhook-no-answer = keine Antwort

# Tags.
admin-tags-free = Freie Tags
admin-tags-free-on = Wer an einem Ticket arbeitet, darf es mit jedem beliebigen Namen taggen.
admin-tags-curated-only = Nur die gepflegte Liste erlauben
admin-tags-free-off = Nur Namen aus der gepflegten Liste dürfen an Tickets stehen.
admin-tags-allow-free = Jeden Namen erlauben
admin-tags-none = Noch keine Tags.
admin-tags-caption = Tags, meistverwendete zuerst
admin-tags-tag = Tag
admin-tags-tickets = Tickets
admin-tags-curated = Gepflegt
admin-tags-rename = Umbenennen oder zusammenführen
admin-tags-uncurate = Ja (entfernen)
admin-tags-uncurate-named = { $tag } von der gepflegten Liste nehmen
admin-tags-curate = Nein (hinzufügen)
admin-tags-curate-named = { $tag } auf die gepflegte Liste setzen
admin-tags-new-name-for = Neuer Name für { $tag }
admin-tags-new-name-hint = Neuer Name oder ein anderes Tag
admin-tags-delete-named = { $tag } von allen Tickets löschen
admin-tags-add-heading = Zur gepflegten Liste hinzufügen
admin-tags-curated-done = Tag zur Liste hinzugefügt.
admin-tags-deleted = Tag von allen Tickets gelöscht.
admin-tags-settings-saved = Einstellung gespeichert.

# Zeitregeln.
admin-time-rules-intro = Eine Zeitregel wirkt auf jedes Ticket einmal, sobald seit einem seiner Zeitpunkte eine Wartezeit vergangen ist und ihre Bedingungen zutreffen: „72 Geschäftsstunden wartend“, „seit einer Woche gelöst“. Auf dasselbe Ticket wirkt sie erst wieder, wenn sich dieser Zeitpunkt verschiebt.
admin-time-rules-new = Neue Zeitregel
admin-time-rules-none = Noch keine Zeitregel.
admin-time-rules-after = Nach
admin-time-rules-runs-on = Gilt für
admin-time-rules-rule = Regel
admin-time-rules-conditions = { $n ->
    [one] { $n } Bedingung
   *[other] { $n } Bedingungen
}
admin-time-rules-actions = { $n ->
    [one] { $n } Aktion
   *[other] { $n } Aktionen
}
admin-time-rules-every-ticket = alle Tickets
admin-time-rules-created = Zeitregel hinzugefügt. Sie läuft sofort und dann jeweils, wenn Wartezeiten enden.
admin-time-rules-deleted = Zeitregel entfernt.
admin-time-rules-saved = Gespeichert. Die Regel läuft sofort erneut.
admin-time-rules-dry-run = Sie würde jetzt auf { $n ->
    [one] { $n } Ticket
   *[other] { $n } Tickets
} wirken.
admin-time-rules-dry-run-capped = Sie würde jetzt auf { $n ->
    [one] { $n } Ticket
   *[other] { $n } Tickets
} unter den ersten { $examined } geprüften wirken; es können mehr sein.
# Die Wartezeit einer Zeitregel: „72 Geschäftsstunden“ „nach“ „der letzten Statusänderung“.
admin-wait = { $span } nach { $since }
admin-wait-business-hours = { $n ->
    [one] { $n } Geschäftsstunde
   *[other] { $n } Geschäftsstunden
}
admin-wait-hours = { $n ->
    [one] { $n } Stunde
   *[other] { $n } Stunden
}
admin-wait-since-created = der Eröffnung
admin-wait-since-updated = der letzten Aktualisierung
admin-wait-since-resolved = der Lösung
admin-wait-since-changed = der letzten Statusänderung
admin-wait-before = { $span } vor { $target }
admin-wait-before-first-response = Fälligkeit der ersten Antwort
admin-wait-before-resolution = Fälligkeit der Lösung

# Die SLA-Richtlinien (src/web/pages/admin/sla.rs): Ziele in Geschäftsminuten und der Kalender, in dem sie zählen.
admin-sla-title = SLA-Richtlinien
admin-sla-intro = Eine Richtlinie gibt den Tickets einer Priorität (und, wenn gewählt, eines Projekts oder einer Gruppe) zwei Ziele, gezählt in Geschäftszeit: die erste Antwort und die Lösung. Für ein Ticket gilt die genaueste passende Richtlinie. Eine Änderung berechnet die Fristen der offenen Tickets, die sie betrifft, im Hintergrund neu.
admin-sla-none = Noch keine SLA-Richtlinie: Tickets haben keine Ziele.
admin-sla-new = Neue Richtlinie
admin-sla-add = Richtlinie hinzufügen
admin-sla-added = Richtlinie hinzugefügt. Die Fristen der passenden offenen Tickets werden neu berechnet.
admin-sla-saved = Richtlinie gespeichert. Die Fristen der passenden offenen Tickets werden neu berechnet.
admin-sla-removed = Richtlinie entfernt. Ihre offenen Tickets gehen an eine andere passende Richtlinie oder verlieren ihre Ziele.
admin-sla-priority = Priorität
admin-sla-project = Projekt
admin-sla-group = Gruppe
admin-sla-every-group = Jede Gruppe
admin-sla-first-response = Erste Antwort innerhalb von (Geschäftsminuten)
admin-sla-resolution = Lösung innerhalb von (Geschäftsminuten)
admin-sla-hours = Geschäftszeiten
admin-sla-hours-help = Zeiten als HH:MM in der Zeitzone unten; 24:00 schließt um Mitternacht. Ein Tag ohne Zeiten ist geschlossen. Ohne Zeiten an allen Tagen zählen die Ziele rund um die Uhr.
admin-sla-time-zone = Zeitzone (ein IANA-Name; leer ist UTC)
admin-sla-day = Tag
admin-sla-opens = Öffnet
admin-sla-closes = Schließt
admin-sla-opens-on = Öffnet am { $day }
admin-sla-closes-on = Schließt am { $day }
admin-sla-holidays = Feiertage (ganztägig geschlossen; ein Datum pro Zeile, JJJJ-MM-TT)
admin-sla-pause = Die Uhr steht, solange ein Ticket ist:
admin-sla-remove-confirm = Die Richtlinie { $name } entfernen? Ihre offenen Tickets gehen an eine andere passende Richtlinie oder verlieren ihre Ziele.
admin-sla-day-mon = Montag
admin-sla-day-tue = Dienstag
admin-sla-day-wed = Mittwoch
admin-sla-day-thu = Donnerstag
admin-sla-day-fri = Freitag
admin-sla-day-sat = Samstag
admin-sla-day-sun = Sonntag

# Die Projekte (src/web/pages/admin/projects.rs).
admin-projects-intro = Tickets werden einem Projekt zugeordnet; SLA-Richtlinien, eigene Felder, Postfächer und Chat-Kanäle lassen sich auf eines beschränken. Ein archiviertes Projekt verschwindet aus Listen und Auswahlen; seine Tickets behalten es.
admin-projects-none = Noch kein Projekt.
admin-projects-project = Projekt
admin-projects-tickets = Tickets
admin-projects-description = Beschreibung
admin-projects-new = Neues Projekt
admin-projects-add = Projekt hinzufügen
admin-projects-added = Projekt hinzugefügt.
admin-projects-archived = Projekt archiviert. Seine Tickets behalten es.
admin-projects-archive = Archivieren
admin-projects-archive-ellipsis = Archivieren…
admin-projects-archive-named = { $name } archivieren
admin-projects-archive-confirm = Das Projekt { $name } archivieren? Es verschwindet aus Listen und Auswahlen; seine Tickets behalten es. Sein Name bleibt vergeben.

# Das Inventar (src/web/pages/admin/inventory.rs).
admin-assets-find = Wörter
admin-assets-find-button = Suchen
admin-assets-any = Alle
admin-assets-type = Art
admin-assets-status = Status
admin-assets-asset = Objekt
admin-assets-owner = Besitzer
admin-assets-owner-name = Besitzer (Benutzername; leer für keinen)
admin-assets-location = Standort
admin-assets-serial = Seriennummer
admin-assets-none = Kein Objekt passt.
admin-assets-more = { $total } Objekte passen; die ersten { $shown } werden gezeigt: Grenzen Sie die Liste mit Wörtern, einer Art oder einem Status ein.
admin-assets-new = Neues Objekt
admin-assets-add = Objekt hinzufügen
admin-assets-added = Objekt hinzugefügt.
admin-assets-archived = Objekt archiviert. Seine Tickets behalten die Verknüpfung.
admin-assets-edit-named = { $name } ändern
