# Benachrichtigungen. $ticket ist Titel und Nummer des Tickets, "Drucker klemmt (TKT-042)"; $value ein Wert.

email-hello = Hallo { $name },
email-priority = Priorität: { $value }
email-status = Status: { $value }
email-created-subject = Neues Ticket: { $ticket }
email-created = Ein neues Ticket wurde eröffnet: { $ticket }.
email-assigned-subject = Ticket zugewiesen: { $ticket }
email-assigned = Das Ticket { $ticket } wurde Ihnen zugewiesen.
email-status-subject = Status geändert: { $ticket }
email-status-changed = Der Status von { $ticket } hat sich geändert.
email-status-from-to = Status: { $from } -> { $to }
email-comment-subject = Neuer Kommentar: { $ticket }
email-note-subject = Neue interne Notiz: { $ticket }
email-commented = { $author } hat { $ticket } kommentiert:
email-files = { $n ->
    [one] Angehängte Datei:
   *[other] Angehängte Dateien ({ $n }):
}
email-attachment-subject = Neuer Anhang: { $ticket }
email-internal-attachment-subject = Neuer interner Anhang: { $ticket }
email-attached = { $uploader } hat eine Datei an { $ticket } angehängt: { $filename }
email-open-ticket = Öffnen Sie das Ticket, um sie zu sehen.
email-sla-breached-subject = SLA verletzt: { $ticket }
email-sla-breached = Das Ziel „{ $target }“ von { $ticket } wurde verfehlt.
email-sla-was-due = Es war fällig am { $due }.
email-sla-risk-subject = SLA gefährdet: { $ticket }
email-sla-risk = Das Ziel „{ $target }“ von { $ticket } ist gefährdet.
email-sla-is-due = Es ist fällig am { $due }.
email-sla-first-response = Erste Antwort
email-sla-resolution = Lösung
email-size-bytes = { $n } Bytes
email-size-kib = { $n } KiB
email-size-mib = { $n } MiB

# Der Link zum Zurücksetzen des Passworts. $minutes: wie lange er gilt.
email-reset-subject = Passwort des Helpdesk-Kontos zurücksetzen
email-reset = jemand hat darum gebeten, das Passwort Ihres Helpdesk-Kontos ({ $username }) zurückzusetzen. Um ein neues zu wählen, öffnen Sie diesen Link innerhalb von { $minutes } Minuten; er funktioniert einmal:
email-reset-ignore = Wenn Sie nicht darum gebeten haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.

# The answer to a message too large to take in. $subject: its subject; $size and $max: megabytes.
email-too-large-subject = Nicht angekommen: { $subject }
email-too-large = Ihre Nachricht „{ $subject }“ hat den Helpdesk nicht erreicht: Mit { $size } MB ist sie größer als die { $max } MB, die der Helpdesk annimmt. Bitte senden Sie sie mit kleineren Dateien erneut oder teilen Sie große Dateien als Link.
