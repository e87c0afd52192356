//! Accounts of people the OpenID Connect provider vouches for (docs/decisions.md, "Single sign-on"): matched
//! by email whatever its letter case, provisioned on first sign-in without a password (none signs in to it), and
//! their mapped groups, staff and superuser flags following the provider at each sign-in. Every change goes
//! through the service functions the admin pages use (`accounts::create`, `accounts::update`,
//! `groups::create`), so it is checked and audited the same way; their audit records have no actor, and one
//! `sso_sign_in` record on the account names the provider's subject. A deactivated account stays refused.
use super::accounts::{self, AccountPatch, NewAccount};
use super::{groups, Admin, PeopleDeps};
use crate::auth::oidc::Identity;
use crate::auth::tokens::new_secret;
use crate::config::OidcSettings;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use chrono::Utc;
use entity::{group, user};
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;
use std::collections::BTreeSet;

/// The provider, acting as an administrator through the same functions as the admin pages.
const PROVIDER: Admin = Admin {
    id: None,
    superuser: true,
};

/// What the provider's groups make of an account under the configured mapping.
#[derive(Debug, Default, PartialEq, Eq)]
struct Wanted {
    /// Our groups the account should be in.
    groups: BTreeSet<String>,
    /// Every group the mapping names: membership of these follows the provider.
    mapped: BTreeSet<String>,
    /// Staff, when staff groups are configured.
    staff: Option<bool>,
    /// Superuser, when admin groups are configured.
    superuser: Option<bool>,
}

impl Wanted {
    fn of(settings: &OidcSettings, theirs: &[String]) -> Wanted {
        let member = |group: &String| theirs.iter().any(|t| t == group);
        let flag = |list: &[String]| (!list.is_empty()).then(|| list.iter().any(member));
        Wanted {
            groups: settings
                .group_map
                .iter()
                .filter(|(t, _)| member(t))
                .map(|(_, ours)| ours.clone())
                .collect(),
            mapped: settings.group_map.iter().map(|(_, o)| o.clone()).collect(),
            staff: flag(&settings.staff_groups),
            superuser: flag(&settings.admin_groups),
        }
    }
}

fn lower(col: impl sea_orm::sea_query::IntoColumnRef) -> Expr {
    Expr::expr(Func::lower(Expr::col(col)))
}

/// The account `identity` signs in as, provisioned or brought in line with the provider's groups. Refused
/// (403) without an email, with one the provider says is unverified, and for a deactivated account.
pub async fn sign_in(
    deps: PeopleDeps<'_>,
    settings: &OidcSettings,
    identity: &Identity,
) -> AppResult<user::Model> {
    let provider = &settings.provider_name;
    let email = accounts::clean_email(identity.email.as_deref())
        .ok()
        .flatten()
        .ok_or_else(|| {
            AppError::forbidden(format!(
                "{provider} did not share an email address for you, so no account could be matched."
            ))
        })?;
    if identity.email_verified == Some(false) {
        return Err(AppError::forbidden(format!(
            "{provider} says your email address is not verified, so no account could be matched."
        )));
    }
    let wanted = Wanted::of(settings, &identity.groups);
    let db = &deps.db.conn;
    let (account, provisioned) = match find_by_email(db, &email).await? {
        Some(found) => (found, false),
        None => match provision(deps, settings, identity, &email, &wanted).await {
            Ok(created) => (created, true),
            // A concurrent sign-in took the email (then it is that account) or the user name (try again).
            Err(AppError::Conflict { .. }) => match find_by_email(db, &email).await? {
                Some(found) => (found, false),
                None => (
                    provision(deps, settings, identity, &email, &wanted).await?,
                    true,
                ),
            },
            Err(err) => return Err(err),
        },
    };
    if !account.is_active {
        return Err(AppError::forbidden(
            "This account is deactivated. Ask an administrator to reactivate it.",
        ));
    }
    let (account, changed) = if provisioned {
        (account, true)
    } else {
        follow(deps, account, &wanted).await?
    };
    if changed {
        let changes = json!({
            "issuer": [null, settings.issuer_url],
            "subject": [null, identity.subject],
            "provisioned": [null, provisioned],
        });
        audit::record(
            db,
            audit::Entry::new(Some(account.id), "user", account.id, "sso_sign_in").changes(changes),
        )
        .await?;
    }
    let now = Utc::now();
    user::Entity::update_many()
        .col_expr(user::Column::LastLoginAt, Expr::value(now))
        .filter(user::Column::Id.eq(account.id))
        .exec(db)
        .await?;
    Ok(user::Model {
        last_login_at: Some(now),
        ..account
    })
}

/// The account with `email`, whatever its letter case (active or not).
pub async fn find_by_email(
    db: &impl ConnectionTrait,
    email: &str,
) -> AppResult<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(lower(user::Column::Email).eq(email.to_lowercase()))
        .one(db)
        .await?)
}

/// The ids of our groups named `names` (any letter case); missing ones are created when `create`.
async fn group_ids(
    deps: PeopleDeps<'_>,
    names: &BTreeSet<String>,
    create: bool,
) -> AppResult<Vec<i32>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let lowered: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let found = group::Entity::find()
        .filter(lower(group::Column::Name).is_in(lowered))
        .all(&deps.db.conn)
        .await?;
    let mut ids: Vec<i32> = found.iter().map(|g| g.id).collect();
    if create {
        for name in names {
            if !found.iter().any(|g| g.name.eq_ignore_ascii_case(name)) {
                ids.push(groups::create(deps, &PROVIDER, name).await?.id);
            }
        }
    }
    Ok(ids)
}

