//! Accounts administered in the product, by admins: create, change, deactivate and reactivate, set a
//! password, list and filter. Accounts are never deleted: a leaver is deactivated, keeps their authorship,
//! and every credential they hold stops working at once on every instance (docs/decisions.md).
use super::{groups, passwords, Admin, PeopleDeps};
use crate::error::{AppError, AppResult};
use crate::service::audit::{self, Changes};
use crate::service::text;
use chrono::Utc;
use entity::{api_token, group, ticket, user, user_group, web_session};
use sea_orm::sea_query::{Expr, ExprTrait, Func, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, IntoActiveModel,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};
use serde_json::json;

/// Longest user name.
const MAX_USERNAME: usize = 150;

/// A new account.
#[derive(Debug, Clone, Default)]
pub struct NewAccount {
    /// Login name, unique whatever its letter case.
    pub username: String,
    /// Password in clear (hashed before storage). `None` for an account made for someone who has not chosen
    /// one (a requester who wrote in, an identity provider's user): no password signs in to it until one is
    /// set by a reset or an administrator, and no hash is computed for it.
    pub password: Option<String>,
    /// Display name.
    pub full_name: String,
    /// Email, unique whatever its letter case.
    pub email: Option<String>,
    /// Staff flag.
    pub is_staff: bool,
    /// Superuser flag (only a superuser may set it).
    pub is_superuser: bool,
    /// Groups by id; an unknown one is refused.
    pub group_ids: Vec<i32>,
}

/// A partial change of an account; `email: Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct AccountPatch {
    /// New display name.
    pub full_name: Option<String>,
    /// New email, or none.
    pub email: Option<Option<String>>,
    /// New staff flag.
    pub is_staff: Option<bool>,
    /// New superuser flag (only a superuser may change it).
    pub is_superuser: Option<bool>,
    /// The groups, replacing the current ones.
    pub group_ids: Option<Vec<i32>>,
}

/// What an account is, for filtering lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Not a team member.
    Requester,
    /// A team member who is not an admin.
    Agent,
    /// Superuser or member of Administrators.
    Admin,
}

impl Role {
    /// Parse `requester`, `agent` or `admin` (any case); `field` names the input in the error.
    pub fn parse(field: &str, raw: &str) -> AppResult<Role> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "requester" => Ok(Role::Requester),
            "agent" => Ok(Role::Agent),
            "admin" => Ok(Role::Admin),
            _ => Err(AppError::field(
                field,
                "must be one of requester, agent, admin",
            )),
        }
    }
}

/// Which accounts to list.
#[derive(Debug, Clone, Default)]
pub struct AccountFilter {
    /// Only active (true) or only deactivated (false) accounts.
    pub active: Option<bool>,
    /// Only accounts of this role.
    pub role: Option<Role>,
    /// Only members of this group.
    pub group_id: Option<i32>,
    /// User name, full name or email containing this, any case.
    pub q: Option<String>,
}

/// A user name: one line of 1–150 characters after trimming.
fn clean_username(raw: &str) -> AppResult<String> {
    text::single_line("username", raw)?;
    let username = raw.trim();
    if username.is_empty() || username.chars().count() > MAX_USERNAME {
        return Err(AppError::field("username", "must be 1-150 characters"));
    }
    Ok(username.to_string())
}

/// An email: empty means none; otherwise one line with one `@` between non-empty parts, at most 254.
pub(super) fn clean_email(raw: Option<&str>) -> AppResult<Option<String>> {
    let Some(raw) = raw else { return Ok(None) };
    text::single_line("email", raw)?;
    let email = raw.trim();
    if email.is_empty() {
        return Ok(None);
    }
    let valid = email.len() <= 254
        && !email.contains(char::is_whitespace)
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && domain.contains('.') && !domain.contains('@')
        });
    if valid {
        Ok(Some(email.to_string()))
    } else {
        Err(AppError::field("email", "enter a valid email address"))
    }
}

fn clean_full_name(raw: &str) -> AppResult<String> {
    text::single_line("full_name", raw)?;
    let name = raw.trim();
    if name.chars().count() > 150 {
        return Err(AppError::field(
            "full_name",
            "must be at most 150 characters",
        ));
    }
    Ok(name.to_string())
}

/// A conflict on `field` (a 409 naming it).
fn taken(field: &str, what: &str) -> AppError {
    let mut fields = crate::error::FieldErrors::new();
    let message = format!("a user with that {what} already exists");
    fields.insert(field.to_string(), vec![message.clone()]);
    AppError::Conflict {
        message: format!("{field}: {message}"),
        fields,
    }
}

