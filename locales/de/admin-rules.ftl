# Verwaltung: Trigger (und der Regeleditor, den die Zeitregeln teilen), benutzerdefinierte Felder, Chat-Kanäle,
# Postfächer.
rules-administration = Verwaltung
rules-saved = Gespeichert.
rules-on = Ein
rules-off = Aus
rules-state-off = aus
rules-name = Name
rules-none-yet = noch keine
rules-every-ticket = alle Tickets
rules-every-ticket-cap = Alle Tickets
rules-every-project = Alle Projekte
rules-tickets = Tickets
rules-save-named = { $name } speichern
rules-remove = Entfernen
rules-remove-ellipsis = Entfernen…
rules-confirm-remove = Entfernen bestätigen
rules-confirm-remove-named = Entfernen bestätigen: { $name }
rules-col-settings = Einstellungen

# Die Liste der Trigger.
rules-triggers-title = Trigger
rules-triggers-intro = Trigger laufen bei jeder Änderung an einem Ticket, von oben nach unten, jeder einmal. Ein Trigger sieht, was die Trigger über ihm geändert haben; was Trigger ändern, löst sie nie erneut aus.
rules-no-trigger = Noch kein Trigger.
rules-col-order = Reihenfolge
rules-col-name = Name
rules-col-runs-on = Gilt für
rules-col-rule = Regel
rules-col-state = Zustand
rules-run-earlier = { $name } früher ausführen
rules-run-later = { $name } später ausführen
rules-rule-size = { $conditions ->
        [one] { $conditions } Bedingung
       *[other] { $conditions } Bedingungen
    }, { $actions ->
        [one] { $actions } Aktion
       *[other] { $actions } Aktionen
    }
rules-trigger-added = Trigger hinzugefügt. Er läuft bei der nächsten Änderung an einem Ticket.
rules-trigger-removed = Trigger entfernt.
rules-order-changed = Reihenfolge geändert.

# Der Regeleditor (Trigger und Zeitregeln).
rules-new-trigger = Neuer Trigger
rules-new-time-rule = Neue Zeitregel
rules-add-trigger = Trigger hinzufügen
rules-add-time-rule = Zeitregel hinzufügen
rules-remove-trigger = Trigger entfernen
rules-remove-time-rule = Zeitregel entfernen
rules-heading-trigger = Trigger
rules-heading-time-rule = Zeitregel
rules-only-project = Nur Tickets des Projekts (leer: alle Tickets)
rules-known-projects = Projekte: { $projects }.
rules-on-trigger = Ein (läuft bei Änderungen an Tickets)
rules-on-time-rule = Ein (wirkt auf Tickets, sobald ihre Wartezeit verstrichen ist)
rules-after = Nach
rules-wait-help = Die Regel wirkt einmal auf ein Ticket, so lange nach dem Zeitpunkt (bei einem noch offenen SLA-Ziel so lange vor seiner Fälligkeit); erneut erst, wenn sich der Zeitpunkt verschiebt. Geschäftszeiten sind die der SLA-Richtlinie des Tickets (jede Stunde, wenn es keine hat). Geschlossene Tickets bleiben unberührt.
rules-hours = Stunden
rules-since = Zeitpunkt
rules-since-status-changed = der letzten Statusänderung
rules-since-updated = der letzten Aktualisierung
rules-since-created = der Eröffnung
rules-since-resolved = der Lösung
rules-before-first-response-due = vor Fälligkeit der ersten Antwort (SLA)
rules-before-resolution-due = vor Fälligkeit der Lösung (SLA)
rules-business-hours-only = Nur Geschäftszeiten zählen
rules-when = Wenn
rules-conditions-help = Jede Zeile „alle“ muss zutreffen, dazu eine Zeile „mindestens eine“, sofern es solche gibt. Nennen Sie Personen beim Benutzernamen, Gruppen und Projekte beim Namen; „none“ steht für leer; „ist eines von“ nimmt eine durch Kommas getrennte Liste; „yes“ oder „no“ für einen internen Kommentar. Gruppen: { $groups }.
rules-col-rows = Zeilen
rules-col-field = Feld
rules-col-operator = Operator
rules-col-value = Wert
rules-col-action = Aktion
rules-condition-list = Bedingung { $n }: alle oder mindestens eine
rules-condition-field = Bedingung { $n }: Feld
rules-condition-operator = Bedingung { $n }: Operator
rules-condition-value = Bedingung { $n }: Wert
rules-list-all = alle
rules-list-any = mindestens eine
rules-no-condition = (keine Bedingung)
rules-then = Dann
rules-actions-help = Der Reihe nach. Eine Antwort oder Notiz ist reiner Text; sie kann { $fields } und { $last } verwenden.
rules-action-row = Aktion { $n }
rules-action-row-value = Aktion { $n }: Wert
rules-no-action = (keine Aktion)
rules-save = Speichern
rules-dry-run = Tickets zählen, auf die sie jetzt wirken würde

