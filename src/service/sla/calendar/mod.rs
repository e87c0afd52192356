//! Business-hours arithmetic: a calendar of opening hours per weekday in a named time zone, with holidays,
//! that adds business time to an instant and measures the business time between two instants.
//!
//! Pure: no database, no clock. Hours are local wall-clock times; a day's window is turned into instants
//! through the zone, so a daylight-saving change shortens or lengthens that day's window by the hour the
//! clocks moved.
use chrono::offset::LocalResult;
use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use std::collections::BTreeSet;

/// How many days past the start an addition looks for open hours before giving up; a calendar with open
/// hours in every week never comes near it.
const HORIZON_DAYS: u32 = 3700;

/// Minutes in a day: a window may close at `24:00`.
const DAY_MINUTES: u32 = 24 * 60;

/// The days of the week, Monday first.
pub const WEEK: [Weekday; 7] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
    Weekday::Sat,
    Weekday::Sun,
];

/// Opening hours of one weekday, in minutes since local midnight: `open < close <= 1440`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hours {
    /// Opening minute.
    pub open: u32,
    /// Closing minute (1440 = midnight at the end of the day).
    pub close: u32,
}

impl Hours {
    /// Parse `HH:MM` opening and closing times (`24:00` allowed for the close); the field named in errors
    /// is `hours`.
    pub fn parse(open: &str, close: &str) -> Result<Hours, String> {
        let open = parse_minute(open)?;
        let close = parse_minute(close)?;
        if open >= close || open >= DAY_MINUTES {
            return Err(format!(
                "opening time {} must be before closing time {}",
                format_minute(open),
                format_minute(close)
            ));
        }
        Ok(Hours { open, close })
    }

    /// The opening time as `HH:MM`.
    pub fn open_text(&self) -> String {
        format_minute(self.open)
    }

    /// The closing time as `HH:MM`.
    pub fn close_text(&self) -> String {
        format_minute(self.close)
    }
}

fn parse_minute(text: &str) -> Result<u32, String> {
    let bad = || format!("{text:?} is not a time of day (HH:MM, 00:00 to 24:00)");
    let (h, m) = text.trim().split_once(':').ok_or_else(bad)?;
    if h.len() != 2 || m.len() != 2 {
        return Err(bad());
    }
    let h: u32 = h.parse().map_err(|_| bad())?;
    let m: u32 = m.parse().map_err(|_| bad())?;
    let minute = h * 60 + m;
    if m >= 60 || minute > DAY_MINUTES {
        return Err(bad());
    }
    Ok(minute)
}

fn format_minute(minute: u32) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// Business hours in a time zone, with holidays.
#[derive(Debug, Clone, PartialEq)]
pub struct Calendar {
    tz: Tz,
    /// Monday first; `None` is a closed day.
    hours: [Option<Hours>; 7],
    holidays: BTreeSet<NaiveDate>,
}

impl Calendar {
    /// A calendar open in `hours` (by weekday; a weekday not named is closed) in the IANA zone `time_zone`,
    /// closed on `holidays`. It must be open at least one weekday.
    pub fn new(
        time_zone: &str,
        hours: &[(Weekday, Hours)],
        holidays: impl IntoIterator<Item = NaiveDate>,
    ) -> Result<Calendar, CalendarError> {
        let tz: Tz = time_zone
            .parse()
            .map_err(|_| CalendarError::TimeZone(time_zone.to_string()))?;
        let mut week = [None; 7];
        for (day, h) in hours {
            let slot = &mut week[day.num_days_from_monday() as usize];
            if slot.is_some() {
                return Err(CalendarError::Hours(format!("{day} is given twice")));
            }
            *slot = Some(*h);
        }
        if week.iter().all(Option::is_none) {
            return Err(CalendarError::Hours(
                "the calendar must be open on at least one weekday".to_string(),
            ));
        }
        Ok(Calendar {
            tz,
            hours: week,
            holidays: holidays.into_iter().collect(),
        })
    }

    /// Open around the clock every day in UTC, without holidays.
    pub fn always() -> Calendar {
        let all = Hours {
            open: 0,
            close: DAY_MINUTES,
        };
        Calendar {
            tz: Tz::UTC,
            hours: [Some(all); 7],
            holidays: BTreeSet::new(),
        }
    }

