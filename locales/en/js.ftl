# The pages' script (static/app.js), carried on every page's <body> as data-msg-… attributes (base.html).
# %s stands for a value the script puts in (a status code, a ticket number, a count).
js-server-answered = The server answered %s
js-just-now = just now
js-comment-saved = Comment saved.
js-comment-deleted = Comment deleted.
js-before-edit = Before your edit just now:
js-file-attached = 1 file attached.
js-files-attached = %s files attached.
js-the-ticket = the ticket
js-reload = Reload
js-tickets-changed = Tickets changed.
js-queue-updated = The queue was updated.
js-assigned = Assigned %s to you.
js-assign-failed = Could not assign %s to you.
js-signed-out = You were signed out; the queue no longer updates.
js-no-updates = The queue no longer updates.
