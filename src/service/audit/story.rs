//! A ticket's history as typed happenings, read from the audit records the viewer may see
//! ([`super::ticket_history`]): each record becomes what happened (assigned, priority raised, a target
//! missed), never column names. Doors put them in words; a record this module does not know becomes
//! [`Happening::Unknown`], which a test keeps from ever being written.
use crate::domain::{Priority, TicketStatus};
use entity::audit_event;
use serde_json::Value;

pub use entity::values::SlaTarget;

/// One thing that happened to a ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happening {
    /// The ticket was opened.
    Opened,
    /// The status moved.
    Status {
        /// Before.
        from: TicketStatus,
        /// After.
        to: TicketStatus,
    },
    /// The priority changed.
    Priority {
        /// Before.
        from: Priority,
        /// After.
        to: Priority,
    },
    /// The assignee changed (user ids; `None`: nobody).
    Assignee {
        /// Before.
        from: Option<i32>,
        /// After.
        to: Option<i32>,
    },
    /// The assigned group changed (group ids).
    Group {
        /// Before.
        from: Option<i32>,
        /// After.
        to: Option<i32>,
    },
    /// The project changed (project ids).
    Project {
        /// Before.
        from: Option<i32>,
        /// After.
        to: Option<i32>,
    },
    /// The title changed.
    Title {
        /// The new title.
        to: String,
    },
    /// The description changed.
    Description,
    /// The due date changed (`YYYY-MM-DD`, or none).
    DueDate {
        /// The new date.
        to: Option<String>,
    },
    /// Archived (deleted through the API).
    Archived,
    /// Restored from the archive.
    Restored,
    /// An asset was linked (asset id).
    AssetLinked(i32),
    /// An asset was unlinked (asset id).
    AssetUnlinked(i32),
    /// A comment was added.
    CommentAdded {
        /// An internal note.
        internal: bool,
    },
    /// A comment was edited.
    CommentEdited {
        /// It is (or was) an internal note.
        internal: bool,
    },
    /// A comment was deleted.
    CommentDeleted {
        /// It was an internal note.
        internal: bool,
    },
    /// A file was attached.
    FileAdded {
        /// Its name.
        name: String,
    },
    /// A file was removed.
    FileRemoved {
        /// Its name.
        name: String,
    },
    /// A service level target is close.
    SlaAtRisk(SlaTarget),
    /// A service level target was missed.
    SlaBreached(SlaTarget),
    /// A custom field's value was set (shown as text) or cleared.
    FieldSet {
        /// The field's key.
        key: String,
        /// The new value, in words; none: cleared.
        to: Option<String>,
    },
    /// Tags were put on or taken off.
    Tagged {
        /// Put on.
        added: Vec<String>,
        /// Taken off.
        removed: Vec<String>,
    },
    /// The ticket was linked to another (how it stands to it: `child_of`, `blocks`, …).
    Linked(String),
    /// A link to another ticket was removed (how it stood).
    Unlinked(String),
    /// Time was logged (minutes).
    TimeLogged(i64),
    /// A time entry was removed (minutes).
    TimeRemoved(i64),
    /// Someone was added to the followers (user name).
    FollowerAdded(String),
    /// Someone left the followers.
    FollowerRemoved,
    /// This ticket was merged into another (its number).
    MergedInto(String),
    /// Another ticket (its number) was merged into this one.
    MergedFrom(String),
    /// Comments were split off into a new ticket (its number).
    SplitTo(String),
    /// This ticket was split off another (its number).
    SplitFrom(String),
    /// A record this module does not know (`entity_type`, `action`).
    Unknown(String, String),
}

/// A history entry: when, who (`None`: the service itself) and what happened.
#[derive(Debug, Clone)]
pub struct Told {
    /// When.
    pub at: chrono::DateTime<chrono::Utc>,
    /// Who made the change.
    pub actor_id: Option<i32>,
    /// The name of the automation rule that made it, when a rule did (the record's `via`).
    pub rule: Option<String>,
    /// What happened, in the order worth telling.
    pub happenings: Vec<Happening>,
}

