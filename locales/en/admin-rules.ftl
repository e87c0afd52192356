# Administration: triggers (and the rule editor time rules share), custom fields, chat channels, mailboxes.
rules-administration = Administration
rules-saved = Saved.
rules-on = On
rules-off = Off
rules-state-off = off
rules-name = Name
rules-none-yet = none yet
rules-every-ticket = every ticket
rules-every-ticket-cap = Every ticket
rules-every-project = Every project
rules-tickets = Tickets
rules-save-named = Save { $name }
rules-remove = Remove
rules-remove-ellipsis = Remove…
rules-confirm-remove = Confirm remove
rules-confirm-remove-named = Confirm remove { $name }
rules-col-settings = Settings

# The triggers' list.
rules-triggers-title = Triggers
rules-triggers-intro = Triggers run on every ticket write, top to bottom, once each. A trigger sees what the ones above it changed; what triggers change never sets them off again.
rules-no-trigger = No trigger yet.
rules-col-order = Order
rules-col-name = Name
rules-col-runs-on = Runs on
rules-col-rule = Rule
rules-col-state = State
rules-run-earlier = Run { $name } earlier
rules-run-later = Run { $name } later
rules-rule-size = { $conditions ->
        [one] { $conditions } condition
       *[other] { $conditions } conditions
    }, { $actions ->
        [one] { $actions } action
       *[other] { $actions } actions
    }
rules-trigger-added = Trigger added. It runs on the next ticket write.
rules-trigger-removed = Trigger removed.
rules-order-changed = Order changed.

# The rule editor (triggers and time rules).
rules-new-trigger = New trigger
rules-new-time-rule = New time rule
rules-add-trigger = Add trigger
rules-add-time-rule = Add time rule
rules-remove-trigger = Remove trigger
rules-remove-time-rule = Remove time rule
rules-heading-trigger = Trigger
rules-heading-time-rule = Time rule
rules-only-project = Only tickets of the project (blank: every ticket)
rules-known-projects = Projects: { $projects }.
rules-on-trigger = On (runs on ticket writes)
rules-on-time-rule = On (acts on tickets once their wait has passed)
rules-after = After
rules-wait-help = The rule acts on a ticket once, this long after the moment (or, for an SLA target still pending, this long before it is due); again only once the moment moves. Business hours are those of the ticket's SLA policy (every hour when it has none). Closed tickets are left alone.
rules-hours = Hours
rules-since = Moment
rules-since-status-changed = its status last changed
rules-since-updated = it was last updated
rules-since-created = it was opened
rules-since-resolved = it was resolved
rules-before-first-response-due = before the first response is due (SLA)
rules-before-resolution-due = before the resolution is due (SLA)
rules-business-hours-only = Count business hours only
rules-when = When
rules-conditions-help = Every "all" row must hold, and one "any" row when there are any. Name people by user name, groups and projects by name; "none" is empty; "is one of" takes a comma-separated list; "yes" or "no" for an internal comment. Groups: { $groups }.
rules-col-rows = Rows
rules-col-field = Field
rules-col-operator = Operator
rules-col-value = Value
rules-col-action = Action
rules-condition-list = Condition { $n }: all or any
rules-condition-field = Condition { $n }: field
rules-condition-operator = Condition { $n }: operator
rules-condition-value = Condition { $n }: value
rules-list-all = all
rules-list-any = any
rules-no-condition = (no condition)
rules-then = Then
rules-actions-help = In order. A reply or note is plain text; it may use { $fields } and { $last }.
rules-action-row = Action { $n }
rules-action-row-value = Action { $n }: value
rules-no-action = (no action)
rules-save = Save
rules-dry-run = Count the tickets it would act on now

# A condition's field.
rules-cond-event = Event
rules-cond-channel = Channel
rules-cond-actor-role = Changed by: role
rules-cond-actor-group = Changed by: member of group
rules-cond-comment-internal = Comment is internal
rules-cond-business-hours = Within business hours (yes or no)
rules-cond-title = Title
rules-cond-description = Description
rules-cond-status = Status
rules-cond-priority = Priority
rules-cond-project = Project
rules-cond-assignee = Assignee
rules-cond-assigned-group = Assigned group
rules-cond-requester = Requester
rules-cond-due-date = Due date
rules-cond-tags = Tags (contains, is not, one of)
rules-cond-custom-field = Field “{ $label }” ({ $key })

