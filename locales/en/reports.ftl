# The team's reports (/reports/).
reports-title = Reports
reports-from = From
reports-to = To
reports-split-by = Split by
reports-split-group = Group
reports-split-agent = Agent
reports-split-priority = Priority
reports-split-project = Project
reports-by-group = By group
reports-by-agent = By agent
reports-by-priority = By priority
reports-by-project = By project
reports-show = Show
reports-error-end = The end is not a date (YYYY-MM-DD).
reports-error-start = The start is not a date (YYYY-MM-DD).
reports-error-range = That range cannot be shown: { $reason }.
reports-showing-last-30-days = Showing the last 30 days.
reports-empty = No ticket was created or resolved in this period.
reports-none = None

# Figures
reports-glance = At a glance
reports-created = Created
reports-resolved = Resolved
reports-reopened = Reopened
reports-median-first-response = Median first response
reports-median-first-response-business = Median first response in business hours
reports-median-resolution = Median resolution
reports-first-response-sla-met = First-response SLA met
reports-resolution-sla-met = Resolution SLA met
reports-median-waiting = Median time waiting
reports-median-in-progress = Median time in progress
reports-first-response-median-p90 = First response (median / 90%)
reports-resolution-median-p90 = Resolution (median / 90%)
reports-waiting-in-progress-median = Waiting / in progress (median)
# A duration: "45 min", "3.5 h", "2.1 d" (the number comes written as the language writes it).
reports-minutes = { $n } min
reports-hours = { $n } h
reports-days = { $n } d
# An SLA rate's counts: "85% (17 of 20)".
reports-met-of = { $met } of { $total }

# Per week
reports-weeks-heading = Created and resolved per week
reports-weeks-chart-title = Tickets created and resolved per week
reports-weeks-chart-desc = Two bars per week: created, then resolved. The same figures are in the table below.
reports-bar-created = { $n } created
reports-bar-resolved = { $n } resolved
reports-per-week = Per week
reports-week = Week

# Backlog
reports-backlog-heading = Open tickets by age
reports-backlog-chart-title = Open tickets by how long ago they were created
reports-backlog-chart-desc = One bar per age band; the counts are in the table beside.
reports-bar-open = { $n } open
reports-age = Age
reports-open-tickets = Open tickets
reports-age-under-a-day = Under a day
reports-age-1-3-days = 1–3 days
reports-age-3-7-days = 3–7 days
reports-age-1-4-weeks = 1–4 weeks
reports-age-over-4-weeks = Over 4 weeks

# What the figures count
reports-terms-heading = What the figures count
reports-term-created = Created, first response, first-response SLA
reports-term-created-text = The tickets created in the period. A first response is the first public comment of a team member; the time is from creation, in wall-clock time, and in business hours under the calendar of the SLA policy that governed the ticket when it was answered (tickets no policy governed have no business-hours figure). A first-response target is met when it came without a breach and missed when it was breached (answered late, or not yet); a running one is not counted.
reports-term-resolved = Resolved, resolution, resolution SLA
reports-term-resolved-text = The tickets resolved or closed in the period, counted in the week they were resolved. A duplicate merged into another ticket was not resolved and is not counted. A resolution target is met when the ticket was resolved without a breach.
reports-term-reopened-text = How many times the tickets created in the period were moved back out of Resolved or Closed.
reports-term-time = Time waiting, time in progress
reports-term-time-text = Of the tickets resolved in the period: how long they spent New or Open, and In progress, On hold or Blocked, before they were resolved. Kept on each status move since reports came in.
reports-term-median = Median and 90%
reports-term-median-text = Half of the times were shorter than the median; nine in ten were shorter than the 90% figure.
reports-term-backlog-text = Tickets not resolved or closed now, by how long ago they were created.
# "Days and weeks (ISO, Monday first) are in UTC. The same report: <ticketReport> in GraphQL, </api/reports/tickets/>
# as JSON or CSV." — the two names are code, between the parts.
reports-footnote-utc = Days and weeks (ISO, Monday first) are in UTC.
reports-footnote-same = The same report:
reports-footnote-in-graphql = in GraphQL,
reports-footnote-as-json = as JSON or CSV.
