//! `SlaPolicy` and a ticket's `TicketSla` clock.
use crate::domain::{Priority, TicketStatus};
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use crate::service::sla::policies::stored_calendar;
use crate::service::sla::SlaView;
use async_graphql::{Context, Enum, Object, Result, SimpleObject, ID};
use chrono::{DateTime, Utc, Weekday};
use entity::sla_policy;

/// A weekday of a business-hours calendar.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum SlaWeekday {
    /// Monday.
    Mon,
    /// Tuesday.
    Tue,
    /// Wednesday.
    Wed,
    /// Thursday.
    Thu,
    /// Friday.
    Fri,
    /// Saturday.
    Sat,
    /// Sunday.
    Sun,
}

impl From<SlaWeekday> for Weekday {
    fn from(d: SlaWeekday) -> Weekday {
        match d {
            SlaWeekday::Mon => Weekday::Mon,
            SlaWeekday::Tue => Weekday::Tue,
            SlaWeekday::Wed => Weekday::Wed,
            SlaWeekday::Thu => Weekday::Thu,
            SlaWeekday::Fri => Weekday::Fri,
            SlaWeekday::Sat => Weekday::Sat,
            SlaWeekday::Sun => Weekday::Sun,
        }
    }
}

impl From<Weekday> for SlaWeekday {
    fn from(d: Weekday) -> SlaWeekday {
        match d {
            Weekday::Mon => SlaWeekday::Mon,
            Weekday::Tue => SlaWeekday::Tue,
            Weekday::Wed => SlaWeekday::Wed,
            Weekday::Thu => SlaWeekday::Thu,
            Weekday::Fri => SlaWeekday::Fri,
            Weekday::Sat => SlaWeekday::Sat,
            Weekday::Sun => SlaWeekday::Sun,
        }
    }
}

/// Opening hours of one weekday, local time in the calendar's zone.
#[derive(SimpleObject)]
pub struct BusinessHours {
    /// The weekday.
    day: SlaWeekday,
    /// Opening time, `HH:MM`.
    open: String,
    /// Closing time, `HH:MM` (`24:00` is midnight at the end of the day).
    close: String,
}

/// Business hours in a time zone, with holidays.
#[derive(SimpleObject)]
pub struct SlaCalendar {
    /// IANA time zone name, e.g. `Europe/Berlin`.
    time_zone: String,
    /// Opening hours; weekdays not listed are closed.
    hours: Vec<BusinessHours>,
    /// Closed dates.
    holidays: Vec<Date>,
}

/// A service-level policy: which tickets it applies to, its targets in business time and the statuses
/// that pause the clock.
pub struct SlaPolicy(pub sla_policy::Model);

/// A service-level policy: which tickets it applies to, its targets in business time and the statuses that pause
/// the clock.
#[Object]
impl SlaPolicy {
    /// Global id.
    async fn id(&self) -> ID {
        ids::encode("SlaPolicy", self.0.id)
    }

    /// The integer id.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// The priority it matches.
    async fn priority(&self) -> Result<Priority> {
        Ok(self.0.priority)
    }

    /// The project it is restricted to (administrators only; null for everyone else).
    async fn project_id(&self, ctx: &Context<'_>) -> Result<Option<ID>> {
        let (_, actor) = crate::graphql::context::viewer(ctx)?;
        Ok(self
            .0
            .project_id
            .filter(|_| actor.is_admin())
            .map(|id| ids::encode("Project", id)))
    }

    /// The assigned group it is restricted to (administrators only; null for everyone else).
    async fn group_id(&self, ctx: &Context<'_>) -> Result<Option<ID>> {
        let (_, actor) = crate::graphql::context::viewer(ctx)?;
        Ok(self
            .0
            .group_id
            .filter(|_| actor.is_admin())
            .map(|id| ids::encode("Group", id)))
    }

    /// Business minutes until the first response.
    async fn first_response_minutes(&self) -> i32 {
        self.0.first_response_minutes
    }

    /// Business minutes until resolution.
    async fn resolution_minutes(&self) -> i32 {
        self.0.resolution_minutes
    }

    /// The business-hours calendar.
    async fn calendar(&self) -> Result<SlaCalendar> {
        let c = stored_calendar(&self.0)?;
        Ok(SlaCalendar {
            time_zone: self.0.time_zone.clone(),
            hours: c
                .hours
                .into_iter()
                .map(|h| BusinessHours {
                    day: h.day.into(),
                    open: h.open,
                    close: h.close,
                })
                .collect(),
            holidays: c.holidays.into_iter().map(Date).collect(),
        })
    }

    /// Statuses that stop the clock (resolved and closed tickets stop it too).
    async fn pause_statuses(&self) -> Vec<TicketStatus> {
        self.0
            .pause_statuses
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_str())
                    .filter_map(|s| TicketStatus::parse(s).ok())
                    .collect()
            })
            .unwrap_or_default()
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

/// A ticket's service-level clock.
pub struct TicketSla(pub SlaView);

/// A ticket's service-level clock: its policy, when its targets are due, whether they were breached, and its
/// pauses.
#[Object]
impl TicketSla {
    /// The policy that set the clock (null once deleted, or when no policy matches any more).
    async fn policy(&self) -> Option<SlaPolicy> {
        self.0.policy.clone().map(SlaPolicy)
    }

    /// When the first response is due (null once responded, while paused, or resolved).
    async fn first_response_due_at(&self) -> Option<DateTime<Utc>> {
        self.0.first_response_due_at
    }

    /// When resolution is due (null while paused or once resolved).
    async fn resolution_due_at(&self) -> Option<DateTime<Utc>> {
        self.0.resolution_due_at
    }

    /// Whether the first-response target was breached.
    async fn first_response_breached(&self) -> bool {
        self.0.first_response_breached_at.is_some()
    }

    /// Whether the resolution target was breached.
    async fn resolution_breached(&self) -> bool {
        self.0.resolution_breached_at.is_some()
    }

    /// When the first-response target was breached.
    async fn first_response_breached_at(&self) -> Option<DateTime<Utc>> {
        self.0.first_response_breached_at
    }

    /// When the resolution target was breached.
    async fn resolution_breached_at(&self) -> Option<DateTime<Utc>> {
        self.0.resolution_breached_at
    }

    /// Whether a running target has used 80 % of its time without being breached.
    async fn at_risk(&self) -> bool {
        self.0.at_risk
    }

    /// Since when the clock is stopped (a pause status, or resolved); null while it runs.
    async fn paused_since(&self) -> Option<DateTime<Utc>> {
        self.0.paused_since
    }

    /// Business minutes the clock was stopped before the current stop.
    async fn paused_minutes(&self) -> i64 {
        self.0.paused.num_minutes()
    }
}