# Das Feld einer Bedingung.
rules-cond-event = Ereignis
rules-cond-channel = Kanal
rules-cond-actor-role = Geändert von: Rolle
rules-cond-actor-group = Geändert von: Mitglied der Gruppe
rules-cond-comment-internal = Kommentar ist intern
rules-cond-business-hours = Innerhalb der Geschäftszeiten (yes oder no)
rules-cond-title = Titel
rules-cond-description = Beschreibung
rules-cond-status = Status
rules-cond-priority = Priorität
rules-cond-project = Projekt
rules-cond-assignee = Zuständig
rules-cond-assigned-group = Zuständige Gruppe
rules-cond-requester = Anfragende(r)
rules-cond-due-date = Fälligkeitsdatum
rules-cond-tags = Tags (enthält, ist nicht, ist eines von)
rules-cond-custom-field = Feld „{ $label }“ ({ $key })

# Der Operator einer Bedingung.
rules-op-is = ist
rules-op-is-not = ist nicht
rules-op-one-of = ist eines von
rules-op-contains = enthält
rules-op-starts-with = beginnt mit
rules-op-greater-than = ist größer als / nach
rules-op-less-than = ist kleiner als / vor
rules-op-changed = hat sich geändert
rules-op-changed-from = hat sich geändert von
rules-op-changed-to = hat sich geändert auf

# Was eine Aktion tut.
rules-action-status = Status setzen
rules-action-priority = Priorität setzen
rules-action-assigned-to = Zuweisen an (Benutzername)
rules-action-assigned-group = Einer Gruppe zuweisen
rules-action-project = In Projekt verschieben
rules-action-due-date = Fälligkeitsdatum setzen (Datum oder Tage ab heute)
rules-action-comment = Öffentliche Antwort hinzufügen
rules-action-note = Interne Notiz hinzufügen
rules-action-add-tags = Tags hinzufügen (durch Kommas getrennt)
rules-action-remove-tags = Tags entfernen (durch Kommas getrennt)
rules-action-assign-least-loaded = Dem am wenigsten ausgelasteten Mitglied zuweisen (Gruppe; leer: die des Tickets)
rules-action-assign-round-robin = Reihum den Mitgliedern zuweisen (Gruppe; leer: die des Tickets)
rules-action-notify-requester = E-Mail an Anfragende(n) (Betreff, dann der Text)
rules-action-notify-assignee = E-Mail an die zuständige Person (Betreff, dann der Text)
rules-action-notify-assigned-group = E-Mail an die zuständige Gruppe (Betreff, dann der Text)
rules-action-notify-group = E-Mail an eine Gruppe (ihr Name, der Betreff, dann der Text)
rules-action-notify-user = E-Mail an eine Person (Benutzername, der Betreff, dann der Text)
rules-action-notify-chat = In einem Chat-Kanal posten (sein Name, der Betreff, dann der Text)
rules-action-notify-webhook = Einen Webhook-Endpunkt aufrufen (seine URL, der Betreff, dann der Text)
rules-action-set-field = Feld „{ $label }“ setzen ({ $key }; „none“ leert es)

