//! What one viewer may see of other people, decided here and nowhere else.
//!
//! Team members see every account whole. Anyone else sees themselves whole and, of another person,
//! only their id, user name and full name (no email, no staff flag, no groups), and only when that
//! person is connected to a ticket the viewer can see: its requester or assignee, the author or an
//! editor of a comment the viewer may read there, or the author of a change recorded in its history.
//! Anyone else does not exist for them.
use super::find_by_id;
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::service::comments;
use crate::service::tickets::rules;
use crate::service::{Rank, Take};
use entity::{audit_event, comment, comment_edit, group, ticket, user, user_group};
use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef, Order, Query, SelectStatement};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, JoinType, QueryFilter, QuerySelect,
    RelationDef,
};
use std::collections::HashMap;

/// Whether the actor sees everything of `user_id`: the team sees everyone, anyone sees themselves.
fn sees_whole(actor: &Actor, user_id: i32) -> bool {
    actor.is_team() || actor.id() == user_id
}

/// `u` as `actor` may see them: whole for the team and for themselves, otherwise the name only.
/// The password hash never leaves.
pub fn seen_by(actor: &Actor, u: user::Model) -> user::Model {
    let whole = sees_whole(actor, u.id);
    user::Model {
        email: u.email.filter(|_| whole),
        is_staff: u.is_staff && whole,
        is_superuser: u.is_superuser && whole,
        password_hash: String::new(),
        time_zone: u.time_zone.filter(|_| whole),
        language: u.language.filter(|_| whole),
        ..u
    }
}

/// Ids of the tickets the actor can see (not archived).
fn visible_tickets(actor: &Actor) -> SelectStatement {
    Query::select()
        .column((ticket::Entity, ticket::Column::Id))
        .from(ticket::Entity)
        .and_where(Expr::col((ticket::Entity, ticket::Column::ArchivedAt)).is_null())
        .cond_where(rules::visible_to(actor))
        .to_owned()
}

/// `column` of the tickets the actor can see (their requesters, their assignees).
fn of_visible_tickets(actor: &Actor, column: ticket::Column) -> SelectStatement {
    let mut select = visible_tickets(actor);
    select.clear_selects();
    select.column((ticket::Entity, column)).to_owned()
}

/// `column` of the comments the actor may read.
fn of_readable_comments(actor: &Actor, column: comment::Column) -> SelectStatement {
    Query::select()
        .column((comment::Entity, column))
        .from(comment::Entity)
        .inner_join(
            ticket::Entity,
            Expr::col((ticket::Entity, ticket::Column::Id))
                .equals((comment::Entity, comment::Column::TicketId)),
        )
        .cond_where(comments::readable_by(actor))
        .to_owned()
}

/// Editors of the earlier versions of the comments the actor may read.
fn editors_of_readable_comments(actor: &Actor) -> SelectStatement {
    let mut select = of_readable_comments(actor, comment::Column::Id);
    select.clear_selects();
    select
        .column((comment_edit::Entity, comment_edit::Column::EditedById))
        .inner_join(
            comment_edit::Entity,
            Expr::col((comment_edit::Entity, comment_edit::Column::CommentId))
                .equals((comment::Entity, comment::Column::Id)),
        )
        .to_owned()
}

/// Authors of the changes recorded in the histories of the tickets the actor can see (entries about
/// internal comments only where they may read those).
fn authors_of_history(actor: &Actor) -> SelectStatement {
    let mut select = Query::select()
        .column((audit_event::Entity, audit_event::Column::ActorId))
        .from(audit_event::Entity)
        .inner_join(
            ticket::Entity,
            Expr::col((ticket::Entity, ticket::Column::Id))
                .equals((audit_event::Entity, audit_event::Column::TicketId)),
        )
        .and_where(Expr::col((ticket::Entity, ticket::Column::ArchivedAt)).is_null())
        .cond_where(rules::visible_to(actor))
        .to_owned();
    if !actor.is_team() {
        select.cond_where(
            Condition::any()
                .add(Expr::col((audit_event::Entity, audit_event::Column::IsInternal)).eq(false))
                .add(rules::worked_by(actor)),
        );
    }
    select
}

