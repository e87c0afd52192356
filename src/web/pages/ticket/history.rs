//! The ticket page's History, in words: "Alice assigned this to Bob · 5 min ago", "Priority raised from Low
//! to High", "First response target missed". Told from the typed happenings of the records the viewer may
//! read ([`audit::story`]); names are looked up as the viewer may see them.
use crate::auth::Actor;
use crate::domain::TicketStatus;
use crate::error::AppResult;
use crate::service::audit;
use crate::service::audit::story::{self, Happening, SlaTarget};
use crate::service::{assets, projects, users, Take};
use crate::web::pages::{display_name, label};
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
pub fn ago(at: DateTime<Utc>, now: DateTime<Utc>, zone: chrono_tz::Tz) -> String {
    let seconds = (now - at).num_seconds().max(0);
    match seconds {
        0..=59 => "just now".to_string(),
        60..=3599 => format!("{} min ago", seconds / 60),
        3600..=86_399 => format!("{} h ago", seconds / 3600),
        86_400..=172_799 => "yesterday".to_string(),
        _ if seconds < 30 * 86_400 => format!("{} days ago", seconds / 86_400),
        _ => at.with_timezone(&zone).format("%b %-d, %Y").to_string(),
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
    fn person(&self, id: Option<i32>) -> String {
        id.and_then(|id| self.people.get(&id).cloned())
            .unwrap_or_else(|| "someone".to_string())
    }

    fn of(map: &HashMap<i32, String>, id: Option<i32>) -> String {
        id.and_then(|id| map.get(&id).cloned())
            .unwrap_or_else(|| "one no longer listed".to_string())
    }
}

fn target(t: SlaTarget) -> &'static str {
    match t {
        SlaTarget::FirstResponse => "first response",
        SlaTarget::Resolution => "resolution",
    }
}

