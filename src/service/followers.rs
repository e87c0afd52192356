//! Followers: people who hear of a ticket as its requester does. Anyone who may see a ticket follows or
//! unfollows it; those who work on it, and its requester, add others (the requester copies a colleague in by
//! email). A follower who may not see the ticket is told of its public updates only, by email; internal
//! notes reach only followers who may read them (`events`).
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::service::tickets::{self, rules};
use crate::service::{audit, users};
use chrono::Utc;
use entity::{ticket, ticket_follower, user};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde_json::json;
use std::collections::HashMap;

/// Most followers one ticket has (each is mailed on every update).
pub const MAX_PER_TICKET: u64 = 50;

/// Whom to add.
#[derive(Debug, Clone)]
pub enum Whom {
    /// The actor.
    Me,
    /// A user by id.
    User(i32),
    /// An existing account by email address (a CC).
    Email(String),
    /// An active account by user name (any case).
    Username(String),
}

/// Whether the actor may add or remove others on `t`: those who work on it, and its requester.
fn may_manage(actor: &Actor, t: &ticket::Model) -> bool {
    rules::can_update_all(actor, t) || t.requester_id == actor.id()
}

async fn resolve(db: &impl ConnectionTrait, actor: &Actor, whom: &Whom) -> AppResult<user::Model> {
    let found = match whom {
        Whom::Me => user::Entity::find_by_id(actor.id()).one(db).await?,
        Whom::User(id) => user::Entity::find_by_id(*id).one(db).await?,
        Whom::Email(email) => users::sso::find_by_email(db, email.trim()).await?,
        Whom::Username(name) => users::find_by_username(db, name.trim()).await?,
    };
    match (found, whom) {
        (Some(u), _) if u.is_active => Ok(u),
        (_, Whom::Email(email)) => Err(AppError::field(
            "email",
            format!("no active account has the address {:?}", email.trim()),
        )),
        _ => Err(AppError::field("user", "no such active user")),
    }
}

/// Add a follower to ticket `ticket_id`; `Ok(false)` when they followed it already. 404 when the actor cannot
/// see the ticket; 403 when they add someone else without working on it or having raised it.
pub async fn follow(
    db: &crate::db::Db,
    actor: &Actor,
    ticket_id: i32,
    whom: Whom,
) -> AppResult<(user::Model, bool)> {
    let txn = db.begin_write().await?;
    let t = tickets::get(&txn, actor, ticket_id).await?;
    let u = resolve(&txn, actor, &whom).await?;
    if u.id != actor.id() && !may_manage(actor, &t) {
        return Err(AppError::forbidden(
            "only those who work on a ticket, and its requester, add others to it",
        ));
    }
    let known = ticket_follower::Entity::find()
        .filter(ticket_follower::Column::TicketId.eq(ticket_id))
        .count(&txn)
        .await?;
    let already = ticket_follower::Entity::find_by_id((ticket_id, u.id))
        .one(&txn)
        .await?
        .is_some();
    if already {
        txn.commit().await?;
        return Ok((users::seen_by(actor, u), false));
    }
    if known >= MAX_PER_TICKET {
        return Err(AppError::field(
            "user",
            format!("a ticket has at most {MAX_PER_TICKET} followers"),
        ));
    }
    ticket_follower::Entity::insert(ticket_follower::ActiveModel {
        ticket_id: Set(ticket_id),
        user_id: Set(u.id),
        added_by: Set(Some(actor.id())),
        created_at: Set(Utc::now()),
    })
    .on_conflict_do_nothing()
    .exec_without_returning(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", ticket_id, "follow")
            .ticket(ticket_id)
            .internal(true)
            .changes(json!({ "follower": [null, u.username] })),
    )
    .await?;
    txn.commit().await?;
    Ok((users::seen_by(actor, u), true))
}

