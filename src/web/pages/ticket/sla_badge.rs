//! The ticket page's service-level badges: one per target, never two that disagree — "First response due in
//! 25 min", "Resolution breached 2 h ago" — coloured from neutral to amber (at risk) to red (breached).
use super::history::ago;
use crate::service::sla::SlaView;
use crate::web::pages::{local_date, Lang};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// One target's badge.
pub struct TargetBadge {
    /// "First response" or "Resolution".
    pub target: String,
    /// "due in 25 min", "breached 2 h ago".
    pub text: String,
    /// The absolute time it is about.
    pub at: String,
    /// That time, to order badges by.
    pub when: DateTime<Utc>,
    /// `due`, `at-risk` or `breached`: the CSS class `sla-<tone>`.
    pub tone: &'static str,
}

/// The SLA part of the page.
pub struct SlaBadges {
    /// The policy's name.
    pub policy: String,
    /// A badge per target that is running or was breached.
    pub targets: Vec<TargetBadge>,
    /// The clock is stopped.
    pub paused: bool,
}

/// A stretch of time as people say it: "5 min", "2 h 05 min", "3 days 4 h".
pub fn span(minutes: i64, lang: Lang) -> String {
    let minutes = minutes.max(0);
    if minutes < 60 {
        lang.tn("sla-span-minutes", "n", minutes)
    } else if minutes < 24 * 60 {
        // The minutes keep their two digits: given as text, not as a number Fluent would write as "5".
        let rest = lang.t1("sla-span-minutes", "n", format!("{:02}", minutes % 60));
        lang.t2("sla-span-hours", "h", minutes / 60, "rest", rest)
    } else {
        let days = minutes / (24 * 60);
        let hours = minutes % (24 * 60) / 60;
        lang.t2("sla-span-days", "days", days, "hours", hours)
    }
}

fn badge(
    target: String,
    due: Option<DateTime<Utc>>,
    breached: Option<DateTime<Utc>>,
    at_risk: bool,
    now: DateTime<Utc>,
    zone: Tz,
    lang: Lang,
) -> Option<TargetBadge> {
    // A breach is what happened; a due time beside it would contradict it.
    if let Some(at) = breached {
        return Some(TargetBadge {
            target,
            text: lang.t1("sla-breached", "ago", ago(at, now, zone, lang)),
            at: local_date(&at, zone, lang),
            when: at,
            tone: "breached",
        });
    }
    let at = due?;
    let minutes = (at - now).num_minutes();
    let (text, tone) = if at <= now {
        let late = (now - at).num_minutes();
        let text = if late < 1 {
            lang.t("sla-due-now")
        } else {
            lang.t1("sla-overdue", "span", span(late, lang))
        };
        (text, "breached")
    } else {
        let text = if minutes < 1 {
            lang.t("sla-due-soon")
        } else {
            lang.t1("sla-due-in", "span", span(minutes, lang))
        };
        (text, if at_risk { "at-risk" } else { "due" })
    };
    Some(TargetBadge {
        target,
        text,
        at: local_date(&at, zone, lang),
        when: at,
        tone,
    })
}

