//! What reports need that a ticket's row does not keep, kept in the transaction of the write that changes it:
//! `ticket_metrics.reopens`, one more each time a ticket moves out of a done status.
use crate::domain::{StatusCategory, Workflow};
use crate::error::{AppError, AppResult};
use entity::ticket;
use sea_orm::sea_query::{Alias, Expr, ExprTrait, InsertStatement, OnConflict, Query};

/// The statement counting a status move from `before` to `after`, when it reopens the ticket, for the
/// updating transaction to run with its other writes (`crate::db::run_together`).
pub fn on_status_moved(
    before: &ticket::Model,
    after: &ticket::Model,
) -> AppResult<Option<InsertStatement>> {
    let done = |t: &ticket::Model| t.status.category() == StatusCategory::Done;
    if !done(before) || done(after) {
        return Ok(None);
    }
    let table = Alias::new("ticket_metrics");
    let reopens = Alias::new("reopens");
    let mut insert = Query::insert();
    insert
        .into_table(table.clone())
        .columns([Alias::new("ticket_id"), reopens.clone()])
        .values([after.id.into(), 1.into()])
        .map_err(AppError::internal)?
        .on_conflict(
            OnConflict::column(Alias::new("ticket_id"))
                .value(
                    reopens.clone(),
                    Expr::col((table, reopens.clone()))
                        .add(Expr::col((Alias::new("excluded"), reopens))),
                )
                .to_owned(),
        );
    Ok(Some(insert))
}
