# Der Verlauf der Ticketseite in Worten (src/web/pages/ticket/history.rs).

# Wann, von jetzt aus gesehen.
history-ago-now = gerade eben
history-ago-minutes = vor { $n ->
        [one] { $n } Minute
       *[other] { $n } Minuten
    }
history-ago-hours = vor { $n ->
        [one] { $n } Stunde
       *[other] { $n } Stunden
    }
history-ago-yesterday = gestern
history-ago-days = vor { $n ->
        [one] { $n } Tag
       *[other] { $n } Tagen
    }

# Wer es getan hat: der Satzanfang, dem jede Tat unten folgt („Alice hat“ + " " + „dieses Ticket eröffnet“).
# Jede Tat steht im Perfekt, daher trägt der Satzanfang das Hilfsverb.
history-by = { $name } hat
history-by-you = Sie haben
history-by-someone = Jemand hat
history-by-service = Das System hat
history-by-rule = Die Regel „{ $rule }“ hat

# Nicht mehr bekannte Namen: eine Person (im Dativ: „… jemandem zugewiesen“), eine Gruppe, ein Projekt, ein Asset.
history-someone = jemandem
history-unlisted = (nicht mehr aufgeführt)

# Was getan wurde, nach dem, der es getan hat.
history-opened = dieses Ticket eröffnet
history-resolved = das Ticket gelöst
history-closed = das Ticket geschlossen
history-reopened = das Ticket als { $status } wieder geöffnet
history-status = den Status von { $from } auf { $to } geändert
history-priority-raised = die Priorität von { $from } auf { $to } erhöht
history-priority-lowered = die Priorität von { $from } auf { $to } gesenkt
history-assigned = das Ticket { $name } zugewiesen
history-unassigned = die Zuweisung an { $name } aufgehoben
history-group-assigned = das Ticket der Gruppe { $name } zugewiesen
history-group-removed = das Ticket der Gruppe { $name } entzogen
history-project-moved = das Ticket in das Projekt { $name } verschoben
history-project-removed = das Ticket aus dem Projekt { $name } herausgenommen
history-renamed = das Ticket in „{ $title }“ umbenannt
history-description = die Beschreibung bearbeitet
history-due-set = das Fälligkeitsdatum auf { $date } gesetzt
history-due-removed = das Fälligkeitsdatum entfernt
history-archived = das Ticket archiviert
history-restored = das Ticket wiederhergestellt
history-asset-linked = das Asset { $name } verknüpft
history-asset-unlinked = die Verknüpfung mit dem Asset { $name } entfernt
history-note-added = eine interne Notiz hinzugefügt
history-comment-added = kommentiert
history-note-edited = eine interne Notiz bearbeitet
history-comment-edited = einen Kommentar bearbeitet
history-note-deleted = eine interne Notiz gelöscht
history-comment-deleted = einen Kommentar gelöscht
history-file-added = { $name } angehängt
history-file-removed = die Datei { $name } entfernt
# $value ist history-field-value: der Wert in Anführungszeichen.
history-field-set = { $key } auf { $value } gesetzt
history-field-value = „{ $value }“
history-field-cleared = { $key } geleert
history-tags-added = die Schlagwörter { $added } hinzugefügt
history-tags-removed = die Schlagwörter { $removed } entfernt
history-tags-changed = die Schlagwörter { $added } hinzugefügt und { $removed } entfernt
# $how ist eines der history-link-… unten.
history-linked = das Ticket mit einem anderen Ticket verknüpft ({ $how })
history-unlinked = eine Verknüpfung ({ $how }) zu einem anderen Ticket entfernt
history-link-parent-of = übergeordnet zu
history-link-child-of = untergeordnet zu
history-link-relates-to = verwandt mit
history-link-duplicate-of = Duplikat von
history-link-duplicated-by = dupliziert durch
history-link-blocks = blockiert
history-link-blocked-by = blockiert durch
# $time ist eine Dauer (duration-hours-minutes in common.ftl).
history-time-logged = { $time } erfasst
history-time-removed = { $time } erfasste Zeit entfernt
history-follower-added = { $name } zu den Beobachtenden hinzugefügt
history-follower-removed = eine beobachtende Person entfernt
history-merged-into = dieses Ticket in { $number } zusammengeführt
history-merged-from = { $number } in dieses Ticket zusammengeführt
history-split-to = Kommentare in { $number } abgespalten
history-split-from = dieses Ticket von { $number } abgespalten
history-changed = das Ticket geändert

# Einträge der SLA-Uhr selbst (ganze Sätze, ohne Handelnden).
history-sla-at-risk-first-response = Die Frist für die erste Antwort läuft bald ab
history-sla-at-risk-resolution = Die Frist für die Lösung läuft bald ab
history-sla-missed-first-response = Frist für die erste Antwort verpasst
history-sla-missed-resolution = Frist für die Lösung verpasst
