//! What a ticket's service level shows to readers, and how lists keep and order tickets by it.
use crate::error::AppResult;
use chrono::{DateTime, Duration, Utc};
use entity::{sla_policy, ticket, ticket_sla};
use sea_orm::sea_query::{Expr, ExprTrait, Query, SelectStatement};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, JoinType, QueryFilter, QuerySelect};
use std::collections::HashMap;

/// Which tickets a list keeps by their SLA state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlaState {
    /// A target was breached.
    Breached,
    /// A running target is past its at-risk point and not breached.
    AtRisk,
    /// A target is running (the clock has a due time).
    Running,
}

/// A ticket's clock as readers see it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlaView {
    /// The policy that set it (gone when deleted since).
    pub policy: Option<sla_policy::Model>,
    /// First-response due time, while that target runs.
    pub first_response_due_at: Option<DateTime<Utc>>,
    /// Resolution due time, while that target runs.
    pub resolution_due_at: Option<DateTime<Utc>>,
    /// When the first-response target was breached.
    pub first_response_breached_at: Option<DateTime<Utc>>,
    /// When the resolution target was breached.
    pub resolution_breached_at: Option<DateTime<Utc>>,
    /// Whether a running target passed its at-risk point.
    pub at_risk: bool,
    /// Since when the clock is stopped.
    pub paused_since: Option<DateTime<Utc>>,
    /// Business time the clock was stopped in past stops.
    pub paused: Duration,
}

impl SlaView {
    /// The earlier running due time.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        match (self.first_response_due_at, self.resolution_due_at) {
            (Some(a), Some(b)) => Some(Ord::min(a, b)),
            (a, b) => a.or(b),
        }
    }
}

/// The clocks of tickets the caller has already been allowed to see (a `Ticket` the service returned),
/// by ticket id; tickets no policy ever applied to are absent. Everyone who sees a ticket sees its clock
/// and the policy that set it.
pub async fn views(
    db: &impl ConnectionTrait,
    ticket_ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, SlaView>> {
    // With its policy in the same statement: a detail reads its clock in one round trip.
    let policy = ticket_sla::Entity::belongs_to(sla_policy::Entity)
        .from(ticket_sla::Column::PolicyId)
        .to(sla_policy::Column::Id)
        .into();
    let rows = ticket_sla::Entity::find()
        .filter(ticket_sla::Column::TicketId.is_in(ticket_ids))
        .join(JoinType::LeftJoin, policy)
        .select_also(sla_policy::Entity)
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(r, policy)| (r.ticket_id, view_of(r, policy)))
        .collect())
}

/// A stored clock and the policy that set it, as readers see them (for reads that joined them already).
pub fn view_of(row: ticket_sla::Model, policy: Option<sla_policy::Model>) -> SlaView {
    let at_risk = (row.first_response_due_at.is_some()
        && row.first_response_at_risk_at.is_some()
        && row.first_response_breached_at.is_none())
        || (row.resolution_due_at.is_some()
            && row.resolution_at_risk_at.is_some()
            && row.resolution_breached_at.is_none());
    SlaView {
        policy,
        first_response_due_at: row.first_response_due_at,
        resolution_due_at: row.resolution_due_at,
        first_response_breached_at: row.first_response_breached_at,
        resolution_breached_at: row.resolution_breached_at,
        at_risk,
        paused_since: row.paused_since,
        paused: Duration::milliseconds(row.paused_ms),
    }
}

/// The ids of tickets in `state`, as a subquery for list filters. Decided by stored columns only, so a
/// list costs the same whatever the time, and what a list shows agrees with each ticket's `sla`.
pub fn tickets_in(state: SlaState) -> SelectStatement {
    use ticket_sla::Column as C;
    let col = |c: C| Expr::col((ticket_sla::Entity, c));
    let cond = match state {
        SlaState::Breached => col(C::FirstResponseBreachedAt)
            .is_not_null()
            .or(col(C::ResolutionBreachedAt).is_not_null()),
        SlaState::AtRisk => col(C::FirstResponseDueAt)
            .is_not_null()
            .and(col(C::FirstResponseAtRiskAt).is_not_null())
            .and(col(C::FirstResponseBreachedAt).is_null())
            .or(col(C::ResolutionDueAt)
                .is_not_null()
                .and(col(C::ResolutionAtRiskAt).is_not_null())
                .and(col(C::ResolutionBreachedAt).is_null())),
        SlaState::Running => col(C::DueAt).is_not_null(),
    };
    Query::select()
        .column((ticket_sla::Entity, C::TicketId))
        .from(ticket_sla::Entity)
        .and_where(cond)
        .to_owned()
}

/// The next due time of the ticket in the outer query, as an expression lists sort on.
pub fn due_at_of_ticket() -> Expr {
    Expr::SubQuery(
        None,
        Box::new(
            Query::select()
                .column((ticket_sla::Entity, ticket_sla::Column::DueAt))
                .from(ticket_sla::Entity)
                .and_where(
                    Expr::col((ticket_sla::Entity, ticket_sla::Column::TicketId))
                        .equals((ticket::Entity, ticket::Column::Id)),
                )
                .to_owned()
                .into(),
        ),
    )
}
