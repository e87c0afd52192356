# The administration pages: people, groups, webhooks, tags, time rules, the audit trail, and the
# administration menu (which also leads to the pages in admin-rules.ftl).
admin-title = Administration
admin-nav-users = People
admin-nav-groups = Groups
admin-nav-webhooks = Webhooks
admin-nav-chat = Chat
admin-nav-mail = Mail
admin-nav-sla = SLA policies
admin-nav-projects = Projects
admin-nav-assets = Assets
admin-nav-triggers = Triggers
admin-nav-time-rules = Time rules
admin-nav-fields = Fields
admin-nav-tags = Tags
admin-nav-audit = Audit trail

# Words the administration pages share.
admin-name = Name
admin-username = User name
admin-email = Email
admin-state = State
admin-staff = Staff
admin-any = Any
admin-filter = Filter
admin-previous = Previous
admin-next = Next
admin-save = Save
admin-saved = Saved.
admin-add = Add
admin-remove = Remove
admin-rename = Rename
admin-delete = Delete
admin-actions = Actions
admin-when = When
admin-on = On
admin-off = Off
admin-role-requester = Requester
admin-role-agent = Agent
admin-role-admin = Administrator

# People: the list and the new-account form.
admin-users-search = Search
admin-users-role = Role
admin-users-caption = Accounts
admin-users-last-sign-in = Last sign-in
admin-users-active = Active
admin-users-deactivated = Deactivated
admin-users-new = New account
admin-users-password = Password
admin-users-create = Create account
admin-users-created = Account created.

# One account.
admin-user-open = { $n } open ticket(s) assigned to { $name }:
admin-user-reassign = reassign them
admin-user-account = Account
admin-user-superuser = Superuser
admin-user-access = Access
admin-user-last-sign-in = Last sign-in: { $when }
admin-user-deactivate = Deactivate
admin-user-deactivate-note = Ends their sessions, revokes their tokens and stops their sign-ins at once. Nothing they wrote is removed.
admin-user-reactivate = Reactivate
admin-user-new-password = New password
admin-user-set-password = Set password
admin-user-tokens = API tokens
admin-user-tokens-none = None.
admin-user-tokens-caption = Their API tokens
admin-user-token-created = Created
admin-user-token-last-used = Last used
admin-user-deactivated = Deactivated: their sessions and tokens stopped working.
admin-user-reactivated = Reactivated: they can sign in again.
admin-user-password-set = Password set; their sessions were signed out.

# Groups.
admin-groups-team = (team group)
admin-groups-no-members = No members.
admin-groups-remove-member = Remove { $member } from { $group }
admin-groups-add-member = Add member (user name)
admin-groups-new-name = New name
admin-groups-delete = Delete group
admin-groups-delete-named = Delete group { $group }
admin-groups-new = New group
admin-groups-create = Create group
admin-groups-created = Group created.
admin-groups-deleted = Group deleted.
admin-groups-no-user = no user named { $name }

# The audit trail.
admin-audit-filter-label = Filter the audit trail
admin-audit-entity = Entity
admin-audit-entity-hint = ticket, comment, user…
admin-audit-id = Id
admin-audit-action = Action
admin-audit-action-hint = create, update…
admin-audit-actor = Who (user name)
admin-audit-total = { $n ->
    [one] { $n } entry
   *[other] { $n } entries
}
admin-audit-none = No entry matches.
admin-audit-who = Who
admin-audit-what = What
admin-audit-changes = Changes
admin-audit-rule = the rule “{ $rule }”
admin-audit-user = user { $id }
admin-audit-system = the system

