//! `timeEntries`: time reports for the team.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use crate::graphql::types::{TimeEntry, TimeReport, TimeTotal};
use crate::service::time_spent::{self, GroupBy, ReportFilter};
use async_graphql::{Context, Enum, InputObject, Object, Result, ID};

/// Queries about time spent.
#[derive(Default)]
pub struct TimeQuery;

/// What a time report looks at; every field narrows.
#[derive(InputObject, Default)]
pub struct TimeEntryFilter {
    /// Spent by this user.
    user_id: Option<ID>,
    /// On tickets assigned to this group.
    group_id: Option<ID>,
    /// On tickets of this project.
    project_id: Option<ID>,
    /// On this ticket.
    ticket_id: Option<ID>,
    /// From this day.
    from: Option<Date>,
    /// Up to this day.
    to: Option<Date>,
    /// Only billable (or only not billable) time.
    billable: Option<bool>,
}

/// How a report adds time up.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeGroupBy {
    /// By who spent it.
    Agent,
    /// By the ticket's assigned group.
    Group,
    /// By the ticket's project.
    Project,
    /// By month.
    Month,
}

#[Object]
impl TimeQuery {
    /// Time spent, filtered, totalled and grouped (the team's: FORBIDDEN otherwise).
    async fn time_entries(
        &self,
        ctx: &Context<'_>,
        filter: Option<TimeEntryFilter>,
        group_by: Option<TimeGroupBy>,
    ) -> Result<TimeReport> {
        let (req, actor) = viewer(ctx)?;
        let f = filter.unwrap_or_default();
        let filter = ReportFilter {
            user_id: ids::decode_opt(f.user_id.as_ref(), "User", "userId")?,
            group_id: ids::decode_opt(f.group_id.as_ref(), "Group", "groupId")?,
            project_id: ids::decode_opt(f.project_id.as_ref(), "Project", "projectId")?,
            ticket_id: ids::decode_opt(f.ticket_id.as_ref(), "Ticket", "ticketId")?,
            from: f.from.map(|d| d.0),
            to: f.to.map(|d| d.0),
            billable: f.billable,
        };
        let by = group_by.map(|g| match g {
            TimeGroupBy::Agent => GroupBy::Agent,
            TimeGroupBy::Group => GroupBy::Group,
            TimeGroupBy::Project => GroupBy::Project,
            TimeGroupBy::Month => GroupBy::Month,
        });
        let db = &req.state.db.conn;
        let report = time_spent::report(db, &actor, &filter, by).await?;
        let names = time_spent::usernames(db, report.entries.iter().map(|e| e.user_id)).await?;
        Ok(TimeReport {
            total_minutes: report.total_minutes,
            billable_minutes: report.billable_minutes,
            groups: report
                .groups
                .into_iter()
                .map(|g| TimeTotal {
                    key: g.key,
                    minutes: g.minutes,
                    billable_minutes: g.billable_minutes,
                })
                .collect(),
            // Lists are priced at their most: the newest of them.
            entries: report
                .entries
                .into_iter()
                .take(usize::try_from(crate::graphql::limits::cost::LIST_MAX).unwrap_or(100))
                .map(|entry| TimeEntry {
                    username: names.get(&entry.user_id).cloned().unwrap_or_default(),
                    entry,
                })
                .collect(),
        })
    }
}
