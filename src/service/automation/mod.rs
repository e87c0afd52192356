//! Automation: triggers, the administrators' rules that change a ticket when a write to it matches
//! (docs/automation.md). The rule language is in `language`, its evaluation (pure, in memory) in `evaluate`,
//! managing triggers in `triggers`, and the per-instance compiled set in `known`. Time rules (`time_rules`) act
//! on tickets once a wait has passed, run by scheduled outbox rows. The ticket writes run the
//! rules (`service::tickets::write::triggered`), so a rule's change goes through the same code as a person's.
pub mod evaluate;
pub mod fields;
pub mod known;
pub mod language;
pub mod macros;
mod render;
pub mod time_rules;
pub mod triggers;

pub use evaluate::Facts;
pub use known::{KnownMacros, KnownTriggers};
pub use language::{Event, Role};
pub use render::{fill, render};
pub use triggers::{NewTrigger, Trigger, TriggerPatch};

use crate::auth::Actor;
use serde::Serialize;

/// What made a change that no person made directly: the rule, by id and name. Written as `via` into the
/// change's audit record and webhook bodies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Via {
    /// The rule's id.
    pub rule: i32,
    /// Its name when it acted.
    pub name: String,
    /// `trigger` or `time_rule`: their ids are counted apart.
    pub kind: &'static str,
}

impl Via {
    /// The rule `t`.
    pub fn rule(t: &Trigger) -> Via {
        Via {
            rule: t.id,
            name: t.name.clone(),
            kind: t.kind,
        }
    }
}

/// Whether `now` is within the business hours of the SLA policy `t` falls under (always, without one): the
/// `time.business_hours` condition. Read only when a rule asks (the policies are remembered per instance).
pub async fn within_business_hours(
    policies: &crate::service::sla::policies::KnownPolicies,
    db: &impl sea_orm::ConnectionTrait,
    t: &entity::ticket::Model,
    now: chrono::DateTime<chrono::Utc>,
) -> crate::error::AppResult<bool> {
    let known = policies.for_priority(db, t.priority).await?;
    let policy = crate::service::sla::policies::matching(
        &known,
        t.priority,
        t.project_id,
        t.assigned_group_id,
    );
    Ok(policy.is_none_or(|p| p.calendar.is_open_at(now)))
}

/// The role rules see for `actor`.
pub fn role_of(actor: &Actor) -> Role {
    if actor.is_admin() {
        Role::Admin
    } else if actor.is_team() {
        Role::Agent
    } else {
        Role::Requester
    }
}
