# The ticket page: its side panel, forms, comments, and the confirmations its forms show.
ticket-breadcrumb = Tickets
ticket-waiting = Waiting for you: the team needs your reply.
ticket-waiting-reply = Reply below
ticket-merged-into = Merged into
ticket-merged-rest = : its conversation continues there, and comments added here go there.
ticket-details = Details
ticket-change-status = Change status
ticket-resolution-add = Add a resolution note
ticket-resolution-label = Resolution note (optional, sent to the requester as a comment when resolving)
ticket-assign-to-me = Assign to me
ticket-priority = Priority
ticket-assignee = Assignee
ticket-assign-by-name = Or assign to someone else (user name)
ticket-group = Group
ticket-project = Project
ticket-due-date = Due date
ticket-save = Save
ticket-requester = Requester
ticket-unassigned = Unassigned
ticket-due = Due
ticket-sla = SLA
ticket-sla-paused = Paused
ticket-tags = Tags
ticket-tag-remove = Remove tag { $tag }
ticket-tags-add-label = Add tags (separated by commas)
ticket-tags-add-placeholder = Add tags, separated by commas
ticket-add = Add
ticket-followers = Followers
ticket-follower-remove = Remove follower { $name }
ticket-unfollow = Unfollow
ticket-follow = Follow
ticket-follower-add-label = Add a follower (user name or email)
ticket-follower-add-placeholder = User name or email
ticket-time-spent = Time spent
ticket-created = Created
ticket-updated = Updated
ticket-description = Description
ticket-no-description = No description.
ticket-fields = Fields
ticket-field-team = (team)
ticket-fields-edit = Edit fields
ticket-fields-save = Save fields
ticket-edit = Edit title and description
ticket-title = Title
ticket-save-changes = Save changes
ticket-attachments = Attachments
ticket-links = Linked tickets
ticket-blocking = Blocking
ticket-link-remove = Remove the link to { $number }
ticket-resolve-children = Resolve { $n } open { $n ->
    [one] child
   *[other] children
  }
ticket-link-this = This ticket
ticket-link-ticket = ticket
ticket-link = Link
ticket-merge-open = Merge into another ticket…
ticket-merge-label = Merge { $number } into
ticket-merge-note = Comments, files, time, tags, followers and links move there; this ticket is closed and its requester is told. A merge cannot be undone.
ticket-merge = Merge
ticket-split-open = Split comments off into a new ticket…
ticket-split-note = Tick "Split off" on the comments to move. They go, with their files and time, to a new ticket of the same requester, linked to this one.
ticket-split-title = New ticket's title
ticket-split-from = (split from { $number })
ticket-split = Split off
ticket-macros = Macros
ticket-macro = Macro
ticket-macro-apply = Apply
ticket-sections = Ticket sections
ticket-comments = Comments
ticket-history = History
ticket-comments-count = Comments ({ $n })
ticket-no-comments = No comments yet.
ticket-internal-note = Internal note
ticket-edited = (edited
ticket-internal-file = Internal
ticket-comment-edit-label = Edit comment
ticket-cancel = Cancel
ticket-comment-edit = Edit
ticket-comment-delete-open = Delete…
ticket-comment-delete-ask = Delete this comment? This cannot be undone here.
ticket-comment-delete = Confirm delete
ticket-comment-history = Edit history
ticket-comment-before = Before the edit by { $editor } on { $at }:
ticket-comment-add-label = Add a comment
ticket-comment-who = Who can read it
ticket-comment-public = Public reply
ticket-comment-internal = Internal note (team only)
ticket-comment-minutes = Time spent, in minutes (optional)
ticket-comment-files = Attach files (optional, up to 10)
ticket-comment-drop = Or drop files on this form, or paste a screenshot into the text.
ticket-comment-add = Add comment
ticket-history-none = No changes recorded.
ticket-none = None
ticket-deleted-user = Deleted user
ticket-rule-author = Service desk

# Custom fields (also on the new-ticket form).
ticket-field-required = required
ticket-field-required-start = required once work starts
ticket-field-required-resolve = required to resolve
ticket-field-yes = yes
ticket-field-no = no
ticket-field-zone = ({ $zone })
ticket-field-user = user { $id }
ticket-field-asset = asset { $id }
ticket-field-datetime = { $at } ({ $zone })

# File sizes.

# Confirmations after a form on the ticket page.
ticket-flash-resolved = Resolved
ticket-flash-closed = Closed
ticket-flash-reopened = Reopened
ticket-flash-moved = Moved to { $status }
ticket-flash-saved = Changes saved
ticket-flash-priority = Priority set to { $priority }
ticket-flash-assigned-you = Assigned to you
ticket-flash-assignee = Assignee changed
ticket-flash-unassigned = Unassigned
ticket-flash-group = Group changed
ticket-flash-group-removed = Group removed
ticket-flash-project = Project changed
ticket-flash-project-removed = Project removed
ticket-flash-due = Due date set to { $day }
ticket-flash-due-removed = Due date removed
ticket-flash-macro = Applied { $name }
ticket-flash-tags-added = Tags added
ticket-flash-tag-removed = Removed tag { $tag }
ticket-flash-link-removed = Link removed
ticket-flash-linked = Linked to { $number }
ticket-flash-merged = Merged { $source } into { $target }
ticket-flash-split = Split off into { $number }
ticket-flash-children = Resolved { $n ->
    [one] 1 child
   *[other] { $n } children
  }
ticket-flash-children-failed = Resolved { $n } children; { $failed } could not be
ticket-flash-following = Following
ticket-flash-unfollowed = No longer following
ticket-flash-follower-removed = Follower removed
ticket-flash-follower-added = { $name } follows the ticket
ticket-status-needs-fields = Fill in { $fields } first.
ticket-flash-fields = Fields saved

# How a ticket sees a link to another.
value-parent_of = Parent of
value-child_of = Child of
value-relates_to = Relates to
value-duplicate_of = Duplicate of
value-duplicated_by = Duplicated by
value-blocks = Blocks
value-blocked_by = Blocked by
