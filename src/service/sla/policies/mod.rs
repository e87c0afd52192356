//! SLA policies: administrators define them; tickets are matched to the most specific one.
mod cache;
mod hours;
mod write;

pub use cache::KnownPolicies;
pub use hours::{stored_calendar, weekday_name, CalendarInput, DayHours};
pub use write::{create, delete, update, NewPolicy, PolicyPatch};

use super::calendar::Calendar;
use super::clock::Targets;
use crate::auth::Actor;
use crate::db::Db;
use crate::domain::{Priority, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::service::Take;
use chrono::Duration;
use entity::sla_policy;
use hours::calendar_of;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::Value;

/// A stored policy, read into what the clock needs.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The row.
    pub row: sla_policy::Model,
    /// Business hours.
    pub calendar: Calendar,
    /// Targets.
    pub targets: Targets,
    /// Statuses that stop the clock.
    pub pause_statuses: Vec<TicketStatus>,
}

impl Policy {
    /// Read a stored row.
    pub fn from_row(row: sla_policy::Model) -> AppResult<Policy> {
        let calendar = calendar_of(&stored_calendar(&row)?)?;
        let pause_statuses = row
            .pause_statuses
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .filter_map(|s| TicketStatus::parse(s).ok())
                    .collect()
            })
            .unwrap_or_default();
        let targets = Targets {
            first_response: Duration::minutes(i64::from(row.first_response_minutes)),
            resolution: Duration::minutes(i64::from(row.resolution_minutes)),
        };
        Ok(Policy {
            row,
            calendar,
            targets,
            pause_statuses,
        })
    }

    /// How specific the match is (project counts more than group), or `None` when it does not match.
    fn specificity(
        &self,
        priority: Priority,
        project: Option<i32>,
        group: Option<i32>,
    ) -> Option<u8> {
        if self.row.priority != priority {
            return None;
        }
        let mut score = 0;
        if let Some(p) = self.row.project_id {
            if project != Some(p) {
                return None;
            }
            score += 2;
        }
        if let Some(g) = self.row.group_id {
            if group != Some(g) {
                return None;
            }
            score += 1;
        }
        Some(score)
    }
}

/// The policies for `priority`, oldest first.
pub async fn for_priority(db: &impl ConnectionTrait, priority: Priority) -> AppResult<Vec<Policy>> {
    for_priorities(db, [priority]).await
}

/// The policies for any of `priorities`, oldest first.
pub async fn for_priorities(
    db: &impl ConnectionTrait,
    priorities: impl IntoIterator<Item = Priority>,
) -> AppResult<Vec<Policy>> {
    sla_policy::Entity::find()
        .filter(sla_policy::Column::Priority.is_in(priorities))
        .order_by_asc(sla_policy::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(Policy::from_row)
        .collect()
}

/// The most specific of `policies` matching a ticket's priority, project and group (the oldest on a tie).
pub fn matching(
    policies: &[Policy],
    priority: Priority,
    project: Option<i32>,
    group: Option<i32>,
) -> Option<&Policy> {
    let mut best: Option<(u8, &Policy)> = None;
    for p in policies {
        if let Some(score) = p.specificity(priority, project, group) {
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, p));
            }
        }
    }
    best.map(|(_, p)| p)
}

fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden(
            "only administrators may manage SLA policies",
        ))
    }
}

/// Every policy, oldest first; administrators only.
pub async fn list(db: &Db, actor: &Actor, take: Take) -> AppResult<Vec<sla_policy::Model>> {
    require_admin(actor)?;
    let select = sla_policy::Entity::find().order_by_asc(sla_policy::Column::Id);
    Ok(take.limit(select).all(&db.conn).await?)
}

/// A policy by id, for whoever may see something naming it (a ticket's clock names its policy).
pub async fn get(db: &impl ConnectionTrait, id: i32) -> AppResult<Option<sla_policy::Model>> {
    Ok(sla_policy::Entity::find_by_id(id).one(db).await?)
}
