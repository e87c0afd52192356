//! `logTime` and `deleteTimeEntry`.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use crate::graphql::types::{Ticket, TimeEntry};
use crate::service::tickets;
use crate::service::time_spent::{self, NewEntry};
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};

/// Time mutations.
#[derive(Default)]
pub struct TimeMutation;

/// Time to log on a ticket.
#[derive(InputObject)]
pub struct LogTimeInput {
    /// The ticket.
    ticket_id: ID,
    /// 1 to 1440.
    minutes: i32,
    /// The day; today when absent.
    spent_on: Option<Date>,
    /// Default true.
    billable: Option<bool>,
    /// The kind of work; `support` when absent.
    activity: Option<String>,
    /// A comment of the ticket it goes with.
    comment_id: Option<ID>,
}

/// The entry and the ticket.
#[derive(SimpleObject)]
pub struct LogTimePayload {
    /// The entry.
    entry: TimeEntry,
    /// The ticket.
    ticket: Ticket,
}

/// An entry to remove.
#[derive(InputObject)]
pub struct DeleteTimeEntryInput {
    /// The ticket.
    ticket_id: ID,
    /// The entry.
    id: ID,
}

/// The removed entry.
#[derive(SimpleObject)]
pub struct DeleteTimeEntryPayload {
    /// Its id.
    deleted_time_entry_id: ID,
}

#[Object]
impl TimeMutation {
    /// Log time on a ticket (the team, the assignee and the assigned group).
    async fn log_time(&self, ctx: &Context<'_>, input: LogTimeInput) -> Result<LogTimePayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let entry = NewEntry {
            minutes: time_spent::check_minutes(i64::from(input.minutes))?,
            spent_on: input.spent_on.map(|d| d.0),
            billable: input.billable,
            activity: input.activity,
            comment_id: ids::decode_opt(input.comment_id.as_ref(), "Comment", "commentId")?,
        };
        let saved = time_spent::log(&req.state.db, &actor, id, entry).await?;
        let db = &req.state.db.conn;
        let username = time_spent::usernames(db, [saved.user_id])
            .await?
            .remove(&saved.user_id)
            .unwrap_or_default();
        Ok(LogTimePayload {
            entry: TimeEntry {
                entry: saved,
                username,
            },
            ticket: Ticket(tickets::get(db, &actor, id).await?),
        })
    }

    /// Remove a time entry (its author, or an administrator).
    async fn delete_time_entry(
        &self,
        ctx: &Context<'_>,
        input: DeleteTimeEntryInput,
    ) -> Result<DeleteTimeEntryPayload> {
        let (req, actor) = viewer(ctx)?;
        let ticket = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let id = ids::decode(&input.id, "TimeEntry", "id")?;
        time_spent::delete(&req.state.db, &actor, ticket, id).await?;
        Ok(DeleteTimeEntryPayload {
            deleted_time_entry_id: input.id,
        })
    }
}
