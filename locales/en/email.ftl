# Notification emails. $ticket is the ticket's title and number, "Printer jams (TKT-042)"; $value a stored value.

email-hello = Hello { $name },
email-priority = Priority: { $value }
email-status = Status: { $value }
email-created-subject = New Ticket: { $ticket }
email-created = A new ticket was opened: { $ticket }.
email-assigned-subject = Ticket Assigned: { $ticket }
email-assigned = The ticket { $ticket } was assigned to you.
email-status-subject = Ticket Status Changed: { $ticket }
email-status-changed = The status of { $ticket } changed.
email-status-from-to = Status: { $from } -> { $to }
email-comment-subject = New Comment: { $ticket }
email-note-subject = New Internal Note: { $ticket }
email-commented = { $author } commented on { $ticket }:
email-files = { $n ->
    [one] Attached file:
   *[other] Attached files ({ $n }):
}
email-attachment-subject = New Attachment: { $ticket }
email-internal-attachment-subject = New Internal Attachment: { $ticket }
email-attached = { $uploader } attached a file to { $ticket }: { $filename }
email-open-ticket = Open the ticket to see it.
email-sla-breached-subject = SLA Breached: { $ticket }
email-sla-breached = The { $target } target of { $ticket } was breached.
email-sla-was-due = It was due at { $due }.
email-sla-risk-subject = SLA At Risk: { $ticket }
email-sla-risk = The { $target } target of { $ticket } is at risk.
email-sla-is-due = It is due at { $due }.
email-sla-first-response = first response
email-sla-resolution = resolution
email-size-bytes = { $n } bytes
email-size-kib = { $n } KiB
email-size-mib = { $n } MiB

# The password reset link. $minutes: how long the link works.
email-reset-subject = Reset your help-desk password
email-reset = someone asked to reset the password of your help-desk account ({ $username }). To choose a new one, open this link within { $minutes } minutes; it works once:
email-reset-ignore = If you did not ask, ignore this email: your password stays as it is.

# The answer to a message too large to take in. $subject: its subject; $size and $max: megabytes.
email-too-large-subject = Not received: { $subject }
email-too-large = Your message "{ $subject }" did not reach the help desk: at { $size } MB it is larger than the { $max } MB the help desk takes in. Please send it again with smaller files, or share large files as links.
