//! The events of a clock (at risk, breached; of the first response and of the resolution), when each
//! happened, and the one scheduled check that waits for the first still ahead.
use super::clock::{Dues, Kind, Target};
use crate::notify::outbox;
use chrono::{DateTime, Utc};
use entity::{outbox as outbox_row, ticket_sla};
use sea_orm::Set;
use serde::Serialize;

/// What a scheduled check looks at: the event due first when it was scheduled, and its instant (`at`, ms),
/// which names the check its clock is waiting for (`ticket_slas.check_at_ms`).
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct CheckPayload {
    ticket_id: i32,
    target: &'static str,
    kind: &'static str,
    at: i64,
}

/// Milliseconds since the epoch, as `due_at_ms` and `check_at_ms` keep time.
pub(super) fn ms_of(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// The event a check is queued for: its target, kind and instant.
pub(super) type Check = (Target, Kind, DateTime<Utc>);

/// Every event a clock can record.
pub(super) const EVENTS: [(Target, Kind); 4] = [
    (Target::FirstResponse, Kind::AtRisk),
    (Target::FirstResponse, Kind::Breached),
    (Target::Resolution, Kind::AtRisk),
    (Target::Resolution, Kind::Breached),
];

/// When `kind` of `target` happened to `clock`, if it did.
pub(super) fn happened(
    clock: &ticket_sla::Model,
    target: Target,
    kind: Kind,
) -> Option<DateTime<Utc>> {
    match (target, kind) {
        (Target::FirstResponse, Kind::AtRisk) => clock.first_response_at_risk_at,
        (Target::FirstResponse, Kind::Breached) => clock.first_response_breached_at,
        (Target::Resolution, Kind::AtRisk) => clock.resolution_at_risk_at,
        (Target::Resolution, Kind::Breached) => clock.resolution_breached_at,
    }
}

/// Where `clock` keeps when `kind` of `target` happened.
pub(super) fn happened_mut(
    clock: &mut ticket_sla::Model,
    target: Target,
    kind: Kind,
) -> &mut Option<DateTime<Utc>> {
    match (target, kind) {
        (Target::FirstResponse, Kind::AtRisk) => &mut clock.first_response_at_risk_at,
        (Target::FirstResponse, Kind::Breached) => &mut clock.first_response_breached_at,
        (Target::Resolution, Kind::AtRisk) => &mut clock.resolution_at_risk_at,
        (Target::Resolution, Kind::Breached) => &mut clock.resolution_breached_at,
    }
}

/// The events of `clock` that have not happened, with their instants under `dues`, earliest first.
pub(super) fn pending(dues: &Dues, clock: &ticket_sla::Model) -> Vec<Check> {
    let mut events: Vec<_> = EVENTS
        .into_iter()
        .filter(|&(target, kind)| happened(clock, target, kind).is_none())
        .filter_map(|(target, kind)| Some((target, kind, dues.of(target, kind)?)))
        .collect();
    events.sort_by_key(|&(_, _, at)| at);
    events
}

/// The check to schedule: the first pending event of `clock`, or the first after `after`.
pub(super) fn next_check(
    dues: &Dues,
    clock: &ticket_sla::Model,
    after: Option<DateTime<Utc>>,
) -> Option<Check> {
    pending(dues, clock)
        .into_iter()
        .find(|&(_, _, at)| after.is_none_or(|after| at > after))
}

pub(super) fn check_row(
    ticket_id: i32,
    target: Target,
    kind: Kind,
    at: DateTime<Utc>,
) -> outbox_row::ActiveModel {
    let payload = CheckPayload {
        ticket_id,
        target: target.as_str(),
        kind: kind.as_str(),
        at: ms_of(at),
    };
    let mut row = outbox::row(
        outbox::JobKind::SlaCheck,
        &outbox::new_event_id(),
        super::clock::event_name(kind),
        None,
        serde_json::to_string(&payload).unwrap_or_default(),
    );
    row.due_at_ms = Set(ms_of(at));
    row
}
