//! Reading the audit trail: a ticket's history for those who can see the ticket, and the full log
//! for administrators.
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::service::comments::can_read_internal;
use crate::service::tickets;
use entity::{audit_event, comment, ticket};
use sea_orm::sea_query::Query;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Select,
};

/// Narrows the administrators' audit log; every field given must match.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    /// `ticket`, `comment`, `project`, …
    pub entity_type: Option<String>,
    /// Id of the entity.
    pub entity_id: Option<i32>,
    /// Who made the change.
    pub actor_id: Option<i32>,
    /// `create`, `update`, `archive`, …
    pub action: Option<String>,
}

/// Entries of `t`'s history the actor may read. Entries about internal comments are hidden from
/// those who may not read them: entries flagged internal when written, and every entry about a
/// comment that is internal now (its earlier, public entries may hold the text it was hidden for).
fn history_of(actor: &Actor, t: &ticket::Model) -> Select<audit_event::Entity> {
    let select = audit_event::Entity::find().filter(audit_event::Column::TicketId.eq(t.id));
    if can_read_internal(actor, t) {
        return select;
    }
    let internal_comments = Query::select()
        .column(comment::Column::Id)
        .from(comment::Entity)
        .and_where(comment::Column::TicketId.eq(t.id))
        .and_where(comment::Column::CommentType.eq(CommentType::Internal.as_str()))
        .to_owned();
    select
        .filter(audit_event::Column::IsInternal.eq(false))
        .filter(
            Condition::any()
                .add(audit_event::Column::EntityType.ne("comment"))
                .add(audit_event::Column::EntityId.not_in_subquery(internal_comments)),
        )
}

/// A page of the history of `t`, oldest first. The caller has already checked the actor can see
/// the ticket (a ticket object exists only for those who can).
pub async fn ticket_history(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
    offset: u64,
    limit: u64,
) -> AppResult<Vec<audit_event::Model>> {
    Ok(history_of(actor, t)
        .order_by_asc(audit_event::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await?)
}

/// How many history entries of `t` the actor may read.
pub async fn ticket_history_count(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
) -> AppResult<u64> {
    Ok(history_of(actor, t).count(db).await?)
}

fn admin_log(actor: &Actor, filter: &AuditFilter) -> AppResult<Select<audit_event::Entity>> {
    if !actor.is_admin() {
        return Err(AppError::forbidden(
            "only administrators may read the audit log",
        ));
    }
    let mut select = audit_event::Entity::find();
    if let Some(kind) = &filter.entity_type {
        select = select.filter(audit_event::Column::EntityType.eq(kind.as_str()));
    }
    if let Some(id) = filter.entity_id {
        select = select.filter(audit_event::Column::EntityId.eq(id));
    }
    if let Some(id) = filter.actor_id {
        select = select.filter(audit_event::Column::ActorId.eq(id));
    }
    if let Some(action) = &filter.action {
        select = select.filter(audit_event::Column::Action.eq(action.as_str()));
    }
    Ok(select)
}

/// A page of the whole audit log, newest first (administrators only, FORBIDDEN otherwise).
pub async fn list(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: &AuditFilter,
    offset: u64,
    limit: u64,
) -> AppResult<Vec<audit_event::Model>> {
    Ok(admin_log(actor, filter)?
        .order_by_desc(audit_event::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await?)
}

/// How many entries of the audit log match (administrators only).
pub async fn count(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: &AuditFilter,
) -> AppResult<u64> {
    Ok(admin_log(actor, filter)?.count(db).await?)
}

/// One entry by id: administrators read any; others only entries of the history of a ticket they
/// can see, under the same rule as [`ticket_history`]. NOT_FOUND otherwise.
pub async fn get_visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    id: i64,
) -> AppResult<audit_event::Model> {
    let not_found = || AppError::not_found("audit event");
    if actor.is_admin() {
        return audit_event::Entity::find_by_id(id)
            .one(db)
            .await?
            .ok_or_else(not_found);
    }
    let entry = audit_event::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or_else(not_found)?;
    let ticket_id = entry.ticket_id.ok_or_else(not_found)?;
    let t = tickets::get(db, actor, ticket_id)
        .await
        .map_err(|err| match err {
            AppError::NotFound(_) => not_found(),
            other => other,
        })?;
    history_of(actor, &t)
        .filter(audit_event::Column::Id.eq(id))
        .one(db)
        .await?
        .ok_or_else(not_found)
}
