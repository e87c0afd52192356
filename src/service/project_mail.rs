//! A project's rules for mail taken in (docs/mail.md): what a reply to one of its resolved tickets does, and
//! which senders without an account may open tickets in it. Team members read them; administrators change
//! them, as they manage mailboxes. A project without rules of its own follows the defaults: a requester's
//! reply reopens, and strangers are taken as `DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS` says.
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::audit::{self, Changes};
use crate::service::projects;
use chrono::{DateTime, Utc};
use entity::project_mail_rule;
use entity::values::{ResolvedReply, UnknownSenders};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use std::collections::HashMap;

/// Most domains one project lists.
pub const MAX_DOMAINS: usize = 100;

/// A project's rules for mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailRules {
    /// The project.
    pub project_id: i32,
    /// What a reply to a resolved ticket does.
    pub resolved_reply: ResolvedReply,
    /// Which strangers get an account; none: the service's setting.
    pub unknown_senders: Option<UnknownSenders>,
    /// The domains [`UnknownSenders::KnownDomains`] takes mail from, lowercase.
    pub sender_domains: Vec<String>,
    /// When an administrator last changed them; none: never (the defaults).
    pub updated_at: Option<DateTime<Utc>>,
}

/// A change to a project's rules; absent fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct MailRulesPatch {
    /// New reply rule.
    pub resolved_reply: Option<ResolvedReply>,
    /// New stranger rule (`Some(None)`: the service's setting).
    pub unknown_senders: Option<Option<UnknownSenders>>,
    /// New domain list (replaces the old one).
    pub sender_domains: Option<Vec<String>>,
}

impl MailRules {
    fn defaults(project_id: i32) -> MailRules {
        MailRules {
            project_id,
            resolved_reply: ResolvedReply::Reopen,
            unknown_senders: None,
            sender_domains: Vec::new(),
            updated_at: None,
        }
    }

    fn of(row: project_mail_rule::Model) -> MailRules {
        MailRules {
            project_id: row.project_id,
            resolved_reply: row.resolved_reply,
            unknown_senders: row.unknown_senders,
            sender_domains: row.sender_domains.lines().map(str::to_string).collect(),
            updated_at: Some(row.updated_at),
        }
    }

    /// Whether a sender without an account, at `address` (lowercase), may write here; `service_open` is
    /// `DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS`, which applies unless the project says otherwise.
    pub fn admits_stranger(&self, address: &str, service_open: bool) -> bool {
        match self.unknown_senders {
            None => service_open,
            Some(UnknownSenders::Create) => true,
            Some(UnknownSenders::Refuse) => false,
            Some(UnknownSenders::KnownDomains) => {
                let domain = address.rsplit_once('@').map_or("", |(_, d)| d);
                self.sender_domains.iter().any(|known| {
                    domain == known
                        || domain
                            .strip_suffix(known.as_str())
                            .is_some_and(|sub| sub.ends_with('.'))
                })
            }
        }
    }
}

/// The rules mail to `project_id` follows (the defaults for no project, or one without rules). For the mail
/// path, which acts for no viewer; the doors read through [`get`].
pub(in crate::service) async fn of(
    db: &impl ConnectionTrait,
    project_id: Option<i32>,
) -> AppResult<MailRules> {
    let Some(id) = project_id else {
        return Ok(MailRules::defaults(0));
    };
    Ok(project_mail_rule::Entity::find_by_id(id)
        .one(db)
        .await?
        .map_or_else(|| MailRules::defaults(id), MailRules::of))
}

/// A non-archived project's rules (team members; 404 for another project).
pub async fn get(db: &Db, actor: &Actor, project_id: i32) -> AppResult<MailRules> {
    if !actor.is_team() {
        return Err(AppError::forbidden(
            "only team members may read a project's mail rules",
        ));
    }
    projects::get(&db.conn, project_id).await?;
    of(&db.conn, Some(project_id)).await
}

/// The rules of each of `project_ids`, in one read (team members): the defaults for a project without its own.
pub async fn of_projects(
    db: &Db,
    actor: &Actor,
    project_ids: &[i32],
) -> AppResult<HashMap<i32, MailRules>> {
    if !actor.is_team() {
        return Err(AppError::forbidden(
            "only team members may read a project's mail rules",
        ));
    }
    let mut found: HashMap<i32, MailRules> = project_ids
        .iter()
        .map(|id| (*id, MailRules::defaults(*id)))
        .collect();
    let rows = project_mail_rule::Entity::find()
        .filter(project_mail_rule::Column::ProjectId.is_in(project_ids.iter().copied()))
        .all(&db.conn)
        .await?;
    for row in rows {
        found.insert(row.project_id, MailRules::of(row));
    }
    Ok(found)
}

