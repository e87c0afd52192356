//! `TimeRule`: an administrator's rule that acts on tickets once a wait has passed (docs/automation.md).
use crate::graphql::ids;
use crate::graphql::types::Project;
use crate::service::automation::time_rules::DryRun;
use async_graphql::{Context, Json, Object, Result, SimpleObject, ID};
use chrono::{DateTime, Utc};
use entity::time_rule;

/// A rule that acts on each ticket, once, when a wait has passed since one of its moments (created,
/// updated, status changed, resolved) and its conditions hold.
pub struct TimeRule(pub time_rule::Model);

/// A rule that acts on each ticket, once, when a wait has passed since one of its moments (created, updated,
/// status changed, resolved) or is left before a pending SLA target, and its conditions hold.
#[Object]
impl TimeRule {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("TimeRule", self.0.id)
    }

    /// The integer id (what `via.rule` names, with `via.kind` `time_rule`).
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// The project whose tickets it acts on; null: every ticket.
    async fn project(&self, ctx: &Context<'_>) -> Result<Option<Project>> {
        let Some(id) = self.0.project_id else {
            return Ok(None);
        };
        let req = crate::graphql::context::request(ctx)?;
        Ok(req.project(id).await?.map(Project))
    }

    /// Whether it runs.
    async fn active(&self) -> bool {
        self.0.active
    }

    /// `{"since": "created" | "updated" | "status_changed" | "resolved", "hours": n, "business_hours":
    /// bool}`, or `{"before": "first_response_due" | "resolution_due", "hours": n, "business_hours": false}`.
    async fn wait(&self) -> Json<serde_json::Value> {
        Json(self.0.wait.clone())
    }

    /// `{"all": [condition…], "any": [condition…]}`, on the ticket's fields only.
    async fn conditions(&self) -> Json<serde_json::Value> {
        Json(self.0.conditions.clone())
    }

    /// `[action…]`, as a trigger's.
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

/// What a time rule would act on now; nothing is changed.
#[derive(SimpleObject)]
pub struct TimeRuleDryRun {
    /// Tickets it would act on now.
    pub matching: u64,
    /// Tickets looked at.
    pub examined: u64,
    /// Whether counting stopped at 10,000 tickets (there may be more).
    pub capped: bool,
}

impl From<DryRun> for TimeRuleDryRun {
    fn from(d: DryRun) -> Self {
        TimeRuleDryRun {
            matching: d.matching,
            examined: d.examined,
            capped: d.capped,
        }
    }
}