/// Restricts a user query to the people `actor` may see at all (see the module documentation).
fn connected_to(actor: &Actor) -> Condition {
    if actor.is_team() {
        return Condition::all();
    }
    let id = || Expr::col((user::Entity, user::Column::Id));
    Condition::any()
        .add(id().eq(rules::id_literal(actor.id())))
        .add(id().in_subquery(of_visible_tickets(actor, ticket::Column::RequesterId)))
        .add(id().in_subquery(of_visible_tickets(actor, ticket::Column::AssigneeId)))
        .add(id().in_subquery(of_readable_comments(actor, comment::Column::AuthorId)))
        .add(id().in_subquery(of_readable_comments(actor, comment::Column::EditedById)))
        .add(id().in_subquery(editors_of_readable_comments(actor)))
        .add(id().in_subquery(authors_of_history(actor)))
}

/// The people among `ids` the actor may see, as they may see them, by id (the others are absent).
pub async fn people(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, user::Model>> {
    let found = if actor.is_team() {
        find_by_id(db, ids, false).await?
    } else {
        let mut ids: Vec<i32> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        user::Entity::find()
            .filter(user::Column::Id.is_in(ids))
            .filter(connected_to(actor))
            .all(db)
            .await?
            .into_iter()
            .map(|u| (u.id, u))
            .collect()
    };
    Ok(found
        .into_iter()
        .map(|(id, u)| (id, seen_by(actor, u)))
        .collect())
}

/// One person the actor may see, as they may see them; NOT_FOUND otherwise.
pub async fn get_visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    id: i32,
) -> AppResult<user::Model> {
    people(db, actor, [id])
        .await?
        .remove(&id)
        .ok_or_else(|| AppError::not_found("user"))
}

/// The groups of each of `user_ids`, by name: of everyone for the team, of themselves for anyone
/// else (others get an empty list). Every given user gets an entry; `take` may cut each user's list.
pub async fn groups_of(
    db: &impl ConnectionTrait,
    actor: &Actor,
    user_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<group::Model>>> {
    let mut out: HashMap<i32, Vec<group::Model>> =
        user_ids.iter().map(|id| (*id, Vec::new())).collect();
    let shown: Vec<i32> = user_ids
        .iter()
        .copied()
        .filter(|id| sees_whole(actor, *id))
        .collect();
    if shown.is_empty() {
        return Ok(out);
    }
    let links = user_group::Entity::find().filter(user_group::Column::UserId.is_in(shown));
    let rank = Rank {
        key: vec![
            (user_group::Entity, user_group::Column::UserId).into_column_ref(),
            (user_group::Entity, user_group::Column::GroupId).into_column_ref(),
        ],
        parent: (user_group::Entity, user_group::Column::UserId).into_column_ref(),
        order: vec![
            (
                (group::Entity, group::Column::Name).into_column_ref(),
                Order::Asc,
            ),
            (
                (group::Entity, group::Column::Id).into_column_ref(),
                Order::Asc,
            ),
        ],
    };
    let to_group: RelationDef = user_group::Entity::belongs_to(group::Entity)
        .from(user_group::Column::GroupId)
        .to(group::Column::Id)
        .into();
    let links = take
        .per_parent(links, rank, |links| {
            links.join(JoinType::InnerJoin, to_group)
        })
        .all(db)
        .await?;
    let groups: HashMap<i32, group::Model> = group::Entity::find()
        .filter(group::Column::Id.is_in(links.iter().map(|l| l.group_id)))
        .all(db)
        .await?
        .into_iter()
        .map(|g| (g.id, g))
        .collect();
    for link in links {
        if let (Some(list), Some(g)) = (out.get_mut(&link.user_id), groups.get(&link.group_id)) {
            list.push(g.clone());
        }
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| a.name.cmp(&b.name));
    }
    Ok(out)
}