/// The `[old, new]` pair of `field` in a record's changes.
fn pair<'a>(changes: &'a Value, field: &str) -> Option<(&'a Value, &'a Value)> {
    match changes.get(field)?.as_array()?.as_slice() {
        [old, new] => Some((old, new)),
        _ => None,
    }
}

fn id(v: &Value) -> Option<i32> {
    v.as_i64().and_then(|n| i32::try_from(n).ok())
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// The field changes of a ticket record, in the order they are told.
fn field_changes(changes: &Value) -> Vec<Happening> {
    let mut out = Vec::new();
    if let Some((old, new)) = pair(changes, "status") {
        let parse = |v: &Value| v.as_str().and_then(|s| TicketStatus::parse(s).ok());
        if let (Some(from), Some(to)) = (parse(old), parse(new)) {
            out.push(Happening::Status { from, to });
        }
    }
    if let Some((old, new)) = pair(changes, "assignee_id") {
        out.push(Happening::Assignee {
            from: id(old),
            to: id(new),
        });
    }
    if let Some((old, new)) = pair(changes, "assigned_group_id") {
        out.push(Happening::Group {
            from: id(old),
            to: id(new),
        });
    }
    if let Some((old, new)) = pair(changes, "priority") {
        let parse = |v: &Value| v.as_str().and_then(|s| Priority::parse(s).ok());
        if let (Some(from), Some(to)) = (parse(old), parse(new)) {
            out.push(Happening::Priority { from, to });
        }
    }
    if let Some((_, new)) = pair(changes, "title") {
        out.push(Happening::Title {
            to: text(new).unwrap_or_default(),
        });
    }
    if pair(changes, "description").is_some() {
        out.push(Happening::Description);
    }
    if let Some((old, new)) = pair(changes, "project_id") {
        out.push(Happening::Project {
            from: id(old),
            to: id(new),
        });
    }
    if let Some((_, new)) = pair(changes, "due_date") {
        out.push(Happening::DueDate { to: text(new) });
    }
    out
}

fn sla_target(changes: &Value) -> SlaTarget {
    let names_resolution = changes
        .as_object()
        .is_some_and(|m| m.keys().any(|k| k.contains("resolution")));
    if names_resolution {
        SlaTarget::Resolution
    } else {
        SlaTarget::FirstResponse
    }
}

/// The name of the rule a record's changes say made them (`"via": {"rule": id, "name": …}`).
pub fn rule_name(changes: &Value) -> Option<String> {
    changes
        .get("via")?
        .get("name")?
        .as_str()
        .map(str::to_string)
}

/// What `record` (an entry of a ticket's history) tells.
pub fn tell(record: &audit_event::Model) -> Told {
    let changes = &record.changes;
    let internal = record.is_internal;
    let file = |old: bool| {
        pair(changes, "filename")
            .and_then(|(o, n)| text(if old { o } else { n }))
            .unwrap_or_default()
    };
    let happenings = match (record.entity_type.as_str(), record.action.as_str()) {
        ("ticket", "create") => {
            // Opened, and whom and where it went from the start.
            let from_the_start = field_changes(changes).into_iter().filter(|h| {
                matches!(
                    h,
                    Happening::Assignee { to: Some(_), .. }
                        | Happening::Group { to: Some(_), .. }
                        | Happening::Project { to: Some(_), .. }
                )
            });
            std::iter::once(Happening::Opened)
                .chain(from_the_start)
                .collect()
        }
        ("ticket", "update" | "status_change") => field_changes(changes),
        ("ticket", "archive") => vec![Happening::Archived],
        ("ticket", "restore") => vec![Happening::Restored],
        ("ticket", "link_asset") => pair(changes, "asset_id")
            .and_then(|(_, new)| id(new))
            .map(Happening::AssetLinked)
            .into_iter()
            .collect(),
        ("ticket", "unlink_asset") => pair(changes, "asset_id")
            .and_then(|(old, _)| id(old))
            .map(Happening::AssetUnlinked)
            .into_iter()
            .collect(),
        ("ticket", "fields") => changes
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(name, change)| {
                let key = name.strip_prefix("custom_fields.")?.to_string();
                let to = change
                    .as_array()
                    .and_then(|c| c.get(1))
                    .and_then(|v| match v {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        Value::Array(items) => Some(
                            items
                                .iter()
                                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                                .collect::<Vec<_>>()
                                .join(", "),
                        ),
                        Value::Bool(true) => Some("yes".to_string()),
                        Value::Bool(false) => Some("no".to_string()),
                        other => Some(other.to_string()),
                    });
                Some(Happening::FieldSet { key, to })
            })
            .collect(),
        ("ticket", "tag") => {
            let list = |v: &Value| -> Vec<String> {
                v.as_array()
                    .map(|a| a.iter().filter_map(text).collect())
                    .unwrap_or_default()
            };
            let (before, after) = pair(changes, "tags")
                .map(|(o, n)| (list(o), list(n)))
                .unwrap_or_default();
            vec![Happening::Tagged {
                added: after
                    .iter()
                    .filter(|t| !before.contains(t))
                    .cloned()
                    .collect(),
                removed: before
                    .iter()
                    .filter(|t| !after.contains(t))
                    .cloned()
                    .collect(),
            }]
        }
        ("ticket", action @ ("link" | "unlink")) => {
            let how = changes
                .as_object()
                .and_then(|m| m.keys().find(|k| *k != "via").cloned())
                .unwrap_or_default();
            if action == "link" {
                vec![Happening::Linked(how)]
            } else {
                vec![Happening::Unlinked(how)]
            }
        }
        ("ticket", action @ ("log_time" | "delete_time")) => {
            let minutes = pair(changes, "minutes")
                .and_then(|(o, n)| o.as_i64().or(n.as_i64()))
                .unwrap_or_default();
            if action == "log_time" {
                vec![Happening::TimeLogged(minutes)]
            } else {
                vec![Happening::TimeRemoved(minutes)]
            }
        }
        ("ticket", "follow") => vec![Happening::FollowerAdded(
            pair(changes, "follower")
                .and_then(|(_, n)| text(n))
                .unwrap_or_default(),
        )],
        ("ticket", "unfollow") => vec![Happening::FollowerRemoved],
        ("ticket", "merge") => {
            let number = |key: &str| pair(changes, key).and_then(|(_, n)| text(n));
            match (number("merged_into"), number("merged_from")) {
                (Some(into), _) => vec![Happening::MergedInto(into)],
                (_, Some(from)) => vec![Happening::MergedFrom(from)],
                _ => Vec::new(),
            }
        }
        ("ticket", "split") => {
            let number = |key: &str| pair(changes, key).and_then(|(_, n)| text(n));
            match (number("split_to"), number("split_from")) {
                (Some(to), _) => vec![Happening::SplitTo(to)],
                (_, Some(from)) => vec![Happening::SplitFrom(from)],
                _ => Vec::new(),
            }
        }
        ("ticket", "sla_at_risk") => vec![Happening::SlaAtRisk(sla_target(changes))],
        ("ticket", "sla_breached") => vec![Happening::SlaBreached(sla_target(changes))],
        ("comment", "create") => vec![Happening::CommentAdded { internal }],
        ("comment", "update") => vec![Happening::CommentEdited { internal }],
        ("comment", "delete") => vec![Happening::CommentDeleted { internal }],
        ("attachment", "create") => vec![Happening::FileAdded { name: file(false) }],
        ("attachment", "delete") => vec![Happening::FileRemoved { name: file(true) }],
        (entity, action) => vec![Happening::Unknown(entity.into(), action.into())],
    };
    Told {
        at: record.created_at,
        actor_id: record.actor_id,
        rule: rule_name(changes),
        happenings,
    }
}

