//! Clocks for bulk-seeded tickets (`deskgraph seed`): as if each ticket had been clocked since its
//! creation, so a seeded database looks like one that has been running. Events whose instant has passed are
//! recorded as happened (no check is queued for them, so a freshly seeded server does not fire a year of
//! breaches at start); checks are queued only for instants still ahead.
use super::clock::{self, Kind, Pauses, Target};
use super::policies::{self, Policy};
use super::{check_row, is_stopped, next_clock, standing};
use chrono::{DateTime, Duration, Utc};
use entity::{outbox as outbox_row, ticket, ticket_sla};

/// The clock of `t` at `now` under the best match among `policies`, and the checks still ahead; `None`
/// when no policy matches.
pub fn clock(
    policies: &[Policy],
    t: &ticket::Model,
    now: DateTime<Utc>,
) -> Option<(ticket_sla::Model, Vec<outbox_row::ActiveModel>)> {
    let policy = policies::matching(
        policies,
        t.priority.as_str(),
        t.project_id,
        t.assigned_group_id,
    )?;
    let (mut row, _) = next_clock(policy, t, None, now);
    let pauses = Pauses {
        paused: Duration::zero(),
        since: None,
    }
    .at(&policy.calendar, is_stopped(policy, t), now);
    let dues = clock::dues(
        &policy.calendar,
        &policy.targets,
        t.created_at,
        pauses,
        standing(t),
    );
    let mut checks = Vec::new();
    for target in Target::ALL {
        for kind in [Kind::AtRisk, Kind::Breached] {
            let Some(at) = dues.of(target, kind) else {
                continue;
            };
            if at > now {
                checks.push(check_row(t.id, target, kind, at));
                continue;
            }
            let happened = match (target, kind) {
                (Target::FirstResponse, Kind::AtRisk) => &mut row.first_response_at_risk_at,
                (Target::FirstResponse, Kind::Breached) => &mut row.first_response_breached_at,
                (Target::Resolution, Kind::AtRisk) => &mut row.resolution_at_risk_at,
                (Target::Resolution, Kind::Breached) => &mut row.resolution_breached_at,
            };
            *happened = Some(at);
        }
    }
    Some((row, checks))
}