/// Bring an existing account's mapped groups and flags in line with the provider; whether anything changed.
async fn follow(
    deps: PeopleDeps<'_>,
    account: user::Model,
    wanted: &Wanted,
) -> AppResult<(user::Model, bool)> {
    let current = groups::member_of(&deps.db.conn, account.id).await?;
    let mapped = group_ids(deps, &wanted.mapped, false).await?;
    let mut next: BTreeSet<i32> = current
        .iter()
        .copied()
        .filter(|id| !mapped.contains(id))
        .collect();
    next.extend(group_ids(deps, &wanted.groups, true).await?);
    let before: BTreeSet<i32> = current.into_iter().collect();
    let patch = AccountPatch {
        group_ids: (next != before).then(|| next.into_iter().collect()),
        is_staff: wanted.staff.filter(|s| *s != account.is_staff),
        is_superuser: wanted.superuser.filter(|s| *s != account.is_superuser),
        ..Default::default()
    };
    if patch.group_ids.is_none() && patch.is_staff.is_none() && patch.is_superuser.is_none() {
        return Ok((account, false));
    }
    let updated = accounts::update(deps, &PROVIDER, account.id, patch).await?;
    Ok((updated, true))
}

/// A new account for `identity`, with no password (it signs in through the provider).
async fn provision(
    deps: PeopleDeps<'_>,
    settings: &OidcSettings,
    identity: &Identity,
    email: &str,
    wanted: &Wanted,
) -> AppResult<user::Model> {
    let account = NewAccount {
        username: free_username(
            &deps.db.conn,
            identity.preferred_username.as_deref(),
            settings.break_glass_user.as_deref().unwrap_or(""),
            email,
        )
        .await?,
        password: None,
        full_name: identity
            .name
            .as_deref()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_control())
            .take(150)
            .collect::<String>(),
        email: Some(email.to_string()),
        is_staff: wanted.staff.unwrap_or(false),
        is_superuser: wanted.superuser.unwrap_or(false),
        group_ids: group_ids(deps, &wanted.groups, true).await?,
    };
    accounts::create(deps, &PROVIDER, account).await
}

/// A requester account for someone who wrote to the help desk from `email` (display name `name`), with a
/// no password: they sign in after a password reset. Made as the provider makes accounts.
///
/// Two messages from a new sender taken in at once both find no account: the one made first is the
/// account of both. A user name taken meanwhile by someone else is looked for again.
pub async fn requester_for_email(
    deps: PeopleDeps<'_>,
    email: &str,
    name: &str,
) -> AppResult<user::Model> {
    let mut tries = 0;
    loop {
        let account = NewAccount {
            username: free_username(&deps.db.conn, None, "", email).await?,
            password: None,
            full_name: name.chars().filter(|c| !c.is_control()).take(150).collect(),
            email: Some(email.to_string()),
            is_staff: false,
            is_superuser: false,
            group_ids: Vec::new(),
        };
        match accounts::create(deps, &PROVIDER, account).await {
            Err(err @ AppError::Conflict { .. }) => {
                if let Some(made) = find_by_email(&deps.db.conn, email).await? {
                    return Ok(made);
                }
                tries += 1;
                if tries == 3 {
                    return Err(err);
                }
            }
            made => return made,
        }
    }
}

/// Letters, digits and `._-@+` of `raw`, at most 150 of them.
fn tidy(raw: &str) -> String {
    raw.chars()
        .filter(|c| c.is_alphanumeric() || "._-@+".contains(*c))
        .take(150)
        .collect()
}

/// A user name for a new account: the provider's preferred one, the email's local part or the whole
/// email, whichever is free first (never the break-glass user's), else the local part with a random tail.
async fn free_username(
    db: &impl ConnectionTrait,
    preferred: Option<&str>,
    reserved: &str,
    email: &str,
) -> AppResult<String> {
    let local = tidy(email.split('@').next().unwrap_or(""));
    let candidates = [preferred.map(tidy), Some(local.clone()), Some(tidy(email))];
    for candidate in candidates.into_iter().flatten() {
        if candidate.is_empty() || candidate.eq_ignore_ascii_case(reserved) {
            continue;
        }
        let taken = user::Entity::find()
            .filter(lower(user::Column::Username).eq(candidate.to_lowercase()))
            .count(db)
            .await?;
        if taken == 0 {
            return Ok(candidate);
        }
    }
    let tail = &new_secret("")[..6];
    Ok(format!(
        "{}-{tail}",
        local.chars().take(140).collect::<String>()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_mapping_names_follows_the_provider() {
        let settings = OidcSettings {
            issuer_url: String::new(),
            client_id: String::new(),
            client_secret: String::new(),
            provider_name: "SSO".into(),
            scopes: Vec::new(),
            redirect_url: String::new(),
            groups_claim: "groups".into(),
            group_map: vec![
                ("idp-net".into(), "Network".into()),
                ("idp-help".into(), "Agents".into()),
            ],
            staff_groups: vec!["idp-staff".into()],
            admin_groups: Vec::new(),
            sso_only: false,
            break_glass_user: None,
        };
        let wanted = Wanted::of(&settings, &["idp-net".into(), "other".into()]);
        assert_eq!(
            wanted,
            Wanted {
                groups: ["Network".to_string()].into(),
                mapped: ["Agents".to_string(), "Network".to_string()].into(),
                staff: Some(false),
                superuser: None,
            }
        );
        assert_eq!(tidy("Jo Smith <x>@example.com"), "JoSmithx@example.com");
    }
}
