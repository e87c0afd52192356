//! Reading the audit trail: a ticket's history for those who can see the ticket, and the full log
//! for administrators.
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::service::assets::{self, links};
use crate::service::comments::can_read_internal;
use crate::service::text;
use crate::service::tickets::{self, rules};
use entity::{asset, audit_event, comment, ticket};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbBackend, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Select,
};

/// The actions of service-level records, which only the team reads in a ticket's history.
const SLA_ACTIONS: [&str; 2] = ["sla_at_risk", "sla_breached"];

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

/// Entries of `t`'s history the actor may read (NOT_FOUND when they cannot see `t`).
///
/// Entries about internal comments are hidden from those who may not read them: entries flagged
/// internal when written, and every entry about a comment that is internal now (its earlier, public
/// entries may hold the text it was hidden for). Entries linking or unlinking an asset are shown only
/// to those who may see that asset, and service-level entries (at risk, breached) only to the team.
fn history_of(
    actor: &Actor,
    t: &ticket::Model,
    backend: DbBackend,
) -> AppResult<Select<audit_event::Entity>> {
    if t.archived_at.is_some() || !rules::can_see(actor, t) {
        return Err(AppError::not_found("ticket"));
    }
    let mut select = audit_event::Entity::find().filter(audit_event::Column::TicketId.eq(t.id));
    if !actor.is_team() {
        // Service level internals (targets at risk or missed) are the team's.
        select = select.filter(audit_event::Column::Action.is_not_in(SLA_ACTIONS));
        let visible_assets = Query::select()
            .column(asset::Column::Id)
            .from(asset::Entity)
            .cond_where(assets::visible_to(actor))
            .to_owned();
        select = select.filter(
            Condition::any()
                .add(audit_event::Column::Action.is_not_in(links::ACTIONS))
                .add(linked_asset(backend).in_subquery(visible_assets)),
        );
    }
    if can_read_internal(actor, t) {
        return Ok(select);
    }
    let internal_comments = Query::select()
        .column(comment::Column::Id)
        .from(comment::Entity)
        .and_where(comment::Column::TicketId.eq(t.id))
        .and_where(comment::Column::CommentType.eq(CommentType::Internal.as_str()))
        .to_owned();
    Ok(select
        .filter(audit_event::Column::IsInternal.eq(false))
        .filter(
            Condition::any()
                .add(audit_event::Column::EntityType.ne("comment"))
                .add(audit_event::Column::EntityId.not_in_subquery(internal_comments)),
        ))
}

/// The asset id an asset-link entry's changes name (`{"asset_id": [old, new]}`, one side null); null
/// when it names none, so such an entry matches no asset.
fn linked_asset(backend: DbBackend) -> Expr {
    let changes = r#""audit_events"."changes""#;
    Expr::cust(match backend {
        DbBackend::Postgres => format!(
            "COALESCE(({changes} -> 'asset_id' ->> 1)::integer, ({changes} -> 'asset_id' ->> 0)::integer)"
        ),
        _ => format!(
            "COALESCE(json_extract({changes}, '$.asset_id[1]'), json_extract({changes}, '$.asset_id[0]'))"
        ),
    })
}

/// A page of the history of `t` as the actor may read it, oldest first (NOT_FOUND when they cannot
/// see `t`).
pub async fn ticket_history(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
    offset: u64,
    limit: u64,
) -> AppResult<Vec<audit_event::Model>> {
    Ok(history_of(actor, t, db.get_database_backend())?
        .order_by_asc(audit_event::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await?
        .into_iter()
        .map(|e| seen_by(actor, e))
        .collect())
}

/// A history entry as `actor` may read it: the name of the rule that made a change is for the team (rule
/// names are the administrators' words); others see that a rule made it, by id.
fn seen_by(actor: &Actor, mut entry: audit_event::Model) -> audit_event::Model {
    if !actor.is_team() {
        if let Some(via) = entry.changes.get_mut("via").and_then(|v| v.as_object_mut()) {
            via.remove("name");
        }
    }
    entry
}

/// How many history entries of `t` the actor may read.
pub async fn ticket_history_count(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
) -> AppResult<u64> {
    Ok(history_of(actor, t, db.get_database_backend())?
        .count(db)
        .await?)
}

fn admin_log(actor: &Actor, filter: &AuditFilter) -> AppResult<Select<audit_event::Entity>> {
    if !actor.is_admin() {
        return Err(AppError::forbidden(
            "only administrators may read the audit log",
        ));
    }
    text::single_line("entityType", filter.entity_type.as_deref().unwrap_or(""))?;
    text::single_line("action", filter.action.as_deref().unwrap_or(""))?;
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
    history_of(actor, &t, db.get_database_backend())?
        .filter(audit_event::Column::Id.eq(id))
        .one(db)
        .await?
        .map(|e| seen_by(actor, e))
        .ok_or_else(not_found)
}
