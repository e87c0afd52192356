//! `auditEvents`: the administrators' view of the whole audit trail.
use crate::graphql::ids;
use crate::graphql::types::audit::{self, AuditEventConnection};
use crate::service::audit::AuditFilter as ServiceFilter;
use async_graphql::{Context, InputObject, Object, Result, ID};

/// Audit queries.
#[derive(Default)]
pub struct AuditQuery;

/// Narrows the audit log; every field given must match.
#[derive(InputObject, Default)]
pub struct AuditEventFilter {
    /// `ticket`, `comment`, `project`, `asset`, `api_token`, …
    entity_type: Option<String>,
    /// Database id of the changed record.
    entity_id: Option<i32>,
    /// Who made the change.
    actor_id: Option<ID>,
    /// `create`, `update`, `status_change`, `archive`, `restore`, `delete`, …
    action: Option<String>,
}

#[Object]
impl AuditQuery {
    /// Every audit entry, newest first (administrators only).
    async fn audit_events(
        &self,
        ctx: &Context<'_>,
        filter: Option<AuditEventFilter>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<AuditEventConnection> {
        let filter = filter.unwrap_or_default();
        let service = ServiceFilter {
            entity_type: filter.entity_type,
            entity_id: filter.entity_id,
            actor_id: ids::decode_opt(filter.actor_id.as_ref(), "User", "actorId")?,
            action: filter.action,
        };
        audit::log(ctx, service, first, after).await
    }
}