/// Refuse a user name or email another account holds in any letter case (the unique indexes on their
/// lowercase forms decide races).
async fn check_unique(
    db: &impl ConnectionTrait,
    username: Option<&str>,
    email: Option<&str>,
    except: Option<i32>,
) -> AppResult<()> {
    let lower = |col: user::Column| Expr::expr(Func::lower(Expr::col(col)));
    let clash = |condition: Condition| {
        let mut select = user::Entity::find().filter(condition);
        if let Some(id) = except {
            select = select.filter(user::Column::Id.ne(id));
        }
        select
    };
    if let Some(username) = username {
        let found =
            clash(Condition::all().add(lower(user::Column::Username).eq(username.to_lowercase())))
                .count(db)
                .await?;
        if found > 0 {
            return Err(taken("username", "username"));
        }
    }
    if let Some(email) = email {
        let found =
            clash(Condition::all().add(lower(user::Column::Email).eq(email.to_lowercase())))
                .count(db)
                .await?;
        if found > 0 {
            return Err(taken("email", "email"));
        }
    }
    Ok(())
}

/// A unique-index violation on the account's name or email, as the 409 of the field it concerns.
fn on_clash(err: sea_orm::DbErr) -> AppError {
    let text = err.to_string();
    match err.sql_err() {
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) if text.contains("email") => {
            taken("email", "email")
        }
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => taken("username", "username"),
        _ => AppError::from(err),
    }
}

/// Only a superuser may make or unmake superusers.
fn check_superuser_change(admin: &Admin, wanted: bool, current: bool) -> AppResult<()> {
    if wanted != current && !admin.superuser {
        return Err(AppError::forbidden_field(
            "is_superuser",
            "only a superuser may grant or remove superuser rights",
        ));
    }
    Ok(())
}

/// The account `id`, whole (admins only).
pub async fn get(db: &impl ConnectionTrait, _admin: &Admin, id: i32) -> AppResult<user::Model> {
    find(db, id).await
}

/// The account named `username`, whole (admins only): for an administrator's form that names someone.
pub async fn by_username(
    db: &impl ConnectionTrait,
    _admin: &Admin,
    username: &str,
) -> AppResult<Option<user::Model>> {
    super::find_by_username(db, username.trim()).await
}

async fn find(db: &impl ConnectionTrait, id: i32) -> AppResult<user::Model> {
    user::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("user"))
}

/// Create an account (admins only); the audit record names its fields, never its password.
pub async fn create(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    input: NewAccount,
) -> AppResult<user::Model> {
    let username = clean_username(&input.username)?;
    let full_name = clean_full_name(&input.full_name)?;
    let email = clean_email(input.email.as_deref())?;
    if let Some(password) = &input.password {
        passwords::check_strength(deps.min_password_length, &username, password)?;
    }
    check_superuser_change(admin, input.is_superuser, false)?;
    let db = &deps.db.conn;
    let group_ids = groups::existing(db, &input.group_ids).await?;
    check_unique(db, Some(&username), email.as_deref(), None).await?;
    let password_hash = match input.password {
        Some(password) => crate::auth::password::hash_password_async(password).await?,
        None => crate::auth::password::unusable(),
    };
    let txn = deps.db.begin_write().await?;
    let created = user::ActiveModel {
        username: Set(username),
        full_name: Set(full_name),
        email: Set(email),
        password_hash: Set(password_hash),
        is_staff: Set(input.is_staff),
        is_superuser: Set(input.is_superuser),
        is_active: Set(true),
        created_at: Set(Utc::now()),
        ..Default::default()
    }
    .insert(&txn)
    .await
    .map_err(on_clash)?;
    groups::set_memberships(&txn, created.id, &group_ids).await?;
    let changes = json!({
        "username": [null, created.username],
        "full_name": [null, created.full_name],
        "email": [null, created.email],
        "is_staff": [null, created.is_staff],
        "is_superuser": [null, created.is_superuser],
        "groups": [null, group_ids],
    });
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "user", created.id, "create").changes(changes),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Change an account's name, email, flags or groups (admins only). Demoting the last active admin is
/// refused; a change of rights reaches every instance's credentials cache at once.
pub async fn update(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    id: i32,
    patch: AccountPatch,
) -> AppResult<user::Model> {
    let db = &deps.db.conn;
    let full_name = patch
        .full_name
        .as_deref()
        .map(clean_full_name)
        .transpose()?;
    let email = patch
        .email
        .as_ref()
        .map(|e| clean_email(e.as_deref()))
        .transpose()?;
    let group_ids = match &patch.group_ids {
        Some(ids) => Some(groups::existing(db, ids).await?),
        None => None,
    };
    let current = find(db, id).await?;
    if let Some(wanted) = patch.is_superuser {
        check_superuser_change(admin, wanted, current.is_superuser)?;
    }
    if let Some(Some(email)) = &email {
        check_unique(db, None, Some(email), Some(id)).await?;
    }
    let txn = deps.db.begin_write().await?;
    let before_groups = groups::member_of(&txn, id).await?;
    let mut changes = Changes::new();
    let mut next = current.clone().into_active_model();
    if let Some(name) = full_name {
        changes.diff("full_name", &current.full_name, &name);
        next.full_name = Set(name);
    }
    if let Some(email) = email {
        changes.diff("email", &current.email, &email);
        next.email = Set(email);
    }
    if let Some(staff) = patch.is_staff {
        changes.diff("is_staff", &current.is_staff, &staff);
        next.is_staff = Set(staff);
    }
    if let Some(superuser) = patch.is_superuser {
        changes.diff("is_superuser", &current.is_superuser, &superuser);
        next.is_superuser = Set(superuser);
    }
    let updated = next.update(&txn).await.map_err(on_clash)?;
    if let Some(ids) = &group_ids {
        let mut before = before_groups.clone();
        before.sort_unstable();
        let mut after = ids.clone();
        after.sort_unstable();
        changes.diff("groups", &before, &after);
        groups::set_memberships(&txn, id, ids).await?;
    }
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(updated);
    }
    // Checked on the changed rows: a change that demotes the last active admin is undone.
    ensure_an_admin_remains(&txn, None).await?;
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "user", id, "update").changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok(updated)
}

