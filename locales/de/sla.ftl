# Die SLA-Abzeichen eines Tickets, auf der Ticketseite und in der Ticketliste (src/web/pages/ticket/sla_badge.rs).
# Ein Abzeichen liest sich Ziel, dann Text: „Erste Antwort fällig in 25 Min.“
sla-target-first-response = Erste Antwort
sla-target-resolution = Lösung
sla-due-in = fällig in { $span }
sla-due-soon = fällig in weniger als einer Minute
sla-due-now = jetzt fällig
sla-overdue = seit { $span } überfällig
# $ago ist eine history-ago-…-Zeit: „vor 2 Stunden verpasst“.
sla-breached = { $ago } verpasst

# Eine Zeitspanne: „5 Min.“, „2 Std. 05 Min.“ ($rest ist sla-span-minutes), „3 Tage 4 Std.“
sla-span-minutes = { $n } Min.
sla-span-hours = { $h } Std. { $rest }
sla-span-days = { $days ->
        [one] { $days } Tag
       *[other] { $days } Tage
    } { $hours } Std.
