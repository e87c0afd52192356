# Das Formular für ein neues Ticket (/tickets/new/).
new-ticket-title = Neues Ticket
new-ticket-field-title = Titel
new-ticket-description = Beschreibung
new-ticket-priority = Priorität
new-ticket-files = Dateien anhängen (optional, bis zu 10)
new-ticket-drop-hint = Oder ziehen Sie Dateien auf dieses Formular, oder fügen Sie einen Screenshot in die Beschreibung ein.
new-ticket-submit = Ticket erstellen
