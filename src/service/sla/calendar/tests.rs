//! Business-hours arithmetic checked against examples and properties.
use super::*;
use proptest::prelude::*;

/// Open Monday to Friday from `open` to `close` in `tz`.
pub(crate) fn weekdays(tz: &str, open: &str, close: &str, holidays: &[NaiveDate]) -> Calendar {
    let h = Hours::parse(open, close).unwrap_or(Hours { open: 0, close: 1 });
    let hours: Vec<_> = WEEK[..5].iter().map(|d| (*d, h)).collect();
    match Calendar::new(tz, &hours, holidays.iter().copied()) {
        Ok(c) => c,
        Err(e) => panic!("calendar: {e}"),
    }
}

fn at(tz: &str, local: &str) -> DateTime<Utc> {
    let tz: Tz = tz.parse().unwrap_or(Tz::UTC);
    let naive = chrono::NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M")
        .unwrap_or_else(|e| panic!("{local}: {e}"));
    match tz.from_local_datetime(&naive).earliest() {
        Some(t) => t.with_timezone(&Utc),
        None => panic!("{local} does not exist"),
    }
}

fn date(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn a_friday_afternoon_target_lands_on_monday() {
    let cal = weekdays("Europe/Berlin", "09:00", "17:00", &[]);
    // Friday 2026-11-27 16:00 local, four business hours: one on Friday, three on Monday.
    let due = cal.add(at("Europe/Berlin", "2026-11-27 16:00"), Duration::hours(4));
    assert_eq!(due, Some(at("Europe/Berlin", "2026-11-30 12:00")));
}

#[test]
fn holidays_are_skipped() {
    let cal = weekdays(
        "Europe/Berlin",
        "09:00",
        "17:00",
        &[date("2026-12-24"), date("2026-12-25")],
    );
    let due = cal.add(at("Europe/Berlin", "2026-12-23 16:00"), Duration::hours(2));
    assert_eq!(due, Some(at("Europe/Berlin", "2026-12-28 10:00")));
}

#[test]
fn a_start_before_opening_counts_from_the_opening() {
    let cal = weekdays("America/New_York", "09:00", "17:00", &[]);
    let due = cal.add(
        at("America/New_York", "2026-11-25 06:30"),
        Duration::minutes(30),
    );
    assert_eq!(due, Some(at("America/New_York", "2026-11-25 09:30")));
    // A target that fills the day exactly ends at the close, not the next morning.
    let due = cal.add(
        at("America/New_York", "2026-11-25 06:30"),
        Duration::hours(8),
    );
    assert_eq!(due, Some(at("America/New_York", "2026-11-25 17:00")));
}

#[test]
fn a_spring_forward_night_is_an_hour_shorter() {
    // Berlin moved its clocks from 02:00 to 03:00 on 2026-03-29.
    let mut hours = Vec::new();
    for d in [Weekday::Sat, Weekday::Sun, Weekday::Mon] {
        hours.push((
            d,
            Hours {
                open: 0,
                close: DAY_MINUTES,
            },
        ));
    }
    let cal = match Calendar::new("Europe/Berlin", &hours, []) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let sunday = cal.between(
        at("Europe/Berlin", "2026-03-29 00:00"),
        at("Europe/Berlin", "2026-03-30 00:00"),
    );
    assert_eq!(sunday, Duration::hours(23));
    let due = cal.add(at("Europe/Berlin", "2026-03-29 01:00"), Duration::hours(2));
    assert_eq!(due, Some(at("Europe/Berlin", "2026-03-29 04:00")));
}

#[test]
fn a_fall_back_business_day_is_counted_in_elapsed_time() {
    // New York moved its clocks back from 02:00 to 01:00 on Sunday 2026-11-01; open 00:00-08:00 Sunday
    // is nine elapsed hours.
    let cal = match Calendar::new(
        "America/New_York",
        &[(
            Weekday::Sun,
            Hours {
                open: 0,
                close: 8 * 60,
            },
        )],
        [],
    ) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let day = cal.between(
        at("America/New_York", "2026-11-01 00:00"),
        at("America/New_York", "2026-11-02 00:00"),
    );
    assert_eq!(day, Duration::hours(9));
}

#[test]
fn bad_calendars_are_refused() {
    assert!(Calendar::new(
        "Mars/Olympus",
        &[(Weekday::Mon, Hours { open: 0, close: 60 })],
        []
    )
    .is_err());
    assert!(Calendar::new("UTC", &[], []).is_err());
    assert!(Hours::parse("17:00", "09:00").is_err());
    assert!(Hours::parse("9:00", "17:00").is_err());
    assert!(Hours::parse("09:00", "24:01").is_err());
    assert_eq!(
        Hours::parse("00:00", "24:00").map(|h| h.close_text()),
        Ok("24:00".to_string())
    );
}

fn zone() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("Europe/Berlin"),
        Just("America/New_York"),
        Just("UTC"),
        Just("Asia/Kolkata")
    ]
}