# Benutzerdefinierte Felder.
rules-fields-title = Benutzerdefinierte Felder
rules-fields-intro = Ein Ticket trägt höchstens { $max } Felder: die aller Tickets und die seines Projekts zusammen. Das Archivieren eines Felds blendet es aus und behält seine Werte.
rules-no-fields = Noch keine benutzerdefinierten Felder.
rules-fields-caption = Benutzerdefinierte Felder, in Reihenfolge
rules-col-key = Schlüssel
rules-col-kind = Typ
rules-col-project = Projekt
rules-col-definition = Definition
rules-archive = Archivieren
rules-archive-ellipsis = Archivieren…
rules-archive-named = { $name } archivieren
rules-restore = Wiederherstellen
rules-restore-named = { $name } wiederherstellen
rules-archived = (archiviert)
rules-field-named-by = Regeln, die es nennen:
rules-field-named-archived = Regeln, die es nennen, lesen es als leer, solange es archiviert ist:
rules-field-named-warning = Regeln nennen dieses Feld; archiviert lesen sie es als leer und setzen es nicht.
rules-named-trigger = Trigger „{ $name }“
rules-named-time_rule = Zeitregel „{ $name }“
rules-named-macro = Makro „{ $name }“
rules-field-label = Bezeichnung
rules-field-choices = Auswahlwerte (durch Kommas getrennt)
rules-field-choices-new = Auswahlwerte, für ein Auswahlfeld (durch Kommas getrennt)
rules-field-required = Pflichtfeld
rules-required-never = Nie
rules-required-always = Immer
rules-required-once-started = Sobald die Bearbeitung beginnt
rules-required-to-resolve = Zum Lösen
rules-field-position = Position
rules-field-team-only = Nur für das Team
rules-new-field = Neues Feld
rules-field-key = Schlüssel (Kleinbuchstaben, Ziffern und _)
rules-add-field = Feld hinzufügen
rules-field-added = Feld hinzugefügt.

# Chat-Kanäle.
rules-chat-title = Chat
rules-chat-heading = Slack- und Teams-Kanäle
rules-chat-intro = Jeder Kanal erfährt von den Tickets, die er annimmt. Interne Notizen gehen nur an einen Kanal, der als eigener Kanal des Teams markiert ist.
rules-no-channel = Noch kein Kanal.
rules-chat-caption = Chat-Ziele
rules-col-channel = Kanal
rules-chat-posts-as-bot = Bot
rules-chat-posts-as-webhook = Eingehender Webhook
rules-chat-new-token = Neues Bot-Token (leer: gespeichertes behalten)
rules-chat-new-url = Neue Webhook-URL (leer: gespeicherte behalten)
rules-chat-events = Ereignisse (keines angehakt: alle)
rules-chat-priorities = Prioritäten (keine angehakt: alle)
rules-chat-team-only = Eigener Kanal des Teams: Interne Notizen gehen auch dorthin
rules-chat-remove-confirm = { $name } entfernen? Noch nicht gepostete Nachrichten werden verworfen.
rules-new-channel = Neuer Kanal
rules-chat-service = Dienst
rules-chat-url = Eingehende Webhook-URL (Teams oder Slack ohne Bot)
rules-chat-bot-note = Oder, für einen Slack-Bot, der jedes Ticket in einem Thread hält, stattdessen sein Token und sein Kanal:
rules-chat-token = Slack-Bot-Token
rules-chat-channel = Slack-Kanal
rules-add-channel = Kanal hinzufügen
rules-chat-added = Ziel hinzugefügt. Seine URL oder sein Token wird nicht erneut angezeigt.
rules-chat-removed = Ziel entfernt.
rules-chat-last-none = Noch keine Nachricht.
rules-chat-last-delivered = Letzte Nachricht ({ $event }) zugestellt am { $when }.
rules-chat-last-waiting = Letzte Nachricht ({ $event }) wartet auf den Versand.
rules-chat-last-retrying = Letzte Nachricht ({ $event }) nach { $attempts } Versuchen nicht zugestellt: { $error }. Nächster Versuch: { $when }.
rules-chat-last-failed = Letzte Nachricht ({ $event }) nach { $attempts } Versuchen aufgegeben: { $error }.
rules-chat-last-try-answered = Letzter Versuch { $when }: Antwort { $status } nach { $ms } ms.
rules-chat-last-try-refused = Letzter Versuch { $when }: Antwort { $status } nach { $ms } ms: { $error }.
rules-chat-last-try-unanswered = Letzter Versuch { $when }: keine Antwort nach { $ms } ms: { $error }.