/// Change a project's rules (administrators only). 400 naming `sender_domains` for a domain that is not one,
/// too many, or `known_domains` with none listed.
pub async fn update(
    db: &Db,
    actor: &Actor,
    project_id: i32,
    patch: MailRulesPatch,
) -> AppResult<MailRules> {
    if !actor.is_admin() {
        return Err(AppError::forbidden(
            "only administrators may change a project's mail rules",
        ));
    }
    let domains = patch
        .sender_domains
        .as_deref()
        .map(clean_domains)
        .transpose()?;
    let txn = db.begin_write().await?;
    projects::get(&txn, project_id).await?;
    let current = of(&txn, Some(project_id)).await?;
    let next = MailRules {
        resolved_reply: patch.resolved_reply.unwrap_or(current.resolved_reply),
        unknown_senders: patch.unknown_senders.unwrap_or(current.unknown_senders),
        sender_domains: domains.unwrap_or_else(|| current.sender_domains.clone()),
        updated_at: Some(Utc::now()),
        ..current.clone()
    };
    if next.unknown_senders == Some(UnknownSenders::KnownDomains) && next.sender_domains.is_empty()
    {
        return Err(AppError::field(
            "sender_domains",
            "name at least one domain for known_domains",
        ));
    }
    let mut changes = Changes::new();
    changes.diff(
        "resolved_reply",
        &current.resolved_reply,
        &next.resolved_reply,
    );
    changes.diff(
        "unknown_senders",
        &current.unknown_senders,
        &next.unknown_senders,
    );
    changes.diff(
        "sender_domains",
        &current.sender_domains,
        &next.sender_domains,
    );
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(current);
    }
    let row = project_mail_rule::ActiveModel {
        project_id: Set(project_id),
        resolved_reply: Set(next.resolved_reply),
        unknown_senders: Set(next.unknown_senders),
        sender_domains: Set(next.sender_domains.join("\n")),
        updated_at: Set(Utc::now()),
    };
    project_mail_rule::Entity::insert(row)
        .on_conflict(
            OnConflict::column(project_mail_rule::Column::ProjectId)
                .update_columns([
                    project_mail_rule::Column::ResolvedReply,
                    project_mail_rule::Column::UnknownSenders,
                    project_mail_rule::Column::SenderDomains,
                    project_mail_rule::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "project", project_id, "mail_rules")
            .changes(changes.into_value()),
    )
    .await?;
    let saved = of(&txn, Some(project_id)).await?;
    txn.commit().await?;
    Ok(saved)
}

/// Domains as listed: trimmed, lowercase, a leading `@` dropped, duplicates once, in the order given.
fn clean_domains(given: &[String]) -> AppResult<Vec<String>> {
    let mut domains: Vec<String> = Vec::new();
    for value in given {
        let domain = value.trim().trim_start_matches('@').to_ascii_lowercase();
        if domain.is_empty() {
            continue;
        }
        let labels_ok = domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        if !labels_ok || !domain.contains('.') || domain.len() > 253 {
            return Err(AppError::field(
                "sender_domains",
                format!("\"{}\" is not a domain such as example.com", value.trim()),
            ));
        }
        if !domains.contains(&domain) {
            // Refused as soon as it is too long: a huge list costs no more than a list of the limit.
            if domains.len() == MAX_DOMAINS {
                return Err(AppError::field(
                    "sender_domains",
                    format!("list at most {MAX_DOMAINS} domains"),
                ));
            }
            domains.push(domain);
        }
    }
    Ok(domains)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(unknown: Option<UnknownSenders>, domains: &[&str]) -> MailRules {
        MailRules {
            unknown_senders: unknown,
            sender_domains: domains.iter().map(|d| d.to_string()).collect(),
            ..MailRules::defaults(1)
        }
    }

    #[test]
    fn strangers_are_admitted_by_the_projects_rule_or_the_services() {
        let inherit = rules(None, &[]);
        assert!(inherit.admits_stranger("a@x.com", true));
        assert!(!inherit.admits_stranger("a@x.com", false));
        assert!(rules(Some(UnknownSenders::Create), &[]).admits_stranger("a@x.com", false));
        assert!(!rules(Some(UnknownSenders::Refuse), &[]).admits_stranger("a@x.com", true));
        let known = rules(Some(UnknownSenders::KnownDomains), &["example.com"]);
        assert!(known.admits_stranger("ann@example.com", false));
        assert!(known.admits_stranger("ann@mail.example.com", false));
        assert!(!known.admits_stranger("ann@badexample.com", true));
        assert!(!known.admits_stranger("ann@example.com.evil.org", true));
        assert!(!known.admits_stranger("example.com", true));
    }

    #[test]
    fn domains_are_cleaned_or_refused() {
        let given =
            |v: &[&str]| clean_domains(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            given(&[" @Example.COM ", "", "example.com", "a-b.example.org"]).ok(),
            Some(vec![
                "example.com".to_string(),
                "a-b.example.org".to_string()
            ])
        );
        for bad in [
            "localhost",
            "exa mple.com",
            "-a.com",
            "a..com",
            "ann@example.com",
        ] {
            assert!(given(&[bad]).is_err(), "{bad} was taken");
        }
        let many: Vec<String> = (0..=MAX_DOMAINS).map(|i| format!("d{i}.com")).collect();
        assert!(clean_domains(&many).is_err());
    }
}
