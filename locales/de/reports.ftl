# Die Berichte des Teams (/reports/).
reports-title = Berichte
reports-from = Von
reports-to = Bis
reports-split-by = Aufteilen nach
reports-split-group = Gruppe
reports-split-agent = Zuständig
reports-split-priority = Priorität
reports-split-project = Projekt
reports-by-group = Nach Gruppe
reports-by-agent = Nach Zuständigen
reports-by-priority = Nach Priorität
reports-by-project = Nach Projekt
reports-show = Anzeigen
reports-error-end = Das Ende ist kein Datum (JJJJ-MM-TT).
reports-error-start = Der Anfang ist kein Datum (JJJJ-MM-TT).
reports-error-range = Dieser Zeitraum kann nicht angezeigt werden: { $reason }.
reports-showing-last-30-days = Angezeigt werden die letzten 30 Tage.
reports-empty = In diesem Zeitraum wurde kein Ticket erstellt oder gelöst.
reports-none = Ohne

# Kennzahlen
reports-glance = Auf einen Blick
reports-created = Erstellt
reports-resolved = Gelöst
reports-reopened = Wieder geöffnet
reports-median-first-response = Median der ersten Antwort
reports-median-first-response-business = Median der ersten Antwort in Geschäftszeiten
reports-median-resolution = Median der Lösung
reports-first-response-sla-met = SLA der ersten Antwort eingehalten
reports-resolution-sla-met = SLA der Lösung eingehalten
reports-median-waiting = Median der Wartezeit
reports-median-in-progress = Median der Bearbeitungszeit
reports-first-response-median-p90 = Erste Antwort (Median / 90 %)
reports-resolution-median-p90 = Lösung (Median / 90 %)
reports-waiting-in-progress-median = Wartend / in Bearbeitung (Median)
# Eine Dauer: „45 Min.“, „3,5 Std.“, „2,1 Tg.“ (die Zahl kommt schon mit Dezimalkomma).
reports-minutes = { $n } Min.
reports-hours = { $n } Std.
reports-days = { $n } Tg.
# Die Zahlen eines SLA-Anteils: „85% (17 von 20)“.
reports-met-of = { $met } von { $total }

# Pro Woche
reports-weeks-heading = Erstellt und gelöst pro Woche
reports-weeks-chart-title = Erstellte und gelöste Tickets pro Woche
reports-weeks-chart-desc = Zwei Balken pro Woche: erstellt, dann gelöst. Dieselben Zahlen stehen in der Tabelle darunter.
reports-bar-created = { $n } erstellt
reports-bar-resolved = { $n } gelöst
reports-per-week = Pro Woche
reports-week = Woche

# Offene Tickets
reports-backlog-heading = Offene Tickets nach Alter
reports-backlog-chart-title = Offene Tickets danach, wie lange ihre Erstellung her ist
reports-backlog-chart-desc = Ein Balken pro Altersstufe; die Anzahlen stehen in der Tabelle daneben.
reports-bar-open = { $n } offen
reports-age = Alter
reports-open-tickets = Offene Tickets
reports-age-under-a-day = Unter einem Tag
reports-age-1-3-days = 1–3 Tage
reports-age-3-7-days = 3–7 Tage
reports-age-1-4-weeks = 1–4 Wochen
reports-age-over-4-weeks = Über 4 Wochen

# Was die Zahlen zählen
reports-terms-heading = Was die Zahlen zählen
reports-term-created = Erstellt, erste Antwort, SLA der ersten Antwort
reports-term-created-text = Die im Zeitraum erstellten Tickets. Die erste Antwort ist der erste öffentliche Kommentar eines Teammitglieds; die Zeit zählt ab der Erstellung, in Echtzeit, und in Geschäftszeiten nach dem Kalender der SLA-Richtlinie, die bei der Antwort für das Ticket galt (Tickets ohne Richtlinie haben keinen Wert in Geschäftszeiten). Ein Ziel für die erste Antwort ist eingehalten, wenn die Antwort ohne Verletzung kam, und verfehlt, wenn es verletzt wurde (zu spät oder noch nicht beantwortet); ein laufendes Ziel wird nicht gezählt.
reports-term-resolved = Gelöst, Lösung, SLA der Lösung
reports-term-resolved-text = Die im Zeitraum gelösten oder geschlossenen Tickets, gezählt in der Woche, in der sie gelöst wurden. Ein Duplikat, das in ein anderes Ticket zusammengeführt wurde, wurde nicht gelöst und wird nicht gezählt. Ein Lösungsziel ist eingehalten, wenn das Ticket ohne Verletzung gelöst wurde.
reports-term-reopened-text = Wie oft die im Zeitraum erstellten Tickets wieder aus Gelöst oder Geschlossen herausgenommen wurden.
reports-term-time = Wartezeit, Bearbeitungszeit
reports-term-time-text = Von den im Zeitraum gelösten Tickets: wie lange sie Neu oder Offen waren und wie lange In Bearbeitung, Wartend oder Blockiert, bevor sie gelöst wurden. Erfasst bei jedem Statuswechsel, seit es die Berichte gibt.
reports-term-median = Median und 90 %
reports-term-median-text = Die Hälfte der Zeiten war kürzer als der Median; neun von zehn waren kürzer als der 90-%-Wert.
reports-term-backlog-text = Tickets, die jetzt nicht gelöst oder geschlossen sind, danach, wie lange ihre Erstellung her ist.
# „Tage und Wochen … in UTC. Derselbe Bericht: <ticketReport> in GraphQL, </api/reports/tickets/> als JSON oder CSV.“
reports-footnote-utc = Tage und Wochen (ISO, Montag zuerst) sind in UTC.
reports-footnote-same = Derselbe Bericht:
reports-footnote-in-graphql = in GraphQL,
reports-footnote-as-json = als JSON oder CSV.
