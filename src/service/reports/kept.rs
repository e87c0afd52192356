//! What reports need that a ticket's row does not keep, kept in the transaction of the write that changes it
//! (`ticket_metrics`): each status move adds the time since the previous one to the category the ticket
//! leaves, and a move out of a done status counts a reopen; the first response keeps how long it took in
//! business time.
use crate::domain::{StatusCategory, Workflow};
use crate::error::{AppError, AppResult};
use crate::service::sla::calendar::Calendar;
use chrono::{DateTime, Utc};
use entity::ticket;
use sea_orm::sea_query::{Alias, Expr, ExprTrait, InsertStatement, OnConflict, Query};

/// The column that keeps the time spent in `category`.
fn column(category: StatusCategory) -> &'static str {
    match category {
        StatusCategory::Todo => "todo_ms",
        StatusCategory::InProgress => "in_progress_ms",
        StatusCategory::Done => "done_ms",
    }
}

/// The statement counting a status move from `before` to `after` at `now`, for the updating transaction to
/// run with its other writes (`crate::db::run_together`); none when the status did not move.
pub fn on_status_moved(
    before: &ticket::Model,
    after: &ticket::Model,
    now: DateTime<Utc>,
) -> AppResult<Option<InsertStatement>> {
    if before.status == after.status {
        return Ok(None);
    }
    let (left, entered) = (before.status.category(), after.status.category());
    let reopens = i64::from(left == StatusCategory::Done && entered != StatusCategory::Done);
    let since = before.status_changed_at.unwrap_or(before.created_at);
    let spent = Ord::max((now - since).num_milliseconds(), 0);
    let table = Alias::new("ticket_metrics");
    let counted = ["reopens", "todo_ms", "in_progress_ms", "done_ms"];
    let values = counted.map(|c| match c {
        "reopens" => reopens,
        c if c == column(left) => spent,
        _ => 0,
    });
    let mut insert = Query::insert();
    insert
        .into_table(table.clone())
        .columns(std::iter::once("ticket_id").chain(counted).map(Alias::new))
        .values(
            std::iter::once(i64::from(after.id))
                .chain(values)
                .map(Into::into),
        )
        .map_err(AppError::internal)?;
    let mut conflict = OnConflict::column(Alias::new("ticket_id"));
    for c in counted {
        let c = Alias::new(c);
        conflict.value(
            c.clone(),
            Expr::col((table.clone(), c.clone())).add(Expr::col((Alias::new("excluded"), c))),
        );
    }
    insert.on_conflict(conflict.to_owned());
    Ok(Some(insert))
}

/// The statement keeping how long the first response to `t`, at `at`, took in the business time of `calendar`
/// (the calendar of the SLA policy governing the ticket then), for the responding transaction to run.
pub fn on_first_response(
    t: &ticket::Model,
    calendar: &Calendar,
    at: DateTime<Utc>,
) -> AppResult<InsertStatement> {
    let business = calendar.between(t.created_at, at).num_milliseconds();
    let column = Alias::new("first_response_business_ms");
    let mut insert = Query::insert();
    insert
        .into_table(Alias::new("ticket_metrics"))
        .columns([Alias::new("ticket_id"), column.clone()])
        .values([i64::from(t.id).into(), business.into()])
        .map_err(AppError::internal)?
        .on_conflict(
            OnConflict::column(Alias::new("ticket_id"))
                .update_column(column)
                .to_owned(),
        );
    Ok(insert)
}