prop_compose! {
    fn calendar()(
        tz in zone(),
        days in proptest::collection::vec((0u32..7, 0u32..(23 * 60), 60u32..(12 * 60)), 1..7),
        holidays in proptest::collection::vec(0i64..120, 0..12),
    ) -> Calendar {
        let mut hours: Vec<(Weekday, Hours)> = Vec::new();
        for (d, open, len) in days {
            let day = Weekday::try_from(d as u8).unwrap_or(Weekday::Mon);
            if hours.iter().all(|(w, _)| *w != day) {
                hours.push((day, Hours { open, close: (open + len).min(DAY_MINUTES) }));
            }
        }
        let base = date("2026-01-01");
        let holidays = holidays.into_iter().map(|n| base + Duration::days(n));
        Calendar::new(tz, &hours, holidays).unwrap_or_else(|_| Calendar::always())
    }
}

/// Instants through 2026, so the spring and autumn clock changes of both zones are crossed often.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..(365 * 24 * 60)).prop_map(|m| at("UTC", "2026-01-01 00:00") + Duration::minutes(m))
}

fn duration() -> impl Strategy<Value = Duration> {
    (1i64..(60 * 60 * 60)).prop_map(Duration::seconds)
}

proptest! {
    #[test]
    fn measuring_what_was_added_gives_it_back(cal in calendar(), start in instant(), d in duration()) {
        let due = cal.add(start, d);
        prop_assert!(due.is_some());
        let due = due.unwrap_or(start);
        prop_assert_eq!(cal.between(start, due), d);
    }

    #[test]
    fn a_due_time_is_never_in_closed_hours(cal in calendar(), start in instant(), d in duration()) {
        let due = cal.add(start, d).unwrap_or(start);
        prop_assert!(cal.is_open_at(due), "{due} is closed in {cal:?}");
    }

    #[test]
    fn adding_in_two_steps_equals_adding_once(cal in calendar(), start in instant(), a in duration(), b in duration()) {
        let once = cal.add(start, a + b);
        let twice = cal.add(start, a).and_then(|mid| cal.add(mid, b));
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn business_time_never_exceeds_elapsed_time(cal in calendar(), a in instant(), b in instant()) {
        let (from, to) = if a <= b { (a, b) } else { (b, a) };
        let business = cal.between(from, to);
        prop_assert!(business >= Duration::zero() && business <= to - from);
        // Splitting an interval splits its business time.
        let mid = from + (to - from) / 2;
        prop_assert_eq!(cal.between(from, mid) + cal.between(mid, to), business);
    }

    #[test]
    fn a_pause_pushes_the_due_time_by_its_business_time(
        cal in calendar(), start in instant(), d in duration(), pause_at in 0i64..(200 * 3600), pause_len in 0i64..(200 * 3600),
    ) {
        // A clock paused from p to q, then due `d` of running business time after start: the due time is
        // `start + d + business(p, q)`, and the running time measured up to it, less the pause, is `d`.
        let p = start + Duration::seconds(pause_at);
        let q = p + Duration::seconds(pause_len);
        let paused = cal.between(p, q);
        let due = cal.add(start, d + paused).unwrap_or(start);
        let running = cal.between(start, due) - (cal.between(start, due.min(q)) - cal.between(start, due.min(p)));
        if due >= q {
            prop_assert_eq!(running, d);
        }
    }
}