/// An IANA time zone name as typed (`Europe/Berlin`), checked; blank is none (follow the browser).
pub fn parse_time_zone(text: &str) -> AppResult<Option<chrono_tz::Tz>> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<chrono_tz::Tz>()
        .map(Some)
        .map_err(|_| AppError::field("time_zone", "choose a time zone from the list"))
}

/// Set the time zone `actor` reads the web pages' dates in (`None`: the browser's), recorded in the audit
/// trail like any change to an account.
pub async fn set_time_zone(
    deps: PeopleDeps<'_>,
    actor: &crate::auth::Actor,
    zone: Option<chrono_tz::Tz>,
) -> AppResult<()> {
    let zone = zone.map(|z| z.name().to_string());
    set_reading(deps, actor, Reading::TimeZone, zone).await
}

/// Set the language `actor` reads the web pages in, as its catalogue's code (`None`: the browser's); the web
/// door names only languages it has.
pub async fn set_language(
    deps: PeopleDeps<'_>,
    actor: &crate::auth::Actor,
    code: Option<&'static str>,
) -> AppResult<()> {
    let code = code.map(str::to_string);
    set_reading(deps, actor, Reading::Language, code).await
}

/// How a user reads the pages, kept on their account.
enum Reading {
    TimeZone,
    Language,
}

async fn set_reading(
    deps: PeopleDeps<'_>,
    actor: &crate::auth::Actor,
    which: Reading,
    value: Option<String>,
) -> AppResult<()> {
    let current = find(&deps.db.conn, actor.id()).await?;
    let (field, now) = match which {
        Reading::TimeZone => ("time_zone", &current.time_zone),
        Reading::Language => ("language", &current.language),
    };
    if *now == value {
        return Ok(());
    }
    let mut changes = Changes::new();
    changes.diff(field, now, &value);
    let txn = deps.db.begin_write().await?;
    let mut next = current.into_active_model();
    match which {
        Reading::TimeZone => next.time_zone = Set(value),
        Reading::Language => next.language = Set(value),
    }
    next.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "user", actor.id(), "update")
            .changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    // Only this user's record is forgotten: clearing the whole cache would have every instance look again at
    // every credential and subscription.
    deps.auth_cache.reread(deps.db, actor.id()).await;
    Ok(())
}

/// Refuse when no active admin would remain (besides `leaving`, who is on their way out).
pub(super) async fn ensure_an_admin_remains(
    db: &impl ConnectionTrait,
    leaving: Option<i32>,
) -> AppResult<()> {
    let administrators = Query::select()
        .column((user_group::Entity, user_group::Column::UserId))
        .from(user_group::Entity)
        .inner_join(
            group::Entity,
            Expr::col((group::Entity, group::Column::Id))
                .equals((user_group::Entity, user_group::Column::GroupId)),
        )
        .and_where(
            Expr::col((group::Entity, group::Column::Name)).eq(crate::auth::ADMINISTRATORS_GROUP),
        )
        .to_owned();
    let mut admins = user::Entity::find()
        .filter(user::Column::IsActive.eq(true))
        .filter(
            Condition::any()
                .add(user::Column::IsSuperuser.eq(true))
                .add(user::Column::Id.in_subquery(administrators)),
        );
    if let Some(id) = leaving {
        admins = admins.filter(user::Column::Id.ne(id));
    }
    if admins.count(db).await? == 0 {
        return Err(AppError::bad_request(
            "this would leave no active administrator; make someone else an administrator first",
        ));
    }
    Ok(())
}