# Postfächer.
rules-mail-title = E-Mail
rules-mail-heading = Postfächer
rules-mail-intro = E-Mails in jedem Postfach werden zu Tickets, und Antworten werden zu Kommentaren an den Tickets, auf die sie antworten. Eine Nachricht wird erst abgelegt, wenn ihr Ticket oder Kommentar gespeichert ist; eine, die nicht übernommen werden kann, kommt in den Fehlerordner.
rules-no-mailbox = Noch kein Postfach.
rules-col-mailbox = Postfach
rules-mail-failing = Nicht lesbar: { $why }
rules-mail-read-at = Gelesen am { $at }
rules-mail-not-read = Noch nicht gelesen
rules-mail-address = Adresse
rules-mail-new-secret = Neues Passwort oder Token (leer: gespeichertes behalten)
rules-mail-done-folder = Übernommene E-Mails verschieben nach (leer: als gelesen markieren)
rules-mail-failed-folder = Nicht übernehmbare E-Mails verschieben nach
rules-mail-project = Neue Tickets werden eröffnet in
rules-mail-default-project = Das Standardprojekt
rules-mail-server-heading = Von einem Mailserver
rules-mail-server-open = Ein Mailserver kann jede Nachricht auch an diesen Dienst übergeben, indem er sie an den folgenden Befehl weiterleitet, mit DESKGRAPH_MAIL_IN_SECRET gleich dem des Dienstes. Er braucht keinen Zugriff auf die Datenbank.
rules-mail-server-closed = Ein Mailserver kann jede Nachricht auch an den folgenden Befehl weiterleiten, auf einem Rechner mit der Konfiguration des Dienstes und Zugriff auf seine Datenbank. Damit er Nachrichten stattdessen über HTTP übergibt (deskgraph mail-in --url), setzen Sie DESKGRAPH_MAIL_IN_SECRET im Dienst.
rules-mail-server-this-address = <Adresse dieses Dienstes>
rules-mail-remove-confirm = { $name } entfernen? Seine E-Mails bleiben auf dem Server; es wird nichts mehr davon abgerufen.
rules-new-mailbox = Neues Postfach
# Die Hilfe zur Adresse läuft um Codebeispiele herum: <code>imaps://</code> [tls] <code>imap://</code> [starttls]
# <code>user;AUTH=XOAUTH2@host</code> [oauth] <code>@</code> [at] <code>%40</code>[end]
rules-mail-help-tls = für TLS (Port 993),
rules-mail-help-starttls = für STARTTLS (Port 143); der Ordner folgt auf den Host (INBOX, wenn keiner angegeben ist). Mit
rules-mail-help-oauth = melden Sie sich mit einem OAuth2-Token an (Microsoft 365, Gmail). Für ein
rules-mail-help-at = im Benutzernamen schreiben Sie
rules-mail-help-end = .
rules-mail-secret = Passwort oder OAuth2-Token
rules-add-mailbox = Postfach hinzufügen
rules-mail-added = Postfach hinzugefügt: Es wird innerhalb einer Minute gelesen. Sein Geheimnis wird nicht erneut angezeigt.
rules-mail-removed = Postfach entfernt; seine E-Mails bleiben auf dem Server.
rules-mail-projects-heading = E-Mail nach Projekt
rules-mail-projects-intro = Wie E-Mails an jedes Projekt angenommen werden: die Antwort eines Anfragenden auf ein gelöstes Ticket und E-Mails von Personen ohne Konto. Eine Antwort auf ein geschlossenes Ticket eröffnet immer ein neues, damit verknüpftes Ticket.
rules-mail-col-project = Projekt
rules-mail-resolved-reply = Antwort eines Anfragenden auf ein gelöstes Ticket
rules-mail-resolved-reopen = Öffnet es wieder
rules-mail-resolved-follow_up = Eröffnet ein damit verknüpftes Folgeticket
rules-mail-strangers = E-Mail von jemandem ohne Konto
rules-mail-strangers-service = Wie der Dienst eingestellt ist: { $setting }
rules-mail-strangers-create = Angenommen: Ein Konto wird angelegt
rules-mail-strangers-known_domains = Nur von den unten genannten Domains angenommen
rules-mail-strangers-refuse = Abgelehnt
rules-mail-domains = Angenommene Domains (eine pro Zeile, Subdomains eingeschlossen)

# Gespeicherte Werte in Worten: Typen benutzerdefinierter Felder, Chat-Dienste.
value-text = Text
value-long_text = Langer Text
value-number = Zahl
value-date = Datum
value-datetime = Datum und Uhrzeit
value-boolean = Ja/Nein
value-choice = Auswahl
value-multi_choice = Mehrfachauswahl
value-user = Benutzer
value-asset = Asset
value-slack = Slack
value-teams = Teams