/// Make the followers of `source`, and its requester, followers of `target` as far as it has room, added by
/// `actor`: a merge. The source's requester then hears of the target's public updates as a copied-in
/// colleague does. Answers how many were added.
pub(crate) async fn carry_over(
    txn: &impl ConnectionTrait,
    actor: &Actor,
    source: &ticket::Model,
    target: &ticket::Model,
) -> AppResult<usize> {
    let ids_of = |ticket_id: i32| {
        ticket_follower::Entity::find()
            .select_only()
            .column(ticket_follower::Column::UserId)
            .filter(ticket_follower::Column::TicketId.eq(ticket_id))
            .order_by_asc(ticket_follower::Column::CreatedAt)
            .into_tuple::<i32>()
    };
    let present = ids_of(target.id).all(txn).await?;
    let room = usize::try_from(MAX_PER_TICKET)
        .unwrap_or(usize::MAX)
        .saturating_sub(present.len());
    let mut added: Vec<i32> = Vec::new();
    let candidates = std::iter::once(source.requester_id).chain(ids_of(source.id).all(txn).await?);
    for id in candidates {
        if id != target.requester_id && !present.contains(&id) && !added.contains(&id) {
            added.push(id);
        }
    }
    added.truncate(room);
    if added.is_empty() {
        return Ok(0);
    }
    let now = Utc::now();
    let rows = added.iter().map(|id| ticket_follower::ActiveModel {
        ticket_id: Set(target.id),
        user_id: Set(*id),
        added_by: Set(Some(actor.id())),
        created_at: Set(now),
    });
    ticket_follower::Entity::insert_many(rows)
        .on_conflict_do_nothing()
        .exec_without_returning(txn)
        .await?;
    Ok(added.len())
}

/// Remove follower `user_id` (none: the actor) from ticket `ticket_id`: oneself, or anyone as one who works
/// on the ticket or raised it. `Ok(false)` when they did not follow it.
pub async fn unfollow(
    db: &crate::db::Db,
    actor: &Actor,
    ticket_id: i32,
    user_id: Option<i32>,
) -> AppResult<bool> {
    let txn = db.begin_write().await?;
    let t = tickets::get(&txn, actor, ticket_id).await?;
    let user_id = user_id.unwrap_or(actor.id());
    if user_id != actor.id() && !may_manage(actor, &t) {
        return Err(AppError::forbidden(
            "only those who work on a ticket, and its requester, remove others from it",
        ));
    }
    let gone = ticket_follower::Entity::delete_many()
        .filter(ticket_follower::Column::TicketId.eq(ticket_id))
        .filter(ticket_follower::Column::UserId.eq(user_id))
        .exec(&txn)
        .await?
        .rows_affected
        > 0;
    if gone {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "ticket", ticket_id, "unfollow")
                .ticket(ticket_id)
                .internal(true)
                .changes(json!({ "follower": [user_id, null] })),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(gone)
}

/// The followers of each of `ticket_ids` that the actor may see, as the actor may see people, by user name;
/// two statements for any number of tickets. Tickets without followers are absent.
pub async fn of_tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
) -> AppResult<HashMap<i32, Vec<user::Model>>> {
    if ticket_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let visible = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::Id)
        .filter(ticket::Column::Id.is_in(ticket_ids.iter().copied()))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::visible_to(actor));
    let rows = ticket_follower::Entity::find()
        .filter(
            ticket_follower::Column::TicketId.in_subquery(sea_orm::QueryTrait::into_query(visible)),
        )
        .all(db)
        .await?;
    if rows.is_empty() {
        return Ok(HashMap::new());
    }
    let people: HashMap<i32, user::Model> = user::Entity::find()
        .filter(user::Column::Id.is_in(rows.iter().map(|r| r.user_id)))
        .order_by_asc(user::Column::Username)
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u))
        .collect();
    let mut out: HashMap<i32, Vec<user::Model>> = HashMap::new();
    for r in rows {
        if let Some(u) = people.get(&r.user_id) {
            out.entry(r.ticket_id)
                .or_default()
                .push(users::seen_by(actor, u.clone()));
        }
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| a.username.cmp(&b.username));
    }
    Ok(out)
}

/// The followers of one ticket the actor may see (404 otherwise).
pub async fn of_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<Vec<user::Model>> {
    tickets::get(db, actor, ticket_id).await?;
    Ok(of_tickets(db, actor, &[ticket_id])
        .await?
        .remove(&ticket_id)
        .unwrap_or_default())
}
