//! Clocks for bulk-seeded tickets (`deskgraph seed`): as if each ticket had been clocked since its
//! creation, so a seeded database looks like one that has been running. Events whose instant has passed are
//! recorded as happened (no check is queued for them, so a freshly seeded server does not fire a year of
//! breaches at start); the one check is queued for the first instant still ahead.
use super::clock::{self, Pauses};
use super::policies::{self, Policy};
use super::{check_row, happened_mut, is_stopped, ms_of, next_clock, pending, standing};
use chrono::{DateTime, Duration, Utc};
use entity::{outbox as outbox_row, ticket, ticket_sla};

/// The clock of `t` at `now` under the best match among `policies`, and its check if an event is still
/// ahead; `None` when no policy matches.
pub fn clock(
    policies: &[Policy],
    t: &ticket::Model,
    now: DateTime<Utc>,
) -> Option<(ticket_sla::Model, Vec<outbox_row::ActiveModel>)> {
    let policy = policies::matching(policies, t.priority, t.project_id, t.assigned_group_id)?;
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
    row.check_at_ms = None;
    let events = pending(&dues, &row);
    for (target, kind, at) in events {
        if at > now {
            checks.push(check_row(t.id, target, kind, at));
            row.check_at_ms = Some(ms_of(at));
            break;
        }
        *happened_mut(&mut row, target, kind) = Some(at);
    }
    Some((row, checks))
}