/// How many open (not done, not archived) tickets are assigned to `user_id`.
pub async fn open_assignments(db: &impl ConnectionTrait, user_id: i32) -> AppResult<u64> {
    use crate::domain::TicketStatus;
    Ok(ticket::Entity::find()
        .filter(ticket::Column::AssigneeId.eq(user_id))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(ticket::Column::Status.is_not_in([TicketStatus::Resolved, TicketStatus::Closed]))
        .count(db)
        .await?)
}

/// Deactivate an account (admins only; not oneself, not the last active admin). At once and on every
/// instance: its web sessions end, its API tokens are revoked, access tokens issued before now are
/// refused, its live subscriptions close, it cannot sign in, be assigned or receive email. Its open
/// assignments stay where they are, for the team to reassign.
pub async fn deactivate(deps: PeopleDeps<'_>, admin: &Admin, id: i32) -> AppResult<user::Model> {
    if admin.id == Some(id) {
        return Err(AppError::bad_request(
            "you cannot deactivate your own account",
        ));
    }
    let txn = deps.db.begin_write().await?;
    let current = find(&txn, id).await?;
    if !current.is_active {
        txn.commit().await?;
        return Ok(current);
    }
    ensure_an_admin_remains(&txn, Some(id)).await?;
    let now = Utc::now();
    let mut next = current.clone().into_active_model();
    next.is_active = Set(false);
    next.credentials_changed_at = Set(Some(now));
    let updated = next.update(&txn).await?;
    let sessions = web_session::Entity::delete_many()
        .filter(web_session::Column::UserId.eq(id))
        .exec(&txn)
        .await?
        .rows_affected;
    let tokens = api_token::Entity::update_many()
        .col_expr(api_token::Column::RevokedAt, Expr::value(now))
        .filter(api_token::Column::UserId.eq(id))
        .filter(api_token::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?
        .rows_affected;
    let changes = json!({
        "is_active": [true, false],
        "sessions_ended": sessions,
        "tokens_revoked": tokens,
    });
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "user", id, "deactivate").changes(changes),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok(updated)
}

/// Reactivate an account (admins only). It signs in again with its password; the sessions, tokens and
/// access tokens it held before stay ended.
pub async fn reactivate(deps: PeopleDeps<'_>, admin: &Admin, id: i32) -> AppResult<user::Model> {
    let txn = deps.db.begin_write().await?;
    let current = find(&txn, id).await?;
    if current.is_active {
        txn.commit().await?;
        return Ok(current);
    }
    let mut next = current.into_active_model();
    next.is_active = Set(true);
    let updated = next.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "user", id, "reactivate")
            .changes(json!({"is_active": [false, true]})),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok(updated)
}

/// Accounts matching `filter`, by user name (admins only; deactivated ones included unless filtered out),
/// a page of them and the total.
pub async fn list(
    db: &impl ConnectionTrait,
    _admin: &Admin,
    filter: &AccountFilter,
    offset: u64,
    limit: u64,
) -> AppResult<(Vec<user::Model>, u64)> {
    let mut select = user::Entity::find();
    if let Some(active) = filter.active {
        select = select.filter(user::Column::IsActive.eq(active));
    }
    if let Some(group_id) = filter.group_id {
        let members = Query::select()
            .column(user_group::Column::UserId)
            .from(user_group::Entity)
            .and_where(Expr::col(user_group::Column::GroupId).eq(group_id))
            .to_owned();
        select = select.filter(user::Column::Id.in_subquery(members));
    }
    if let Some(role) = filter.role {
        select = select.filter(groups::role_condition(role));
    }
    if let Some(q) = filter.q.as_deref() {
        text::single_line("q", q)?;
        let q = q.trim();
        if !q.is_empty() {
            let pattern = format!("%{}%", q.to_lowercase());
            let lower = |col: user::Column| Expr::expr(Func::lower(Expr::col(col)));
            select = select.filter(
                Condition::any()
                    .add(lower(user::Column::Username).like(pattern.clone()))
                    .add(lower(user::Column::FullName).like(pattern.clone()))
                    .add(lower(user::Column::Email).like(pattern)),
            );
        }
    }
    let total = select.clone().count(db).await?;
    let found = select
        .order_by_asc(user::Column::Username)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await?;
    Ok((found, total))
}