/// The sentence of one happening; `who` did it (the viewer's own changes say "You").
fn sentence(who: &str, happening: &Happening, names: &Names) -> String {
    use Happening::*;
    match happening {
        Opened => format!("{who} opened this ticket"),
        Status {
            to: TicketStatus::Resolved,
            ..
        } => format!("{who} resolved this"),
        Status {
            to: TicketStatus::Closed,
            ..
        } => format!("{who} closed this"),
        Status {
            from: TicketStatus::Resolved | TicketStatus::Closed,
            to,
        } => format!("{who} reopened this as {}", label(to.as_str())),
        Status { from, to } => format!(
            "{who} moved this from {} to {}",
            label(from.as_str()),
            label(to.as_str())
        ),
        Priority { from, to } => {
            let rank = |p: &crate::domain::Priority| {
                crate::domain::Priority::ALL.iter().position(|q| q == p)
            };
            let way = if rank(to) > rank(from) {
                "raised"
            } else {
                "lowered"
            };
            format!(
                "{who} {way} the priority from {} to {}",
                label(from.as_str()),
                label(to.as_str())
            )
        }
        Assignee { to: Some(to), .. } => {
            format!("{who} assigned this to {}", names.person(Some(*to)))
        }
        Assignee { from, to: None } => {
            format!("{who} unassigned {}", names.person(*from))
        }
        Group { to: Some(to), .. } => format!(
            "{who} assigned this to the group {}",
            Names::of(&names.groups, Some(*to))
        ),
        Group { from, to: None } => format!(
            "{who} took this from the group {}",
            Names::of(&names.groups, *from)
        ),
        Project { to: Some(to), .. } => format!(
            "{who} moved this to the project {}",
            Names::of(&names.projects, Some(*to))
        ),
        Project { from, to: None } => format!(
            "{who} took this out of the project {}",
            Names::of(&names.projects, *from)
        ),
        Title { to } => format!("{who} renamed this to “{to}”"),
        Description => format!("{who} edited the description"),
        DueDate { to: Some(date) } => format!("{who} set the due date to {date}"),
        DueDate { to: None } => format!("{who} removed the due date"),
        Archived => format!("{who} archived this"),
        Restored => format!("{who} restored this"),
        AssetLinked(id) => format!(
            "{who} linked the asset {}",
            Names::of(&names.assets, Some(*id))
        ),
        AssetUnlinked(id) => format!(
            "{who} unlinked the asset {}",
            Names::of(&names.assets, Some(*id))
        ),
        CommentAdded { internal: true } => format!("{who} added an internal note"),
        CommentAdded { internal: false } => format!("{who} commented"),
        CommentEdited { internal: true } => format!("{who} edited an internal note"),
        CommentEdited { internal: false } => format!("{who} edited a comment"),
        CommentDeleted { internal: true } => format!("{who} deleted an internal note"),
        CommentDeleted { internal: false } => format!("{who} deleted a comment"),
        FileAdded { name } => format!("{who} attached {name}"),
        FileRemoved { name } => format!("{who} removed the file {name}"),
        FieldSet { key, to: Some(to) } => format!("{who} set {key} to “{to}”"),
        FieldSet { key, to: None } => format!("{who} cleared {key}"),
        Tagged { added, removed } => match (added.is_empty(), removed.is_empty()) {
            (false, true) => format!("{who} tagged this {}", added.join(", ")),
            (true, false) => format!("{who} removed the tags {}", removed.join(", ")),
            _ => format!(
                "{who} tagged this {} and removed {}",
                added.join(", "),
                removed.join(", ")
            ),
        },
        Linked(how) => format!(
            "{who} linked this ({}) to another ticket",
            label(how).to_lowercase()
        ),
        Unlinked(how) => format!(
            "{who} removed a link ({}) to another ticket",
            label(how).to_lowercase()
        ),
        TimeLogged(m) => format!("{who} logged {}h {:02}m", m / 60, m % 60),
        TimeRemoved(m) => format!("{who} removed {}h {:02}m of logged time", m / 60, m % 60),
        FollowerAdded(name) => format!("{who} added {name} to the followers"),
        FollowerRemoved => format!("{who} removed a follower"),
        MergedInto(number) => format!("{who} merged this ticket into {number}"),
        MergedFrom(number) => format!("{who} merged {number} into this ticket"),
        SplitTo(number) => format!("{who} split comments off into {number}"),
        SplitFrom(number) => format!("{who} split this off {number}"),
        SlaAtRisk(t) => format!("The {} target is close", target(*t)),
        SlaBreached(t) => {
            let mut s = target(*t).to_string();
            s[..1].make_ascii_uppercase();
            format!("{s} target missed")
        }
        Unknown(..) => format!("{who} changed this"),
    }
}

/// The history of `t` as `actor` may read it, oldest first, in words.
pub async fn lines(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
    zone: chrono_tz::Tz,
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
        let who = match entry.actor_id {
            _ if entry.rule.is_some() && actor.is_team() => {
                format!("The rule “{}”", entry.rule.as_deref().unwrap_or_default())
            }
            Some(id) if id == actor.id() => "You".to_string(),
            Some(id) => names.person(Some(id)),
            None => "The service".to_string(),
        };
        for h in &entry.happenings {
            out.push(HistoryLine {
                at: crate::web::pages::local_date(&entry.at, zone),
                iso: entry.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                ago: ago(entry.at, now, zone),
                sentence: sentence(&who, h, &names),
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
        assert_eq!(ago(before(5), now, chrono_tz::UTC), "just now");
        assert_eq!(ago(before(300), now, chrono_tz::UTC), "5 min ago");
        assert_eq!(ago(before(7200), now, chrono_tz::UTC), "2 h ago");
        assert_eq!(ago(before(90_000), now, chrono_tz::UTC), "yesterday");
        assert_eq!(ago(before(3 * 86_400), now, chrono_tz::UTC), "3 days ago");
    }

    #[test]
    fn every_happening_has_a_sentence() {
        let names = Names {
            people: HashMap::from([(2, "Bob".to_string())]),
            groups: HashMap::new(),
            projects: HashMap::new(),
            assets: HashMap::new(),
        };
        let said = |h: Happening| sentence("Alice", &h, &names);
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
    }
}
