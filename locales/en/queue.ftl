# The ticket queue (/tickets/).
queue-title = Tickets
queue-views-label = Queue views
queue-view-all = All
queue-view-mine = Mine
queue-view-groups = My groups
queue-view-unassigned = Unassigned
queue-view-breaching = Breaching soon
queue-view-my-requests = My requests
queue-view-waiting = Waiting for me
queue-saved-views-label = Saved views
queue-remove-view-label = Remove saved view { $name }
queue-remove-view = Remove

# Filters
queue-filter-label = Filter tickets
queue-search = Search
queue-search-placeholder = Title, text or number
queue-status = Status
queue-priority = Priority
queue-any = Any
queue-tags = Tags
queue-tags-placeholder = vpn, urgent
queue-assigned = Assigned to
queue-assigned-anyone = Anyone or nobody
queue-assigned-me = Me
queue-assigned-someone = Someone
queue-assigned-nobody = Nobody
queue-sort = Sort
queue-sort-newest = Newest first
queue-sort-oldest = Oldest first
queue-sort-updated-recently = Recently updated
queue-sort-updated-least = Least recently updated
queue-sort-due-soonest = SLA due soonest
queue-sort-due-latest = SLA due latest
queue-sort-number-highest = Number, highest first
queue-sort-number-lowest = Number, lowest first
queue-show-closed = Show resolved and closed
queue-filter = Filter

# Saved views
queue-save-as = Save these filters as
queue-save-placeholder = A name for this view
queue-save-view = Save view

# The list
queue-count = { $n ->
    [one] { $n } ticket
   *[other] { $n } tickets
}
queue-note-too-much = Too much for a word search (at most { $chars } characters and { $words } words, on one line);
queue-note-no-words = No ticket has all of these words;
queue-note-contain = these contain “{ $q }” in their title or description.
queue-empty = No tickets match.
queue-caption-ranked = Tickets, best match first
queue-caption-newest = Tickets, newest first
queue-col-select = Select
queue-col-number = Number
queue-col-title = Title
queue-col-status = Status
queue-col-priority = Priority
queue-col-requester = Requester
queue-col-assignee = Assignee
queue-col-updated = Updated
queue-col-sla = SLA
queue-select-ticket = Select { $number }
queue-unassigned = Unassigned
queue-sla-paused = Paused

# Applying a macro to the ticked tickets
queue-bulk-label = Apply to the selected tickets
queue-bulk-apply = Apply macro
queue-macro-applied = Macro applied to { $changed } tickets.
queue-macro-applied-failed = Macro applied to { $changed } tickets; { $failed } could not be changed (open them to see why).

# Changing the ticked tickets in the background
queue-bulk-change-label = Change the selected tickets
queue-bulk-keep = (keep)
queue-bulk-assign-me = Me
queue-bulk-assign-nobody = Nobody
queue-bulk-change = Change
queue-bulk-started = { $n ->
    [one] { $n } ticket is being changed in the background; the list shows it as it changes.
   *[other] { $n } tickets are being changed in the background; the list shows them as they change.
}

# Pages
queue-pages-label = Pages
queue-previous-page = Previous page
queue-page-of = Page { $page } of { $pages }
queue-next-page = Next page

# Keyboard shortcuts ("Press ? for keyboard shortcuts.": the key sits between the two parts)
queue-shortcuts-hint-before = Press
queue-shortcuts-hint-after = for keyboard shortcuts.
queue-shortcuts-title = Keyboard shortcuts
queue-shortcut-next-previous = Next / previous ticket
queue-shortcut-or = or
queue-key-enter = Enter
queue-shortcut-open = Open the ticket
queue-shortcut-assign = Assign the ticket to me
queue-shortcut-reply = Reply to the ticket
queue-shortcut-search = Search
queue-shortcut-help = This list
queue-shortcuts-close = Close
