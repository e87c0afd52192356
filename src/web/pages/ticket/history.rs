//! The ticket page's History, in words: "Alice assigned this to Bob · 5 min ago", "Priority raised from Low
//! to High", "First response target missed". Told from the typed happenings of the records the viewer may
//! read ([`audit::story`]); names are looked up as the viewer may see them.
use crate::auth::Actor;
use crate::domain::TicketStatus;
use crate::error::AppResult;
use crate::service::audit;
use crate::service::audit::story::{self, Happening, SlaTarget};
use crate::service::{assets, projects, users, Take};
use crate::web::pages::{display_name, Lang};
use chrono::{DateTime, Utc};
use entity::ticket;
use sea_orm::ConnectionTrait;
use std::collections::HashMap;

/// One line of the history.
pub struct HistoryLine {
    /// When, as an absolute date (the title of the relative one).
    pub at: String,
    /// When, machine-readable.
    pub iso: String,
    /// When, relative to now: "5 min ago".
    pub ago: String,
    /// What happened, as a sentence.
    pub sentence: String,
}

/// "just now", "5 min ago", "3 h ago", "2 days ago", or the date for anything older than a month.
pub fn ago(at: DateTime<Utc>, now: DateTime<Utc>, zone: chrono_tz::Tz, lang: Lang) -> String {
    let seconds = (now - at).num_seconds().max(0);
    match seconds {
        0..=59 => lang.t("history-ago-now"),
        60..=3599 => lang.tn("history-ago-minutes", "n", seconds / 60),
        3600..=86_399 => lang.tn("history-ago-hours", "n", seconds / 3600),
        86_400..=172_799 => lang.t("history-ago-yesterday"),
        _ if seconds < 30 * 86_400 => lang.tn("history-ago-days", "n", seconds / 86_400),
        _ => at
            .with_timezone(&zone)
            .format(lang.day_format())
            .to_string(),
    }
}

/// Names the sentences need, looked up once for the whole history.
struct Names {
    people: HashMap<i32, String>,
    groups: HashMap<i32, String>,
    projects: HashMap<i32, String>,
    assets: HashMap<i32, String>,
}

impl Names {
    /// A person as the object of a sentence ("assigned this to Bob").
    fn person(&self, id: Option<i32>, lang: Lang) -> String {
        id.and_then(|id| self.people.get(&id).cloned())
            .unwrap_or_else(|| lang.t("history-someone"))
    }

    fn of(map: &HashMap<i32, String>, id: Option<i32>, lang: Lang) -> String {
        id.and_then(|id| map.get(&id).cloned())
            .unwrap_or_else(|| lang.t("history-unlisted"))
    }
}

/// How a link stands to the other ticket, as the link sentences put it: "child of".
fn link_kind(how: &str, lang: Lang) -> String {
    match how {
        "parent_of" => lang.t("history-link-parent-of"),
        "child_of" => lang.t("history-link-child-of"),
        "relates_to" => lang.t("history-link-relates-to"),
        "duplicate_of" => lang.t("history-link-duplicate-of"),
        "duplicated_by" => lang.t("history-link-duplicated-by"),
        "blocks" => lang.t("history-link-blocks"),
        "blocked_by" => lang.t("history-link-blocked-by"),
        other => lang.label(other).to_lowercase(),
    }
}

