//! Groups and membership, administered by admins: create, rename, delete (refused while open tickets are
//! assigned to the group), add and remove members. The team groups (`Agents`, `Administrators`) keep their
//! names, since the rules are written in them.
use super::accounts::Role;
use super::{Admin, PeopleDeps};
use crate::auth::{ADMINISTRATORS_GROUP, AGENTS_GROUP};
use crate::domain::TicketStatus;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::text;
use entity::{group, ticket, user, user_group};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, IntoActiveModel,
    PaginatorTrait, QueryFilter, Set,
};
use serde_json::json;

fn is_team_group(name: &str) -> bool {
    name == AGENTS_GROUP || name == ADMINISTRATORS_GROUP
}

/// A group name: one line of 1–150 characters after trimming.
fn clean_name(raw: &str) -> AppResult<String> {
    text::single_line("name", raw)?;
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 150 {
        return Err(AppError::field("name", "must be 1-150 characters"));
    }
    Ok(name.to_string())
}

/// `ids`, each an existing group (a 400 naming `groups` otherwise), without repeats.
pub(super) async fn existing(db: &impl ConnectionTrait, ids: &[i32]) -> AppResult<Vec<i32>> {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(ids);
    }
    let found = group::Entity::find()
        .filter(group::Column::Id.is_in(ids.clone()))
        .count(db)
        .await?;
    if found as usize != ids.len() {
        return Err(AppError::field("groups", "unknown group"));
    }
    Ok(ids)
}

/// The ids of the groups `user_id` belongs to.
pub(super) async fn member_of(db: &impl ConnectionTrait, user_id: i32) -> AppResult<Vec<i32>> {
    Ok(user_group::Entity::find()
        .filter(user_group::Column::UserId.eq(user_id))
        .all(db)
        .await?
        .into_iter()
        .map(|m| m.group_id)
        .collect())
}

/// Make `user_id`'s groups exactly `group_ids`.
pub(super) async fn set_memberships(
    db: &impl ConnectionTrait,
    user_id: i32,
    group_ids: &[i32],
) -> AppResult<()> {
    user_group::Entity::delete_many()
        .filter(user_group::Column::UserId.eq(user_id))
        .exec(db)
        .await?;
    if group_ids.is_empty() {
        return Ok(());
    }
    let rows = group_ids.iter().map(|g| user_group::ActiveModel {
        user_id: Set(user_id),
        group_id: Set(*g),
    });
    user_group::Entity::insert_many(rows).exec(db).await?;
    Ok(())
}

/// Users in the group named `name`.
fn members_of_named(name: &str) -> sea_orm::sea_query::SelectStatement {
    Query::select()
        .column((user_group::Entity, user_group::Column::UserId))
        .from(user_group::Entity)
        .inner_join(
            group::Entity,
            Expr::col((group::Entity, group::Column::Id))
                .equals((user_group::Entity, user_group::Column::GroupId)),
        )
        .and_where(Expr::col((group::Entity, group::Column::Name)).eq(name))
        .to_owned()
}

/// The accounts of `role`, as a condition on users (the rules of `Actor::is_team` and `is_admin`).
pub(super) fn role_condition(role: Role) -> Condition {
    let admin = Condition::any()
        .add(user::Column::IsSuperuser.eq(true))
        .add(user::Column::Id.in_subquery(members_of_named(ADMINISTRATORS_GROUP)));
    let team = Condition::any()
        .add(admin.clone())
        .add(user::Column::IsStaff.eq(true))
        .add(user::Column::Id.in_subquery(members_of_named(AGENTS_GROUP)));
    match role {
        Role::Admin => admin,
        Role::Agent => Condition::all().add(team).add(admin.not()),
        Role::Requester => team.not(),
    }
}

/// The group `id` (admins only).
pub async fn get(db: &impl ConnectionTrait, _admin: &Admin, id: i32) -> AppResult<group::Model> {
    find(db, id).await
}

async fn find(db: &impl ConnectionTrait, id: i32) -> AppResult<group::Model> {
    group::Entity::find_by_id(id)
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("group"))
}

async fn check_free(db: &impl ConnectionTrait, name: &str, except: Option<i32>) -> AppResult<()> {
    let mut select = group::Entity::find().filter(
        Expr::expr(sea_orm::sea_query::Func::lower(Expr::col(
            group::Column::Name,
        )))
        .eq(name.to_lowercase()),
    );
    if let Some(id) = except {
        select = select.filter(group::Column::Id.ne(id));
    }
    if select.count(db).await? > 0 {
        let mut fields = crate::error::FieldErrors::new();
        fields.insert(
            "name".into(),
            vec!["a group with that name already exists".into()],
        );
        return Err(AppError::Conflict {
            message: "name: a group with that name already exists".into(),
            fields,
        });
    }
    Ok(())
}

