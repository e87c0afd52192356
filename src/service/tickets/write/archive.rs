//! Archiving (soft-deleting) and restoring tickets; team members only.
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::events;
use crate::service::tickets::{self, counters, rules};
use crate::service::WriteDeps;
use chrono::Utc;
use entity::ticket;
use sea_orm::{ActiveModelTrait, Set};
use serde_json::json;

/// Archive (soft delete) a ticket; team members only.
pub async fn archive(state: WriteDeps<'_>, actor: &Actor, id: i32) -> AppResult<ticket::Model> {
    let current = tickets::get(&state.db.conn, actor, id).await?;
    if !rules::can_archive(actor) {
        return Err(AppError::forbidden("only team members may delete tickets"));
    }
    let now = Utc::now();
    let txn = state.db.begin_write().await?;
    // A concurrent archive of the same ticket finds it archived and counts nothing twice.
    let current = super::relock(&txn, current.id, super::Lock::Write, false).await?;
    counters::on_archived(&txn, &current).await?;
    let mut active: ticket::ActiveModel = current.into();
    active.archived_at = Set(Some(now));
    active.archived_by_id = Set(Some(actor.id()));
    active.updated_at = Set(now);
    let saved = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", id, "archive")
            .ticket(id)
            .changes(json!({"archived": [false, true]})),
    )
    .await?;
    events::ticket_deleted(&txn, state.config, &saved).await?;
    txn.commit().await?;
    Ok(saved)
}

/// Restore an archived ticket; team members only.
pub async fn restore(state: WriteDeps<'_>, actor: &Actor, id: i32) -> AppResult<ticket::Model> {
    if !rules::can_archive(actor) {
        return match tickets::get(&state.db.conn, actor, id).await {
            Ok(_) => Err(AppError::forbidden("only team members may restore tickets")),
            Err(e) => Err(e),
        };
    }
    let current = tickets::get_including_archived(&state.db.conn, actor, id).await?;
    if current.archived_at.is_none() {
        return Ok(current);
    }
    let txn = state.db.begin_write().await?;
    // A concurrent restore of the same ticket finds it live and counts nothing twice.
    let current = super::relock(&txn, id, super::Lock::Write, true).await?;
    if current.archived_at.is_none() {
        txn.commit().await?;
        return Ok(current);
    }
    counters::on_restored(&txn, &current).await?;
    let mut active: ticket::ActiveModel = current.into();
    active.archived_at = Set(None);
    active.archived_by_id = Set(None);
    active.updated_at = Set(Utc::now());
    let saved = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", id, "restore")
            .ticket(id)
            .changes(json!({"archived": [true, false]})),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}