# A condition's operator.
rules-op-is = is
rules-op-is-not = is not
rules-op-one-of = is one of
rules-op-contains = contains
rules-op-starts-with = starts with
rules-op-greater-than = is greater than / after
rules-op-less-than = is less than / before
rules-op-changed = changed
rules-op-changed-from = changed from
rules-op-changed-to = changed to

# What an action does.
rules-action-status = Set status
rules-action-priority = Set priority
rules-action-assigned-to = Assign to (user name)
rules-action-assigned-group = Assign to group
rules-action-project = Move to project
rules-action-due-date = Set due date (date, or days from now)
rules-action-comment = Add a public reply
rules-action-note = Add an internal note
rules-action-add-tags = Add tags (separated by commas)
rules-action-remove-tags = Remove tags (separated by commas)
rules-action-assign-least-loaded = Assign to the least loaded member of (group; blank: the ticket's)
rules-action-assign-round-robin = Assign in turn to the members of (group; blank: the ticket's)
rules-action-notify-requester = Email the requester (subject, then the text)
rules-action-notify-assignee = Email the assignee (subject, then the text)
rules-action-notify-assigned-group = Email the assigned group (subject, then the text)
rules-action-notify-group = Email a group (its name, the subject, then the text)
rules-action-notify-user = Email a person (user name, the subject, then the text)
rules-action-notify-chat = Post to a chat channel (its name, the subject, then the text)
rules-action-notify-webhook = Call a webhook endpoint (its URL, the subject, then the text)
rules-action-set-field = Set field “{ $label }” ({ $key }; "none" clears it)

# Custom fields.
rules-fields-title = Custom fields
rules-fields-intro = A ticket carries at most { $max } fields: every ticket's and its project's together. Archiving a field hides it and keeps its values.
rules-no-fields = No custom fields yet.
rules-fields-caption = Custom fields, in order
rules-col-key = Key
rules-col-kind = Kind
rules-col-project = Project
rules-col-definition = Definition
rules-archive = Archive
rules-archive-ellipsis = Archive…
rules-archive-named = Archive { $name }
rules-restore = Restore
rules-restore-named = Restore { $name }
rules-archived = (archived)
rules-field-named-by = Rules that name it:
rules-field-named-archived = Rules that name it read it as unset while it is archived:
rules-field-named-warning = Rules name this field; archived, they read it as unset and skip setting it.
rules-named-trigger = trigger “{ $name }”
rules-named-time_rule = time rule “{ $name }”
rules-named-macro = macro “{ $name }”
rules-field-label = Label
rules-field-choices = Choices (separated by commas)
rules-field-choices-new = Choices, for a choice field (separated by commas)
rules-field-required = Required
rules-required-never = Never
rules-required-always = Always
rules-required-once-started = Once work starts
rules-required-to-resolve = To resolve
rules-field-position = Position
rules-field-team-only = Team only
rules-new-field = New field
rules-field-key = Key (lowercase letters, digits and _)
rules-add-field = Add field
rules-field-added = Field added.

# Chat channels.
rules-chat-title = Chat
rules-chat-heading = Slack and Teams channels
rules-chat-intro = Each channel hears of the tickets it takes. Internal notes go only to a channel marked as the team's own.
rules-no-channel = No channel yet.
rules-chat-caption = Chat destinations
rules-col-channel = Channel
rules-chat-posts-as-bot = Bot
rules-chat-posts-as-webhook = Incoming webhook
rules-chat-new-token = New bot token (blank: keep the stored one)
rules-chat-new-url = New webhook URL (blank: keep the stored one)
rules-chat-events = Events (none ticked: all)
rules-chat-priorities = Priorities (none ticked: all)
rules-chat-team-only = The team's own channel: internal notes go to it too
rules-chat-remove-confirm = Remove { $name }? Messages not yet posted are dropped.
rules-new-channel = New channel
rules-chat-service = Service
rules-chat-url = Incoming webhook URL (Teams, or Slack without a bot)
rules-chat-bot-note = Or, for a Slack bot that keeps each ticket in one thread, its token and channel instead:
rules-chat-token = Slack bot token
rules-chat-channel = Slack channel
rules-add-channel = Add channel
rules-chat-added = Destination added. Its URL or token is not shown again.
rules-chat-removed = Destination removed.
rules-chat-last-none = No message yet.
rules-chat-last-delivered = Last message ({ $event }) delivered on { $when }.
rules-chat-last-waiting = Last message ({ $event }) waiting to be sent.
rules-chat-last-retrying = Last message ({ $event }) not delivered after { $attempts } tries: { $error }. Next try: { $when }.
rules-chat-last-failed = Last message ({ $event }) given up after { $attempts } tries: { $error }.
rules-chat-last-try-answered = Last try { $when }: answered { $status } in { $ms } ms.
rules-chat-last-try-refused = Last try { $when }: answered { $status } in { $ms } ms: { $error }.
rules-chat-last-try-unanswered = Last try { $when }: no answer after { $ms } ms: { $error }.

# Mailboxes.
rules-mail-title = Mail
rules-mail-heading = Mailboxes
rules-mail-intro = Mail in each mailbox becomes tickets, and replies become comments on the tickets they answer. A message is put away only once its ticket or comment is saved; one that cannot be taken in goes to the failed folder.
rules-no-mailbox = No mailbox yet.
rules-col-mailbox = Mailbox
rules-mail-failing = Cannot be read: { $why }
rules-mail-read-at = Read at { $at }
rules-mail-not-read = Not read yet
rules-mail-address = Address
rules-mail-new-secret = New password or token (blank: keep the stored one)
rules-mail-done-folder = Move taken mail to (blank: mark it read)
rules-mail-failed-folder = Move mail that cannot be taken in to
rules-mail-project = New tickets open in
rules-mail-default-project = The default project
rules-mail-server-heading = From a mail server
rules-mail-server-open = A mail server can also hand each message to this service by piping it to the command below, with DESKGRAPH_MAIL_IN_SECRET set to the service's own. It needs no access to the database.
rules-mail-server-closed = A mail server can also pipe each message to the command below, on a host with the service's configuration and access to its database. To let it hand messages over HTTP instead (deskgraph mail-in --url), set DESKGRAPH_MAIL_IN_SECRET on the service.
rules-mail-server-this-address = <this service's address>
rules-mail-remove-confirm = Remove { $name }? Its mail stays on the server; nothing more is fetched from it.
rules-new-mailbox = New mailbox
# The address's help runs around code samples: <code>imaps://</code> [tls] <code>imap://</code> [starttls]
# <code>user;AUTH=XOAUTH2@host</code> [oauth] <code>@</code> [at] <code>%40</code>[end]
rules-mail-help-tls = for TLS (port 993),
rules-mail-help-starttls = for STARTTLS (port 143); the folder after the host (INBOX when none). Write
rules-mail-help-oauth = to sign in with an OAuth2 token (Microsoft 365, Gmail). An
rules-mail-help-at = in the user is written
rules-mail-help-end = .
rules-mail-secret = Password or OAuth2 token
rules-add-mailbox = Add mailbox
rules-mail-added = Mailbox added: it is read within a minute. Its secret is not shown again.
rules-mail-removed = Mailbox removed; its mail stays on the server.
rules-mail-projects-heading = Mail by project
rules-mail-projects-intro = How mail to each project is taken in: a requester's reply to a resolved ticket, and mail from people the desk has no account for. A reply to a closed ticket always opens a new ticket related to it.
rules-mail-col-project = Project
rules-mail-resolved-reply = A requester's reply to a resolved ticket
rules-mail-resolved-reopen = Reopens it
rules-mail-resolved-follow_up = Opens a follow-up ticket related to it
rules-mail-strangers = Mail from someone without an account
rules-mail-strangers-service = As the service is set: { $setting }
rules-mail-strangers-create = Taken: an account is made for them
rules-mail-strangers-known_domains = Taken only from the domains listed below
rules-mail-strangers-refuse = Refused
rules-mail-domains = Domains taken from (one per line, subdomains included)

# Stored values in words: custom field kinds, chat services.
value-text = Text
value-long_text = Long text
value-number = Number
value-date = Date
value-datetime = Datetime
value-boolean = Boolean
value-choice = Choice
value-multi_choice = Multi choice
value-user = User
value-asset = Asset
value-slack = Slack
value-teams = Teams