    /// The IANA name of the zone.
    pub fn time_zone(&self) -> &str {
        self.tz.name()
    }

    /// Opening hours by weekday, Monday first (closed days left out).
    pub fn hours(&self) -> Vec<(Weekday, Hours)> {
        let mut day = Weekday::Mon;
        let mut out = Vec::new();
        for h in self.hours {
            if let Some(h) = h {
                out.push((day, h));
            }
            day = day.succ();
        }
        out
    }

    /// The holidays, in date order.
    pub fn holidays(&self) -> impl Iterator<Item = NaiveDate> + '_ {
        self.holidays.iter().copied()
    }

    /// The instant of a local wall-clock time: the earlier of two when the clocks went back, the instant
    /// the clocks jumped to when they went forward past it.
    fn instant(&self, day: NaiveDate, minute: u32) -> DateTime<Utc> {
        let local = day.and_time(NaiveTime::MIN) + Duration::minutes(i64::from(minute));
        match self.tz.from_local_datetime(&local) {
            LocalResult::Single(t) | LocalResult::Ambiguous(t, _) => t.with_timezone(&Utc),
            LocalResult::None => {
                // A time skipped by a forward jump: read it with the offset in force before the jump.
                let before = self
                    .tz
                    .from_local_datetime(&(local - Duration::hours(3)))
                    .earliest();
                let offset = before.map_or(0, |b| {
                    i64::from(chrono::Offset::fix(b.offset()).local_minus_utc())
                });
                (local - Duration::seconds(offset)).and_utc()
            }
        }
    }

    /// The open window of a local date, as instants, or `None` when the day is closed.
    fn window(&self, day: NaiveDate) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        if self.holidays.contains(&day) {
            return None;
        }
        let h = self.hours[day.weekday().num_days_from_monday() as usize]?;
        let open = self.instant(day, h.open);
        let close = self.instant(day, h.close);
        (close > open).then_some((open, close))
    }

    fn local_date(&self, t: DateTime<Utc>) -> NaiveDate {
        t.with_timezone(&self.tz).date_naive()
    }

    /// The instant `business` of open time after `start`; `None` only when no open hours come within
    /// about ten years. A positive duration ends inside a window or at its close, never in closed hours.
    pub fn add(&self, start: DateTime<Utc>, business: Duration) -> Option<DateTime<Utc>> {
        if business <= Duration::zero() {
            return Some(start);
        }
        let mut remaining = business;
        let mut day = self.local_date(start).pred_opt()?;
        for _ in 0..HORIZON_DAYS {
            if let Some((open, close)) = self.window(day) {
                let from = open.max(start);
                if close > from {
                    let available = close - from;
                    if remaining <= available {
                        return Some(from + remaining);
                    }
                    remaining -= available;
                }
            }
            day = day.succ_opt()?;
        }
        None
    }

    /// The open time between `from` and `to` (zero when `to` is not after `from`).
    pub fn between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Duration {
        if to <= from {
            return Duration::zero();
        }
        let mut total = Duration::zero();
        let (Some(mut day), Some(last)) = (
            self.local_date(from).pred_opt(),
            self.local_date(to).succ_opt(),
        ) else {
            return total;
        };
        while day <= last {
            if let Some((open, close)) = self.window(day) {
                let (a, b) = (open.max(from), close.min(to));
                if b > a {
                    total += b - a;
                }
            }
            let Some(next) = day.succ_opt() else { break };
            day = next;
        }
        total
    }

    /// Whether `t` is inside open hours (a window's close counts as inside, its open does not).
    pub fn is_open_at(&self, t: DateTime<Utc>) -> bool {
        let day = self.local_date(t);
        [day.pred_opt(), Some(day), day.succ_opt()]
            .into_iter()
            .flatten()
            .filter_map(|d| self.window(d))
            .any(|(open, close)| open < t && t <= close)
    }
}

/// Why a calendar was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CalendarError {
    /// Not an IANA time zone name.
    TimeZone(String),
    /// Hours that cannot be used.
    Hours(String),
}

impl std::fmt::Display for CalendarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalendarError::TimeZone(name) => {
                write!(f, "{name:?} is not a known time zone (e.g. Europe/Berlin)")
            }
            CalendarError::Hours(why) => f.write_str(why),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
