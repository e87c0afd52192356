//! A ticket's SLA clock, computed from its policy's targets and calendar: pure, no database, no clock.
//!
//! Both targets run from the ticket's creation in business time. While the clock is stopped (a pause status,
//! or a resolved or closed ticket) no business time is used; the stopped business time is added to both
//! targets when it runs again, so a due time is `calendar.add(created, target + paused)`.
use super::calendar::Calendar;
use chrono::{DateTime, Duration, Utc};

/// Share of a target used when a ticket counts as at risk, in per cent.
pub const AT_RISK_PERCENT: i64 = 80;

pub use entity::values::{SlaEventKind as Kind, SlaTarget as Target};

/// The webhook event that reports an SLA event of `kind`.
pub fn event_name(kind: Kind) -> &'static str {
    match kind {
        Kind::AtRisk => "ticket.sla_at_risk",
        Kind::Breached => "ticket.sla_breached",
    }
}

/// Business-time targets of a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Targets {
    /// Until the first response.
    pub first_response: Duration,
    /// Until resolution.
    pub resolution: Duration,
}

impl Targets {
    /// The target of `which`.
    pub fn of(&self, which: Target) -> Duration {
        match which {
            Target::FirstResponse => self.first_response,
            Target::Resolution => self.resolution,
        }
    }
}

/// The stored pause accounting of a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pauses {
    /// Business time the clock has been stopped, in past stops.
    pub paused: Duration,
    /// When the current stop began, while stopped.
    pub since: Option<DateTime<Utc>>,
}

impl Pauses {
    /// The accounting after the clock is (or stays) stopped or running at `now`: a stop that ends adds its
    /// business time to `paused`.
    pub fn at(self, calendar: &Calendar, stopped: bool, now: DateTime<Utc>) -> Pauses {
        match (self.since, stopped) {
            (Some(since), false) => Pauses {
                paused: self.paused + calendar.between(since, now),
                since: None,
            },
            (None, true) => Pauses {
                paused: self.paused,
                since: Some(now),
            },
            _ => self,
        }
    }
}

/// Where a ticket stands against its targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// Whether the first response happened.
    pub responded: bool,
    /// Whether the ticket is resolved or closed.
    pub resolved: bool,
}

/// The due and at-risk instants of the targets still running (`None` for a met target or a stopped clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dues {
    /// First-response due time.
    pub first_response: Option<DateTime<Utc>>,
    /// Resolution due time.
    pub resolution: Option<DateTime<Utc>>,
    /// When the first-response target is `AT_RISK_PERCENT` used.
    pub first_response_at_risk: Option<DateTime<Utc>>,
    /// When the resolution target is `AT_RISK_PERCENT` used.
    pub resolution_at_risk: Option<DateTime<Utc>>,
}

impl Dues {
    /// The instant of `kind` for `target`.
    pub fn of(&self, target: Target, kind: Kind) -> Option<DateTime<Utc>> {
        match (target, kind) {
            (Target::FirstResponse, Kind::Breached) => self.first_response,
            (Target::FirstResponse, Kind::AtRisk) => self.first_response_at_risk,
            (Target::Resolution, Kind::Breached) => self.resolution,
            (Target::Resolution, Kind::AtRisk) => self.resolution_at_risk,
        }
    }

    /// The earliest due time still running (what "ordered by due time" sorts on).
    pub fn next(&self) -> Option<DateTime<Utc>> {
        match (self.first_response, self.resolution) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The due times of a clock started at `created`.
pub fn dues(
    calendar: &Calendar,
    targets: &Targets,
    created: DateTime<Utc>,
    pauses: Pauses,
    standing: Standing,
) -> Dues {
    if pauses.since.is_some() {
        return Dues::default();
    }
    let due = |target: Duration| calendar.add(created, target + pauses.paused);
    let risk = |target: Duration| due(target * AT_RISK_PERCENT as i32 / 100);
    let (fr, res) = (targets.first_response, targets.resolution);
    Dues {
        first_response: (!standing.responded).then(|| due(fr)).flatten(),
        resolution: (!standing.resolved).then(|| due(res)).flatten(),
        first_response_at_risk: (!standing.responded).then(|| risk(fr)).flatten(),
        resolution_at_risk: (!standing.resolved).then(|| risk(res)).flatten(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn nine_to_five() -> Calendar {
        crate::service::sla::calendar::tests::weekdays("UTC", "09:00", "17:00", &[])
    }

    fn utc(d: u32, h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, d, h, m, 0)
            .single()
            .unwrap_or_default()
    }

    const TARGETS: Targets = Targets {
        first_response: Duration::hours(1),
        resolution: Duration::hours(10),
    };
    const OPEN: Standing = Standing {
        responded: false,
        resolved: false,
    };

    #[test]
    fn a_ticket_created_on_wednesday_morning_is_due_by_the_targets() {
        let cal = nine_to_five();
        let d = dues(&cal, &TARGETS, utc(25, 10, 0), Pauses::default(), OPEN);
        assert_eq!(d.first_response, Some(utc(25, 11, 0)));
        assert_eq!(d.first_response_at_risk, Some(utc(25, 10, 48)));
        // Seven hours on Wednesday, three on Thursday.
        assert_eq!(d.resolution, Some(utc(26, 12, 0)));
        assert_eq!(d.next(), Some(utc(25, 11, 0)));
    }

    #[test]
    fn a_pause_stops_the_clock_and_resuming_moves_the_due_times() {
        let cal = nine_to_five();
        let created = utc(25, 10, 0);
        // On hold from 10:30 to 16:30 (6 business hours), then running again.
        let held = Pauses::default().at(&cal, true, utc(25, 10, 30));
        assert_eq!(dues(&cal, &TARGETS, created, held, OPEN), Dues::default());
        let resumed = held.at(&cal, false, utc(25, 16, 30));
        assert_eq!(resumed.paused, Duration::hours(6));
        let d = dues(&cal, &TARGETS, created, resumed, OPEN);
        // One hour of first-response target plus the six paused: 10:00 to 17:00.
        assert_eq!(d.first_response, Some(utc(25, 17, 0)));
        // Sixteen business hours: seven on Wednesday, eight on Thursday, one on Friday.
        assert_eq!(d.resolution, Some(utc(27, 10, 0)));
    }

    #[test]
    fn a_pause_outside_business_hours_costs_nothing() {
        let cal = nine_to_five();
        let held = Pauses::default().at(&cal, true, utc(25, 18, 0));
        let resumed = held.at(&cal, false, utc(26, 8, 0));
        assert_eq!(resumed.paused, Duration::zero());
    }

    #[test]
    fn met_targets_have_no_due_time() {
        let cal = nine_to_five();
        let standing = Standing {
            responded: true,
            resolved: false,
        };
        let d = dues(&cal, &TARGETS, utc(25, 10, 0), Pauses::default(), standing);
        assert_eq!(d.first_response, None);
        assert_eq!(d.first_response_at_risk, None);
        assert!(d.resolution.is_some());
    }
}
