# The ticket's service level badges, on the ticket page and in the ticket list (src/web/pages/ticket/sla_badge.rs).
# A badge reads target, then text: "First response due in 25 min".
sla-target-first-response = First response
sla-target-resolution = Resolution
sla-due-in = due in { $span }
sla-due-soon = due in under a minute
sla-due-now = due now
sla-overdue = overdue by { $span }
# $ago is a history-ago-… time: "breached 2 h ago".
sla-breached = breached { $ago }

# A stretch of time: "5 min", "2 h 05 min" ($rest is sla-span-minutes), "3 days 4 h".
sla-span-minutes = { $n } min
sla-span-hours = { $h } h { $rest }
sla-span-days = { $days ->
        [one] { $days } day
       *[other] { $days } days
    } { $hours } h
