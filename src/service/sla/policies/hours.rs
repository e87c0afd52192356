//! Business hours as a policy is given and stored: the weekday table, the zone and the holidays.
use crate::error::{AppError, AppResult};
use crate::service::sla::calendar::{Calendar, Hours, WEEK};
use chrono::{NaiveDate, Weekday};
use entity::sla_policy;
use serde_json::{json, Value};

/// Opening hours of one weekday, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayHours {
    /// The weekday.
    pub day: Weekday,
    /// `HH:MM`.
    pub open: String,
    /// `HH:MM`, `24:00` allowed.
    pub close: String,
}

/// A calendar as given: empty `hours` means open around the clock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CalendarInput {
    /// IANA zone name; UTC when absent.
    pub time_zone: Option<String>,
    /// Opening hours per weekday; days not named are closed.
    pub hours: Vec<DayHours>,
    /// Closed dates.
    pub holidays: Vec<NaiveDate>,
}

/// A weekday as policies spell it: `mon` … `sun`.
pub fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "mon",
        Weekday::Tue => "tue",
        Weekday::Wed => "wed",
        Weekday::Thu => "thu",
        Weekday::Fri => "fri",
        Weekday::Sat => "sat",
        Weekday::Sun => "sun",
    }
}

pub(super) fn calendar_of(input: &CalendarInput) -> AppResult<Calendar> {
    if input.hours.is_empty() && input.holidays.is_empty() && input.time_zone.is_none() {
        return Ok(Calendar::always());
    }
    let mut hours = Vec::new();
    for h in &input.hours {
        let parsed = Hours::parse(&h.open, &h.close)
            .map_err(|why| AppError::field("calendar", format!("{}: {why}", h.day)))?;
        hours.push((h.day, parsed));
    }
    if hours.is_empty() {
        // A zone or holidays without hours: open around the clock, apart from the holidays.
        let all = Hours {
            open: 0,
            close: 24 * 60,
        };
        hours = WEEK.into_iter().map(|d| (d, all)).collect();
    }
    if input.holidays.len() > 1000 {
        return Err(AppError::field("calendar", "at most 1000 holidays"));
    }
    Calendar::new(
        input.time_zone.as_deref().unwrap_or("UTC"),
        &hours,
        input.holidays.iter().copied(),
    )
    .map_err(|e| AppError::field("calendar", e.to_string()))
}

pub(super) fn hours_json(calendar: &Calendar) -> Value {
    Value::Array(
        calendar
            .hours()
            .into_iter()
            .map(|(d, h)| json!({"day": weekday_name(d), "open": h.open_text(), "close": h.close_text()}))
            .collect(),
    )
}

fn parse_weekday(name: &str) -> Option<Weekday> {
    WEEK.into_iter().find(|d| weekday_name(*d) == name)
}

/// The calendar a stored row describes.
pub fn stored_calendar(row: &sla_policy::Model) -> AppResult<CalendarInput> {
    let bad = || AppError::internal(anyhow::anyhow!("sla policy {} has a bad calendar", row.id));
    let mut hours = Vec::new();
    for h in row.hours.as_array().ok_or_else(bad)? {
        let text = |k: &str| h.get(k).and_then(Value::as_str).map(str::to_string);
        hours.push(DayHours {
            day: text("day")
                .as_deref()
                .and_then(parse_weekday)
                .ok_or_else(bad)?,
            open: text("open").ok_or_else(bad)?,
            close: text("close").ok_or_else(bad)?,
        });
    }
    let mut holidays = Vec::new();
    for d in row.holidays.as_array().ok_or_else(bad)? {
        let d = d
            .as_str()
            .and_then(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .ok_or_else(bad)?;
        holidays.push(d);
    }
    Ok(CalendarInput {
        time_zone: Some(row.time_zone.clone()),
        hours,
        holidays,
    })
}
