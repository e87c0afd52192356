# The frame of every page, and words many pages share.
layout-skip = Skip to content
layout-nav = Main
layout-signed-in-as = Signed in as
layout-sign-out = Sign out
nav-tickets = Tickets
nav-new-ticket = New ticket
nav-reports = Reports
nav-settings = Settings
nav-admin = Admin
error-back = Back to the ticket queue
date-never = never

# Stored values in words (statuses, priorities, kinds); a value with no message here is shown with its first
# letter raised.
value-new = New
value-open = Open
value-in_progress = In progress
value-on_hold = On hold
value-blocked = Blocked
value-resolved = Resolved
value-closed = Closed
value-low = Low
value-medium = Medium
value-high = High
value-critical = Critical
value-todo = To do
value-done = Done
value-active = Active
value-expired = Expired
value-revoked = Revoked
value-public = Public
value-internal = Internal

# An error page's title, by its HTTP status; another status shows its English reason.
error-400 = Bad Request
error-401 = Unauthorized
error-403 = Forbidden
error-404 = Not Found
error-405 = Method Not Allowed
error-409 = Conflict
error-413 = Payload Too Large
error-422 = Unprocessable Entity
error-429 = Too Many Requests
error-500 = Internal Server Error
error-503 = Service Unavailable