/// The sentence of one happening; `who` did it, as [`doer`] says it (the viewer's own changes say "You").
/// The sentence is the doer, then the deed: the catalogues tell every deed to follow its doer's words.
fn sentence(who: &str, happening: &Happening, names: &Names, lang: Lang) -> String {
    use Happening::*;
    let deed = match happening {
        Opened => lang.t("history-opened"),
        Status {
            to: TicketStatus::Resolved,
            ..
        } => lang.t("history-resolved"),
        Status {
            to: TicketStatus::Closed,
            ..
        } => lang.t("history-closed"),
        Status {
            from: TicketStatus::Resolved | TicketStatus::Closed,
            to,
        } => lang.t1("history-reopened", "status", lang.label(to.as_str())),
        Status { from, to } => lang.t2(
            "history-status",
            "from",
            lang.label(from.as_str()),
            "to",
            lang.label(to.as_str()),
        ),
        Priority { from, to } => {
            let rank = |p: &crate::domain::Priority| {
                crate::domain::Priority::ALL.iter().position(|q| q == p)
            };
            let id = if rank(to) > rank(from) {
                "history-priority-raised"
            } else {
                "history-priority-lowered"
            };
            lang.t2(
                id,
                "from",
                lang.label(from.as_str()),
                "to",
                lang.label(to.as_str()),
            )
        }
        Assignee { to: Some(to), .. } => {
            lang.t1("history-assigned", "name", names.person(Some(*to), lang))
        }
        Assignee { from, to: None } => {
            lang.t1("history-unassigned", "name", names.person(*from, lang))
        }
        Group { to: Some(to), .. } => lang.t1(
            "history-group-assigned",
            "name",
            Names::of(&names.groups, Some(*to), lang),
        ),
        Group { from, to: None } => lang.t1(
            "history-group-removed",
            "name",
            Names::of(&names.groups, *from, lang),
        ),
        Project { to: Some(to), .. } => lang.t1(
            "history-project-moved",
            "name",
            Names::of(&names.projects, Some(*to), lang),
        ),
        Project { from, to: None } => lang.t1(
            "history-project-removed",
            "name",
            Names::of(&names.projects, *from, lang),
        ),
        Title { to } => lang.t1("history-renamed", "title", to),
        Description => lang.t("history-description"),
        DueDate { to: Some(date) } => lang.t1("history-due-set", "date", date),
        DueDate { to: None } => lang.t("history-due-removed"),
        Archived => lang.t("history-archived"),
        Restored => lang.t("history-restored"),
        AssetLinked(id) => lang.t1(
            "history-asset-linked",
            "name",
            Names::of(&names.assets, Some(*id), lang),
        ),
        AssetUnlinked(id) => lang.t1(
            "history-asset-unlinked",
            "name",
            Names::of(&names.assets, Some(*id), lang),
        ),
        CommentAdded { internal: true } => lang.t("history-note-added"),
        CommentAdded { internal: false } => lang.t("history-comment-added"),
        CommentEdited { internal: true } => lang.t("history-note-edited"),
        CommentEdited { internal: false } => lang.t("history-comment-edited"),
        CommentDeleted { internal: true } => lang.t("history-note-deleted"),
        CommentDeleted { internal: false } => lang.t("history-comment-deleted"),
        FileAdded { name } => lang.t1("history-file-added", "name", name),
        FileRemoved { name } => lang.t1("history-file-removed", "name", name),
        FieldSet { key, to: Some(to) } => {
            // The value quoted first, as text: a number-like value ("1.50") stays as it was written.
            let value = lang.t1("history-field-value", "value", to);
            lang.t2("history-field-set", "key", key, "value", value)
        }
        FieldSet { key, to: None } => lang.t1("history-field-cleared", "key", key),
        Tagged { added, removed } => match (added.is_empty(), removed.is_empty()) {
            (false, true) => lang.t1("history-tags-added", "added", added.join(", ")),
            (true, false) => lang.t1("history-tags-removed", "removed", removed.join(", ")),
            _ => lang.t2(
                "history-tags-changed",
                "added",
                added.join(", "),
                "removed",
                removed.join(", "),
            ),
        },
        Linked(how) => lang.t1("history-linked", "how", link_kind(how, lang)),
        Unlinked(how) => lang.t1("history-unlinked", "how", link_kind(how, lang)),
        TimeLogged(m) => lang.t1("history-time-logged", "time", lang.duration(*m)),
        TimeRemoved(m) => lang.t1("history-time-removed", "time", lang.duration(*m)),
        FollowerAdded(name) => lang.t1("history-follower-added", "name", name),
        FollowerRemoved => lang.t("history-follower-removed"),
        MergedInto(number) => lang.t1("history-merged-into", "number", number),
        MergedFrom(number) => lang.t1("history-merged-from", "number", number),
        SplitTo(number) => lang.t1("history-split-to", "number", number),
        SplitFrom(number) => lang.t1("history-split-from", "number", number),
        // The service's clock speaks for itself: no doer.
        SlaAtRisk(SlaTarget::FirstResponse) => return lang.t("history-sla-at-risk-first-response"),
        SlaAtRisk(SlaTarget::Resolution) => return lang.t("history-sla-at-risk-resolution"),
        SlaBreached(SlaTarget::FirstResponse) => {
            return lang.t("history-sla-missed-first-response")
        }
        SlaBreached(SlaTarget::Resolution) => return lang.t("history-sla-missed-resolution"),
        Unknown(..) => lang.t("history-changed"),
    };
    format!("{who} {deed}")
}