/// Every (entity, action) pair the services write into a ticket's history, for the test that keeps each
/// of them told.
pub const TICKET_HISTORY_KINDS: [(&str, &str); 24] = [
    ("ticket", "create"),
    ("ticket", "update"),
    ("ticket", "status_change"),
    ("ticket", "archive"),
    ("ticket", "restore"),
    ("ticket", "link_asset"),
    ("ticket", "unlink_asset"),
    ("ticket", "tag"),
    ("ticket", "fields"),
    ("ticket", "link"),
    ("ticket", "unlink"),
    ("ticket", "log_time"),
    ("ticket", "delete_time"),
    ("ticket", "follow"),
    ("ticket", "unfollow"),
    ("ticket", "merge"),
    ("ticket", "split"),
    ("ticket", "sla_at_risk"),
    ("ticket", "sla_breached"),
    ("comment", "create"),
    ("comment", "update"),
    ("comment", "delete"),
    ("attachment", "create"),
    ("attachment", "delete"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(entity: &str, action: &str, changes: Value) -> audit_event::Model {
        audit_event::Model {
            id: 1,
            actor_id: Some(2),
            entity_type: entity.into(),
            entity_id: 3,
            ticket_id: Some(3),
            action: action.into(),
            changes,
            is_internal: false,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn every_kind_the_services_write_is_told() {
        for (entity, action) in TICKET_HISTORY_KINDS {
            let told = tell(&record(entity, action, json!({})));
            assert!(
                !told
                    .happenings
                    .iter()
                    .any(|h| matches!(h, Happening::Unknown(..))),
                "{entity} {action} has no wording"
            );
        }
        let unknown = tell(&record("ticket", "teleport", json!({})));
        assert_eq!(
            unknown.happenings,
            [Happening::Unknown("ticket".into(), "teleport".into())]
        );
    }

    /// Every `audit::Entry::new(…, "ticket" | "comment" | "attachment", …, "<action>")` the services
    /// write with a literal action is in [`TICKET_HISTORY_KINDS`] (the others are listed by hand there).
    #[test]
    fn the_list_of_kinds_names_every_literal_one() {
        let mut stack = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut found = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let Ok(source) = std::fs::read_to_string(&path) else {
                    continue;
                };
                for call in source.split("Entry::new(").skip(1) {
                    // The arguments, split at the commas outside nested parentheses.
                    let (mut depth, mut args, mut current) = (0usize, Vec::new(), String::new());
                    for c in call.chars() {
                        match c {
                            '(' => depth += 1,
                            ')' if depth == 0 => break,
                            ')' => depth -= 1,
                            ',' if depth == 0 => {
                                args.push(std::mem::take(&mut current));
                                continue;
                            }
                            _ => {}
                        }
                        current.push(c);
                    }
                    args.push(current);
                    let literal = |i: usize| {
                        args.get(i)
                            .map(|a| a.trim())
                            .filter(|a| a.starts_with('"') && a.ends_with('"'))
                            .map(|a| a.trim_matches('"').to_string())
                    };
                    if let (Some(entity), Some(action)) = (literal(1), literal(3)) {
                        if ["ticket", "comment", "attachment"].contains(&entity.as_str()) {
                            found.push((entity, action));
                        }
                    }
                }
            }
        }
        assert!(found.len() >= 8, "{found:?}");
        for (entity, action) in found {
            assert!(
                TICKET_HISTORY_KINDS.contains(&(entity.as_str(), action.as_str())),
                "{entity} {action} is written but not in TICKET_HISTORY_KINDS"
            );
        }
    }

    #[test]
    fn field_changes_become_happenings() {
        let told = tell(&record(
            "ticket",
            "update",
            json!({"priority": ["low", "high"], "assignee_id": [null, 6], "title": ["a", "b"]}),
        ));
        assert_eq!(
            told.happenings,
            [
                Happening::Assignee {
                    from: None,
                    to: Some(6)
                },
                Happening::Priority {
                    from: Priority::Low,
                    to: Priority::High
                },
                Happening::Title { to: "b".into() },
            ]
        );
        let breached = tell(&record(
            "ticket",
            "sla_breached",
            json!({"sla_resolution_breached": [null, "2026-11-28T04:47:10Z"]}),
        ));
        assert_eq!(
            breached.happenings,
            [Happening::SlaBreached(SlaTarget::Resolution)]
        );
    }
}
