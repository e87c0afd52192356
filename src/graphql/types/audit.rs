//! `AuditEvent` and its connection, for `Ticket.history` and the administrators' `auditEvents`.
use super::User;
use crate::auth::Actor;
use crate::error::AppError;
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo, Window};
use crate::graphql::context::{request, viewer};
use crate::service::audit::{self, AuditFilter};
use async_graphql::{Context, Json, Object, Result, SimpleObject, ID};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::{DateTime, Utc};
use entity::{audit_event, ticket};
use std::sync::Arc;

/// One change in the audit trail. Only ever built for a viewer who may read it.
pub struct AuditEvent(pub audit_event::Model);

/// The global id of audit entry `id` (audit ids are 64-bit, unlike the other records).
pub fn audit_id(id: i64) -> ID {
    ID(STANDARD.encode(format!("AuditEvent:{id}")))
}

/// The database id inside an `AuditEvent` global id.
pub fn parse_audit_id(id: &str) -> Option<i64> {
    let bytes = STANDARD.decode(id.trim()).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.strip_prefix("AuditEvent:")?.parse().ok()
}

/// One change in the audit trail, as the viewer may read it.
#[Object]
impl AuditEvent {
    /// Global id.
    pub async fn id(&self) -> ID {
        audit_id(self.0.id)
    }

    /// Who made the change (null for the system or a removed account).
    async fn actor(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        let Some(id) = self.0.actor_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        Ok(req.user(id).await?.map(User))
    }

    /// `create`, `update`, `status_change`, `archive`, `restore`, `delete`, …
    async fn action(&self) -> &str {
        &self.0.action
    }

    /// `ticket`, `comment`, `project`, `asset`, `api_token`, …
    async fn entity_type(&self) -> &str {
        &self.0.entity_type
    }

    /// Database id of the changed record.
    async fn entity_id(&self) -> i32 {
        self.0.entity_id
    }

    /// `{field: [old, new]}`.
    async fn changes(&self) -> Json<serde_json::Value> {
        Json(self.0.changes.clone())
    }

    /// When it happened.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }
}

/// An edge of an audit list.
#[derive(SimpleObject)]
pub struct AuditEventEdge {
    /// Opaque cursor.
    cursor: String,
    /// The entry.
    node: AuditEvent,
}

/// Which list a connection pages through.
enum Scope {
    /// The history of a ticket, as the actor may read it.
    Ticket(Arc<Actor>, ticket::Model),
    /// The whole log, filtered (administrators).
    Log(Arc<Actor>, AuditFilter),
}

/// A page of audit entries; `totalCount` costs a count query and runs only when selected.
pub struct AuditEventConnection {
    rows: Vec<audit_event::Model>,
    offset: u64,
    page_info: PageInfo,
    scope: Scope,
}

/// A page of audit entries; `totalCount` costs a count query and runs only when selected.
#[Object]
impl AuditEventConnection {
    /// Edges with cursors.
    async fn edges(&self) -> Vec<AuditEventEdge> {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, e)| AuditEventEdge {
                cursor: cursor(self.offset + i as u64),
                node: AuditEvent(e.clone()),
            })
            .collect()
    }

    /// The entries of this page.
    async fn nodes(&self) -> Vec<AuditEvent> {
        self.rows.iter().cloned().map(AuditEvent).collect()
    }

    /// Paging state.
    async fn page_info(&self) -> &PageInfo {
        &self.page_info
    }

    /// Entries over all pages.
    async fn total_count(&self, ctx: &Context<'_>) -> Result<i64> {
        let db = &request(ctx)?.state.db.conn;
        let total = match &self.scope {
            Scope::Ticket(actor, t) => audit::ticket_history_count(db, actor, t).await?,
            Scope::Log(actor, filter) => audit::count(db, actor, filter).await?,
        };
        Ok(total as i64)
    }
}

async fn page(
    ctx: &Context<'_>,
    scope: Scope,
    first: Option<i32>,
    after: Option<String>,
) -> Result<AuditEventConnection> {
    let req = request(ctx)?;
    let window = PageArgs {
        first,
        after,
        ..Default::default()
    }
    .window()?;
    let Window::Forward { .. } = window else {
        return Err(AppError::bad_request("audit events are paged forward only").into());
    };
    let page = slice(window, None);
    let db = &req.state.db.conn;
    let mut rows = match &scope {
        Scope::Ticket(actor, t) => {
            audit::ticket_history(db, actor, t, page.offset, page.limit + 1).await?
        }
        Scope::Log(actor, filter) => {
            audit::list(db, actor, filter, page.offset, page.limit + 1).await?
        }
    };
    let more = rows.len() as u64 > page.limit;
    rows.truncate(page.limit as usize);
    Ok(AuditEventConnection {
        page_info: page_info(page, rows.len(), more),
        offset: page.offset,
        rows,
        scope,
    })
}

/// `Ticket.history`: the ticket's audit entries the viewer may read, oldest first.
pub async fn ticket_history(
    ctx: &Context<'_>,
    t: &ticket::Model,
    first: Option<i32>,
    after: Option<String>,
) -> Result<AuditEventConnection> {
    let (_, actor) = viewer(ctx)?;
    page(ctx, Scope::Ticket(actor, t.clone()), first, after).await
}

/// `auditEvents`: the whole log, newest first (administrators only).
pub async fn log(
    ctx: &Context<'_>,
    filter: AuditFilter,
    first: Option<i32>,
    after: Option<String>,
) -> Result<AuditEventConnection> {
    let (_, actor) = viewer(ctx)?;
    if !actor.is_admin() {
        return Err(AppError::forbidden("only administrators may read the audit log").into());
    }
    page(ctx, Scope::Log(actor, filter), first, after).await
}
