# The new-ticket form (/tickets/new/).
new-ticket-title = New ticket
new-ticket-field-title = Title
new-ticket-description = Description
new-ticket-priority = Priority
new-ticket-files = Attach files (optional, up to 10)
new-ticket-drop-hint = Or drop files on this form, or paste a screenshot into the description.
new-ticket-submit = Create ticket
