# Das Skript der Seiten (static/app.js), auf dem <body> jeder Seite als data-msg-…-Attribute (base.html).
# %s steht für einen Wert, den das Skript einsetzt (einen Statuscode, eine Ticketnummer, eine Anzahl).
js-server-answered = Der Server antwortete mit %s
js-just-now = gerade eben
js-comment-saved = Kommentar gespeichert.
js-comment-deleted = Kommentar gelöscht.
js-before-edit = Vor Ihrer Bearbeitung gerade eben:
js-file-attached = 1 Datei angehängt.
js-files-attached = %s Dateien angehängt.
js-the-ticket = das Ticket
js-reload = Neu laden
js-tickets-changed = Tickets haben sich geändert.
js-queue-updated = Die Ticketliste wurde aktualisiert.
js-assigned = %s wurde Ihnen zugewiesen.
js-assign-failed = %s konnte Ihnen nicht zugewiesen werden.
js-signed-out = Sie wurden abgemeldet; die Ticketliste wird nicht mehr aktualisiert.
js-no-updates = Die Ticketliste wird nicht mehr aktualisiert.