/// Create a group (admins only).
pub async fn create(deps: PeopleDeps<'_>, admin: &Admin, name: &str) -> AppResult<group::Model> {
    let name = clean_name(name)?;
    check_free(&deps.db.conn, &name, None).await?;
    let txn = deps.db.begin_write().await?;
    let created = group::ActiveModel {
        name: Set(name),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "group", created.id, "create")
            .changes(json!({"name": [null, created.name]})),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Rename a group (admins only; not a team group).
pub async fn rename(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    id: i32,
    name: &str,
) -> AppResult<group::Model> {
    let name = clean_name(name)?;
    let current = find(&deps.db.conn, id).await?;
    if current.name == name {
        return Ok(current);
    }
    if is_team_group(&current.name) || is_team_group(&name) {
        return Err(AppError::field(
            "name",
            "the team groups Agents and Administrators keep their names",
        ));
    }
    check_free(&deps.db.conn, &name, Some(id)).await?;
    let txn = deps.db.begin_write().await?;
    let mut next = current.clone().into_active_model();
    next.name = Set(name);
    let updated = next.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "group", id, "update")
            .changes(json!({"name": [current.name, updated.name]})),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok(updated)
}

/// Delete a group (admins only; not a team group). Refused, with the count, while open tickets are
/// assigned to it; its memberships go with it, and closed tickets keep no group.
pub async fn delete(deps: PeopleDeps<'_>, admin: &Admin, id: i32) -> AppResult<()> {
    let txn = deps.db.begin_write().await?;
    let current = find(&txn, id).await?;
    if is_team_group(&current.name) {
        return Err(AppError::bad_request(
            "the team groups Agents and Administrators cannot be deleted",
        ));
    }
    let open = ticket::Entity::find()
        .filter(ticket::Column::AssignedGroupId.eq(id))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(ticket::Column::Status.is_not_in([TicketStatus::Resolved, TicketStatus::Closed]))
        .count(&txn)
        .await?;
    if open > 0 {
        let mut fields = crate::error::FieldErrors::new();
        fields.insert(
            "open_tickets".into(),
            vec![format!("{open} open tickets are assigned to this group")],
        );
        return Err(AppError::Conflict {
            message: format!("{open} open tickets are assigned to this group; reassign them first"),
            fields,
        });
    }
    ticket::Entity::update_many()
        .col_expr(
            ticket::Column::AssignedGroupId,
            Expr::value(Option::<i32>::None),
        )
        .filter(ticket::Column::AssignedGroupId.eq(id))
        .exec(&txn)
        .await?;
    user_group::Entity::delete_many()
        .filter(user_group::Column::GroupId.eq(id))
        .exec(&txn)
        .await?;
    group::Entity::delete_by_id(id).exec(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "group", id, "delete")
            .changes(json!({"name": [current.name, null]})),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok(())
}

/// Add `user_id` to the group (admins only); already a member: nothing changes.
pub async fn add_member(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    group_id: i32,
    user_id: i32,
) -> AppResult<(group::Model, user::Model)> {
    change_member(deps, admin, group_id, user_id, true).await
}

/// Remove `user_id` from the group (admins only); not a member: nothing changes. Removing the last
/// active admin from Administrators is refused.
pub async fn remove_member(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    group_id: i32,
    user_id: i32,
) -> AppResult<(group::Model, user::Model)> {
    change_member(deps, admin, group_id, user_id, false).await
}

async fn change_member(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    group_id: i32,
    user_id: i32,
    add: bool,
) -> AppResult<(group::Model, user::Model)> {
    let txn = deps.db.begin_write().await?;
    let group = find(&txn, group_id).await?;
    let member = user::Entity::find_by_id(user_id)
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::field("user", "unknown user"))?;
    let current = member_of(&txn, user_id).await?;
    if current.contains(&group_id) == add {
        txn.commit().await?;
        return Ok((group, member));
    }
    if add {
        user_group::ActiveModel {
            user_id: Set(user_id),
            group_id: Set(group_id),
        }
        .insert(&txn)
        .await?;
    } else {
        user_group::Entity::delete_many()
            .filter(user_group::Column::UserId.eq(user_id))
            .filter(user_group::Column::GroupId.eq(group_id))
            .exec(&txn)
            .await?;
        super::accounts::ensure_an_admin_remains(&txn, None).await?;
    }
    let action = if add { "add_member" } else { "remove_member" };
    audit::record(
        &txn,
        audit::Entry::new(admin.id, "group", group_id, action)
            .changes(json!({"member": [member.id, member.username]})),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok((group, member))
}
