# The ticket page's History, in words (src/web/pages/ticket/history.rs).

# When, relative to now.
history-ago-now = just now
history-ago-minutes = { $n } min ago
history-ago-hours = { $n } h ago
history-ago-yesterday = yesterday
history-ago-days = { $n } days ago

# Who did it: the subject every deed below follows ("Alice" + " " + "opened this ticket").
history-by = { $name }
history-by-you = You
history-by-someone = someone
history-by-service = The service
history-by-rule = The rule “{ $rule }”

# Names no longer known: a person (as the object of the assignment sentences), a group, project or asset.
history-someone = someone
history-unlisted = one no longer listed

# What was done, after who did it.
history-opened = opened this ticket
history-resolved = resolved this
history-closed = closed this
history-reopened = reopened this as { $status }
history-status = moved this from { $from } to { $to }
history-priority-raised = raised the priority from { $from } to { $to }
history-priority-lowered = lowered the priority from { $from } to { $to }
history-assigned = assigned this to { $name }
history-unassigned = unassigned { $name }
history-group-assigned = assigned this to the group { $name }
history-group-removed = took this from the group { $name }
history-project-moved = moved this to the project { $name }
history-project-removed = took this out of the project { $name }
history-renamed = renamed this to “{ $title }”
history-description = edited the description
history-due-set = set the due date to { $date }
history-due-removed = removed the due date
history-archived = archived this
history-restored = restored this
history-asset-linked = linked the asset { $name }
history-asset-unlinked = unlinked the asset { $name }
history-note-added = added an internal note
history-comment-added = commented
history-note-edited = edited an internal note
history-comment-edited = edited a comment
history-note-deleted = deleted an internal note
history-comment-deleted = deleted a comment
history-file-added = attached { $name }
history-file-removed = removed the file { $name }
# $value is history-field-value: the value in quotes.
history-field-set = set { $key } to { $value }
history-field-value = “{ $value }”
history-field-cleared = cleared { $key }
history-tags-added = tagged this { $added }
history-tags-removed = removed the tags { $removed }
history-tags-changed = tagged this { $added } and removed { $removed }
# $how is one of the history-link-… below.
history-linked = linked this ({ $how }) to another ticket
history-unlinked = removed a link ({ $how }) to another ticket
history-link-parent-of = parent of
history-link-child-of = child of
history-link-relates-to = relates to
history-link-duplicate-of = duplicate of
history-link-duplicated-by = duplicated by
history-link-blocks = blocks
history-link-blocked-by = blocked by
# $time is a duration (duration-hours-minutes in common.ftl).
history-time-logged = logged { $time }
history-time-removed = removed { $time } of logged time
history-follower-added = added { $name } to the followers
history-follower-removed = removed a follower
history-merged-into = merged this ticket into { $number }
history-merged-from = merged { $number } into this ticket
history-split-to = split comments off into { $number }
history-split-from = split this off { $number }
history-changed = changed this

# The service level clock's own entries (whole sentences, no doer).
history-sla-at-risk-first-response = The first response target is close
history-sla-at-risk-resolution = The resolution target is close
history-sla-missed-first-response = First response target missed
history-sla-missed-resolution = Resolution target missed