# Webhooks: the endpoints and the new-endpoint form.
admin-webhooks-none = No endpoint yet.
admin-webhooks-url = URL
admin-webhooks-events = Events
admin-webhooks-every-event = every event
admin-webhooks-new = New endpoint
admin-webhooks-secret = Signing secret
# Around the header's name, X-Webhook-Signature.
admin-webhooks-secret-note-before = Each delivery is signed with it (
admin-webhooks-secret-note-after = ); it is not shown again.
admin-webhooks-events-legend = Events (none ticked: every event)
admin-webhooks-add = Add endpoint
admin-webhooks-created = Endpoint added. Its secret is not shown again.
admin-webhooks-deleted = Endpoint removed.
admin-webhooks-redelivered = Sent again: the delivery is queued.

# One webhook endpoint and its deliveries.
admin-webhook-title = Webhook { $id }
admin-webhook-endpoint = Endpoint
admin-webhook-new-secret = New signing secret
admin-webhook-keep-secret = Leave it blank to keep the current secret.
admin-webhook-on = On (deliveries are sent)
admin-webhook-remove = Remove endpoint
admin-webhook-deliveries = Deliveries
admin-webhook-total = { $n ->
    [one] { $n } attempt
   *[other] { $n } attempts
}, newest first
admin-webhook-none = Nothing delivered yet.
admin-webhook-event = Event
admin-webhook-attempt = Attempt
admin-webhook-answer = Answer
admin-webhook-time = Time
admin-webhook-send-again = Send again
admin-webhook-send-again-named = Send delivery { $id } again
admin-webhook-no-answer = no answer

# Tags.
admin-tags-free = Free tags
admin-tags-free-on = Anyone who works on a ticket may tag it with any name.
admin-tags-curated-only = Allow only the curated list
admin-tags-free-off = Only names on the curated list may be put on tickets.
admin-tags-allow-free = Allow any name
admin-tags-none = No tags yet.
admin-tags-caption = Tags, most used first
admin-tags-tag = Tag
admin-tags-tickets = Tickets
admin-tags-curated = Curated
admin-tags-rename = Rename or merge
admin-tags-uncurate = Yes (remove)
admin-tags-uncurate-named = Take { $tag } off the curated list
admin-tags-curate = No (add)
admin-tags-curate-named = Put { $tag } on the curated list
admin-tags-new-name-for = New name for { $tag }
admin-tags-new-name-hint = New name or another tag
admin-tags-delete-named = Delete { $tag } from every ticket
admin-tags-add-heading = Add to the curated list
admin-tags-curated-done = Tag added to the list.
admin-tags-deleted = Tag deleted from every ticket.
admin-tags-settings-saved = Setting saved.

# Time rules.
admin-time-rules-intro = A time rule acts on each ticket once, when a wait has passed since one of its moments and its conditions hold: "on hold for 72 business hours", "resolved for a week". It acts again on a ticket only once that moment moves.
admin-time-rules-new = New time rule
admin-time-rules-none = No time rule yet.
admin-time-rules-after = After
admin-time-rules-runs-on = Runs on
admin-time-rules-rule = Rule
admin-time-rules-conditions = { $n ->
    [one] { $n } condition
   *[other] { $n } conditions
}
admin-time-rules-actions = { $n ->
    [one] { $n } action
   *[other] { $n } actions
}
admin-time-rules-every-ticket = every ticket
admin-time-rules-created = Time rule added. It runs at once, then as waits end.
admin-time-rules-deleted = Time rule removed.
admin-time-rules-saved = Saved. The rule runs again at once.
admin-time-rules-dry-run = It would act on { $n ->
    [one] { $n } ticket
   *[other] { $n } tickets
} now.
admin-time-rules-dry-run-capped = It would act on { $n ->
    [one] { $n } ticket
   *[other] { $n } tickets
} now among the first { $examined } it looked at; there may be more.
# A time rule's wait: "72 business hours" "after" "its status last changed".
admin-wait = { $span } after { $since }
admin-wait-business-hours = { $n ->
    [one] { $n } business hour
   *[other] { $n } business hours
}
admin-wait-hours = { $n ->
    [one] { $n } hour
   *[other] { $n } hours
}
admin-wait-since-created = it was opened
admin-wait-since-updated = it was last updated
admin-wait-since-resolved = it was resolved
admin-wait-since-changed = its status last changed
# A wait counted back from an SLA target: "2 hours" "before" "the first response is due".
admin-wait-before = { $span } before { $target }
admin-wait-before-first-response = the first response is due
admin-wait-before-resolution = the resolution is due