/// Who did what a record tells, as the subject of its sentences: "You", "Alice", "The rule “Triage”".
fn doer(entry: &story::Told, actor: &Actor, names: &Names, lang: Lang) -> String {
    match entry.actor_id {
        _ if entry.rule.is_some() && actor.is_team() => lang.t1(
            "history-by-rule",
            "rule",
            entry.rule.as_deref().unwrap_or_default(),
        ),
        Some(id) if id == actor.id() => lang.t("history-by-you"),
        Some(id) => match names.people.get(&id) {
            Some(name) => lang.t1("history-by", "name", name),
            None => lang.t("history-by-someone"),
        },
        None => lang.t("history-by-service"),
    }
}

/// The history of `t` as `actor` may read it, oldest first, in words.
pub async fn lines(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
    zone: chrono_tz::Tz,
    lang: Lang,
) -> AppResult<Vec<HistoryLine>> {
    let told: Vec<story::Told> = audit::ticket_history(db, actor, t, 0, 200)
        .await?
        .iter()
        .map(story::tell)
        .collect();
    let mut people_ids = Vec::new();
    let mut asset_ids = Vec::new();
    for entry in &told {
        people_ids.extend(entry.actor_id);
        for h in &entry.happenings {
            match h {
                Happening::Assignee { from, to } => people_ids.extend(from.iter().chain(to)),
                Happening::AssetLinked(id) | Happening::AssetUnlinked(id) => asset_ids.push(*id),
                _ => {}
            }
        }
    }
    let people = users::people(db, actor, people_ids)
        .await?
        .into_iter()
        .map(|(id, u)| (id, display_name(&u)))
        .collect();
    let groups = users::list_groups(db, Take::All)
        .await?
        .into_iter()
        .map(|g| (g.id, g.name))
        .collect();
    let projects = projects::list(db)
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    let mut assets = HashMap::new();
    asset_ids.sort_unstable();
    asset_ids.dedup();
    for id in asset_ids {
        // The read already left out links to assets the viewer may not see.
        if let Ok(found) = assets::get(db, actor, id).await {
            assets.insert(id, found.name);
        }
    }
    let names = Names {
        people,
        groups,
        projects,
        assets,
    };
    let now = Utc::now();
    let mut out = Vec::new();
    for entry in told {
        let who = doer(&entry, actor, &names, lang);
        for h in &entry.happenings {
            out.push(HistoryLine {
                at: crate::web::pages::local_date(&entry.at, zone, lang),
                iso: entry.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                ago: ago(entry.at, now, zone, lang),
                sentence: sentence(&who, h, &names, lang),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_people_say_them() {
        let now = Utc::now();
        let before = |s: i64| now - chrono::Duration::seconds(s);
        assert_eq!(ago(before(5), now, chrono_tz::UTC, Lang::En), "just now");
        assert_eq!(ago(before(300), now, chrono_tz::UTC, Lang::En), "5 min ago");
        assert_eq!(ago(before(7200), now, chrono_tz::UTC, Lang::En), "2 h ago");
        assert_eq!(
            ago(before(90_000), now, chrono_tz::UTC, Lang::En),
            "yesterday"
        );
        assert_eq!(
            ago(before(3 * 86_400), now, chrono_tz::UTC, Lang::En),
            "3 days ago"
        );
    }

    #[test]
    fn every_happening_has_a_sentence() {
        let names = Names {
            people: HashMap::from([(2, "Bob".to_string())]),
            groups: HashMap::new(),
            projects: HashMap::new(),
            assets: HashMap::new(),
        };
        let said = |h: Happening| sentence("Alice", &h, &names, Lang::En);
        assert_eq!(
            said(Happening::Assignee {
                from: None,
                to: Some(2)
            }),
            "Alice assigned this to Bob"
        );
        assert_eq!(
            said(Happening::Priority {
                from: crate::domain::Priority::Low,
                to: crate::domain::Priority::High
            }),
            "Alice raised the priority from Low to High"
        );
        assert_eq!(
            said(Happening::SlaBreached(SlaTarget::FirstResponse)),
            "First response target missed"
        );
        assert_eq!(
            said(Happening::CommentAdded { internal: true }),
            "Alice added an internal note"
        );
        assert_eq!(said(Happening::TimeLogged(125)), "Alice logged 2h 05m");
        assert_eq!(
            said(Happening::FieldSet {
                key: "cost".to_string(),
                to: Some("1.50".to_string())
            }),
            "Alice set cost to “1.50”"
        );
        assert_eq!(
            said(Happening::Linked("child_of".to_string())),
            "Alice linked this (child of) to another ticket"
        );
        assert_eq!(
            said(Happening::SlaAtRisk(SlaTarget::Resolution)),
            "The resolution target is close"
        );
        assert_eq!(
            said(Happening::Assignee {
                from: Some(9),
                to: None
            }),
            "Alice unassigned someone"
        );
    }

    #[test]
    fn german_reads_as_german() {
        let now = Utc::now();
        let before = |s: i64| now - chrono::Duration::seconds(s);
        assert_eq!(
            ago(before(60), now, chrono_tz::UTC, Lang::De),
            "vor 1 Minute"
        );
        assert_eq!(
            ago(before(300), now, chrono_tz::UTC, Lang::De),
            "vor 5 Minuten"
        );
        assert_eq!(
            ago(before(7200), now, chrono_tz::UTC, Lang::De),
            "vor 2 Stunden"
        );
        assert_eq!(
            ago(before(3 * 86_400), now, chrono_tz::UTC, Lang::De),
            "vor 3 Tagen"
        );
        let names = Names {
            people: HashMap::from([(2, "Bob".to_string())]),
            groups: HashMap::new(),
            projects: HashMap::new(),
            assets: HashMap::new(),
        };
        let who = Lang::De.t1("history-by", "name", "Alice");
        let said = |h: Happening| sentence(&who, &h, &names, Lang::De);
        assert_eq!(
            said(Happening::Priority {
                from: crate::domain::Priority::Low,
                to: crate::domain::Priority::High
            }),
            "Alice hat die Priorität von Niedrig auf Hoch erhöht"
        );
        assert_eq!(
            said(Happening::TimeLogged(125)),
            "Alice hat 2 Std. 05 Min. erfasst"
        );
        assert_eq!(
            said(Happening::FieldSet {
                key: "cost".to_string(),
                to: Some("1.50".to_string())
            }),
            "Alice hat cost auf „1.50“ gesetzt"
        );
        assert_eq!(
            sentence(
                &Lang::De.t("history-by-you"),
                &Happening::Opened,
                &names,
                Lang::De
            ),
            "Sie haben dieses Ticket eröffnet"
        );
    }
}