/// The badges of a ticket's clock, as of `now`.
pub fn badges(v: &SlaView, now: DateTime<Utc>, zone: Tz, lang: Lang) -> SlaBadges {
    // The at-risk point is about the earlier running target.
    let next = v.next_due();
    let risky = |due: Option<DateTime<Utc>>| v.at_risk && due.is_some() && due == next;
    let targets = [
        badge(
            lang.t("sla-target-first-response"),
            v.first_response_due_at,
            v.first_response_breached_at,
            risky(v.first_response_due_at),
            now,
            zone,
            lang,
        ),
        badge(
            lang.t("sla-target-resolution"),
            v.resolution_due_at,
            v.resolution_breached_at,
            risky(v.resolution_due_at),
            now,
            zone,
            lang,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    SlaBadges {
        policy: v
            .policy
            .as_ref()
            .map(|p| p.name.clone())
            .unwrap_or_default(),
        targets,
        paused: v.paused_since.is_some(),
    }
}

/// The one badge a queue row has room for: a breach before a target at risk before one running, and among
/// those the one due (or breached) first.
pub fn most_urgent(v: &SlaView, now: DateTime<Utc>, zone: Tz, lang: Lang) -> Option<TargetBadge> {
    let rank = |tone: &str| match tone {
        "breached" => 0,
        "at-risk" => 1,
        _ => 2,
    };
    badges(v, now, zone, lang)
        .targets
        .into_iter()
        .min_by_key(|b| (rank(b.tone), b.when))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> SlaView {
        SlaView {
            policy: None,
            first_response_due_at: None,
            resolution_due_at: None,
            first_response_breached_at: None,
            resolution_breached_at: None,
            at_risk: false,
            paused_since: None,
            paused: chrono::Duration::zero(),
        }
    }

    #[test]
    fn a_target_says_one_thing() {
        let now = Utc::now();
        let mut v = view();
        // Breached, with a due time still set: only the breach is told.
        v.first_response_due_at = Some(now + chrono::Duration::minutes(8));
        v.first_response_breached_at = Some(now - chrono::Duration::hours(2));
        v.resolution_due_at = Some(now + chrono::Duration::minutes(25));
        v.at_risk = true;
        let b = badges(&v, now, chrono_tz::UTC, Lang::En);
        assert_eq!(b.targets.len(), 2);
        assert_eq!(b.targets[0].text, "breached 2 h ago");
        assert_eq!(b.targets[0].tone, "breached");
        assert_eq!(b.targets[1].text, "due in 25 min");
        assert_eq!(b.targets[1].tone, "due");
        // Running and close: amber.
        let mut v = view();
        v.resolution_due_at = Some(now + chrono::Duration::minutes(90));
        v.at_risk = true;
        assert_eq!(
            badges(&v, now, chrono_tz::UTC, Lang::En).targets[0].tone,
            "at-risk"
        );
        assert_eq!(
            badges(&v, now, chrono_tz::UTC, Lang::En).targets[0].text,
            "due in 1 h 30 min"
        );
        // Past due, no breach recorded yet: never "overdue by 0h 00m".
        v.resolution_due_at = Some(now - chrono::Duration::seconds(20));
        assert_eq!(
            badges(&v, now, chrono_tz::UTC, Lang::En).targets[0].text,
            "due now"
        );
    }

    #[test]
    fn a_queue_row_shows_the_most_urgent_target() {
        let now = Utc::now();
        let mut v = view();
        assert!(most_urgent(&v, now, chrono_tz::UTC, Lang::En).is_none());
        v.first_response_due_at = Some(now + chrono::Duration::minutes(50));
        v.resolution_due_at = Some(now + chrono::Duration::minutes(20));
        let b = most_urgent(&v, now, chrono_tz::UTC, Lang::En);
        let said = b.as_ref().map(|b| (b.target.as_str(), b.text.as_str()));
        assert_eq!(said, Some(("Resolution", "due in 20 min")));
        // A breach outranks a target due sooner.
        v.first_response_breached_at = Some(now - chrono::Duration::minutes(5));
        let b = most_urgent(&v, now, chrono_tz::UTC, Lang::En);
        let said = b
            .as_ref()
            .map(|b| (b.target.as_str(), b.text.as_str(), b.tone));
        assert_eq!(
            said,
            Some(("First response", "breached 5 min ago", "breached"))
        );
    }

    #[test]
    fn spans_read_as_people_say_them() {
        assert_eq!(span(5, Lang::En), "5 min");
        assert_eq!(span(125, Lang::En), "2 h 05 min");
        assert_eq!(span(24 * 60 + 240, Lang::En), "1 day 4 h");
        assert_eq!(span(3 * 24 * 60, Lang::En), "3 days 0 h");
    }

    #[test]
    fn german_badges() {
        let now = Utc::now();
        let mut v = view();
        v.first_response_breached_at = Some(now - chrono::Duration::hours(2));
        v.resolution_due_at = Some(now + chrono::Duration::minutes(25));
        let b = badges(&v, now, chrono_tz::UTC, Lang::De);
        assert_eq!(b.targets[0].target, "Erste Antwort");
        assert_eq!(b.targets[0].text, "vor 2 Stunden verpasst");
        assert_eq!(b.targets[1].target, "Lösung");
        assert_eq!(b.targets[1].text, "fällig in 25 Min.");
        assert_eq!(span(125, Lang::De), "2 Std. 05 Min.");
        assert_eq!(span(24 * 60 + 240, Lang::De), "1 Tag 4 Std.");
        assert_eq!(span(3 * 24 * 60, Lang::De), "3 Tage 0 Std.");
    }
}