# The SLA policies (src/web/pages/admin/sla.rs): targets in business minutes, and the calendar they count in.
admin-sla-title = SLA policies
admin-sla-intro = A policy gives the tickets of a priority (and, when chosen, of one project or group) two targets, counted in business time: the first response and the resolution. The most specific policy that matches a ticket applies to it. A change re-clocks the open tickets it may move, in the background.
admin-sla-none = No SLA policy yet: tickets have no targets.
admin-sla-new = New policy
admin-sla-add = Add policy
admin-sla-added = Policy added. The open tickets it matches are re-clocked.
admin-sla-saved = Policy saved. The open tickets it matches are re-clocked.
admin-sla-removed = Policy removed. Its open tickets move to another matching policy, or lose their targets.
admin-sla-priority = Priority
admin-sla-project = Project
admin-sla-group = Group
admin-sla-every-group = Every group
admin-sla-first-response = First response within (business minutes)
admin-sla-resolution = Resolution within (business minutes)
admin-sla-hours = Business hours
admin-sla-hours-help = Times are HH:MM in the time zone below; 24:00 closes at midnight. A day with neither time is closed. With no hours on any day, the targets count around the clock.
admin-sla-time-zone = Time zone (an IANA name; UTC when empty)
admin-sla-day = Day
admin-sla-opens = Opens
admin-sla-closes = Closes
admin-sla-opens-on = Opens on { $day }
admin-sla-closes-on = Closes on { $day }
admin-sla-holidays = Holidays (closed all day; one date per line, YYYY-MM-DD)
admin-sla-pause = The clock stops while a ticket is
admin-sla-remove-confirm = Remove the policy { $name }? Its open tickets move to another matching policy, or lose their targets.
admin-sla-day-mon = Monday
admin-sla-day-tue = Tuesday
admin-sla-day-wed = Wednesday
admin-sla-day-thu = Thursday
admin-sla-day-fri = Friday
admin-sla-day-sat = Saturday
admin-sla-day-sun = Sunday

# The projects (src/web/pages/admin/projects.rs).
admin-projects-intro = Tickets are filed under a project; SLA policies, custom fields, mailboxes and chat channels can be limited to one. Archiving a project takes it out of lists and pickers; its tickets keep it.
admin-projects-none = No project yet.
admin-projects-project = Project
admin-projects-tickets = Tickets
admin-projects-description = Description
admin-projects-new = New project
admin-projects-add = Add project
admin-projects-added = Project added.
admin-projects-archived = Project archived. Its tickets keep it.
admin-projects-archive = Archive
admin-projects-archive-ellipsis = Archive…
admin-projects-archive-named = Archive { $name }
admin-projects-archive-confirm = Archive the project { $name }? It leaves lists and pickers; its tickets keep it. Its name stays taken.

# The inventory (src/web/pages/admin/inventory.rs).
admin-assets-find = Words
admin-assets-find-button = Find
admin-assets-any = Any
admin-assets-type = Type
admin-assets-status = Status
admin-assets-asset = Asset
admin-assets-owner = Owner
admin-assets-owner-name = Owner (user name; empty for none)
admin-assets-location = Location
admin-assets-serial = Serial number
admin-assets-none = No asset matches.
admin-assets-more = { $total } assets match; the first { $shown } are shown: narrow the list with words, a type or a status.
admin-assets-new = New asset
admin-assets-add = Add asset
admin-assets-added = Asset added.
admin-assets-archived = Asset archived. Its tickets keep their link to it.
admin-assets-edit-named = Change { $name }
