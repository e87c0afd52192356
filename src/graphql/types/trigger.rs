//! `Trigger`: an administrator's rule that changes a ticket when a write to it matches
//! (docs/automation.md).
use crate::graphql::ids;
use crate::graphql::types::Project;
use async_graphql::{Context, Json, Object, Result, ID};
use chrono::{DateTime, Utc};
use entity::trigger;

/// A rule run on every ticket write, in position order: when its conditions hold, its actions change the
/// ticket, marked as the rule's in the history, the audit trail and webhooks.
pub struct Trigger(pub trigger::Model);

/// A rule run on every ticket write, in position order: when its conditions hold, its actions change the ticket,
/// marked as the rule's in the history, the audit trail and webhooks.
#[Object]
impl Trigger {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Trigger", self.0.id)
    }

    /// The integer id (what `via.rule` names in audit records and webhooks).
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// The project whose tickets it runs on; null: every ticket.
    async fn project(&self, ctx: &Context<'_>) -> Result<Option<Project>> {
        let Some(id) = self.0.project_id else {
            return Ok(None);
        };
        let req = crate::graphql::context::request(ctx)?;
        Ok(req.project(id).await?.map(Project))
    }

    /// Evaluation order, ascending (ties by id).
    async fn position(&self) -> i32 {
        self.0.position
    }

    /// Whether it runs.
    async fn active(&self) -> bool {
        self.0.active
    }

    /// `{"all": [condition…], "any": [condition…]}`; a condition is `{"field", "operator", "value"}`.
    async fn conditions(&self) -> Json<serde_json::Value> {
        Json(self.0.conditions.clone())
    }

    /// `[action…]`: `{"set": field, "value": …}` or `{"comment": template, "internal": bool}`.
    async fn actions(&self) -> Json<serde_json::Value> {
        Json(self.0.actions.clone())
    }

    /// When it was added.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When it last changed.
    async fn updated_at(&self) -> DateTime<Utc> {
        self.0.updated_at
    }
}
