//! Tags on tickets: normalised names, who may see and set them, the list with counts, and an admin's
//! curated list, renames and merges.
//!
//! Tags are the team's: they are read and changed by those who may read a ticket's internal comments (the
//! team, the assignee and the assigned group), and a requester sees none of them through any door. A
//! change is one transaction with its audit record (internal, so the requester's history leaves it out), the
//! `ticket.tagged` webhook rows and a move of the tickets generation, so remembered list totals filtered
//! by tag are taken again.
use crate::auth::Actor;
use crate::db::remembered::{Kind, Remembered};
use crate::db::{run_together, Write};
use crate::error::{AppError, AppResult, OnConstraint};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::service::automation::Via;
use crate::service::comments::can_read_internal;
use crate::service::tickets::{self, counters, rules};
use crate::service::{audit, events, WriteDeps};
use chrono::Utc;
use entity::{setting, tag, ticket, ticket_tag};
use sea_orm::sea_query::{
    DynIden, Expr, ExprTrait, InsertStatement, IntoIden, IntoTableRef, OnConflict, Query,
    SelectStatement, TableRef,
};
use sea_orm::{
    ActiveValue, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, FromQueryResult,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, QueryTrait, Set,
};
use serde_json::json;
use std::collections::{BTreeSet, HashMap};

/// Longest tag name, in characters.
pub const MAX_LEN: usize = 50;
/// Most tags on one ticket, and most names in one request.
pub const MAX_PER_TICKET: usize = 50;
/// Most tags one list answers.
pub const MAX_LISTED: u64 = 500;
/// The setting that turns free tags off (`false`): then only curated names may be put on tickets.
const FREE_TAGS_KEY: &str = "tags.free";

/// The names of tags known to exist, as remembered: a ticket tagged only with such names reads no tag ids, its
/// links are inserted by name. A rename, merge or delete forgets them on every instance (`db::remembered`).
pub struct Names;

impl Kind for Names {
    type Key = String;
    type Value = ();
    const CHANNEL: &'static str = "deskgraph_tags";
    const CAPACITY: u64 = 10_000;
    const CHANGE: &'static str = "tag change";
}

/// The names of tags known to exist, remembered per instance.
pub type KnownTags = Remembered<Names>;

/// A tag name as stored: trimmed, lowercase, inner runs of white space made one space. Empty names,
/// names over [`MAX_LEN`] characters, commas (they separate tags in REST filters) and control characters
/// are refused, naming the tag.
pub fn normalise(field: &str, raw: &str) -> AppResult<String> {
    let name = raw
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let refuse = |why: &str| Err(AppError::field(field, format!("{raw:?} {why}")));
    if name.is_empty() {
        return refuse("is empty");
    }
    if name.chars().count() > MAX_LEN {
        return refuse(&format!("is longer than {MAX_LEN} characters"));
    }
    if name.chars().any(|c| c == ',' || c.is_control()) {
        return refuse("may not hold commas or control characters");
    }
    Ok(name)
}

/// Each of `raw` normalised, repeats dropped, in order; at most [`MAX_PER_TICKET`]. Errors name `field`.
pub fn normalise_all<S: AsRef<str>>(field: &str, raw: &[S]) -> AppResult<Vec<String>> {
    if raw.len() > MAX_PER_TICKET {
        return Err(AppError::field(
            field,
            format!("at most {MAX_PER_TICKET} tags at once"),
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for r in raw {
        let name = normalise(field, r.as_ref())?;
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

/// Whether the actor may see and change the tags of `t` (a ticket they can see).
pub fn can_tag(actor: &Actor, t: &ticket::Model) -> bool {
    can_read_internal(actor, t)
}

/// Only the team filters lists by tag: a requester's filter is refused rather than answered empty.
pub fn check_filter(team: bool, names: &[String]) -> AppResult<()> {
    if team || names.is_empty() {
        Ok(())
    } else {
        Err(AppError::forbidden_field(
            "tag",
            "tags are the team's; requesters may not filter by them",
        ))
    }
}

/// The ids of tickets carrying the tag `name` (for list filters: every named tag narrows).
pub(crate) fn tickets_tagged_any(names: &[String]) -> SelectStatement {
    Query::select()
        .column((ticket_tag::Entity, ticket_tag::Column::TicketId))
        .from(ticket_tag::Entity)
        .inner_join(
            tag::Entity,
            Expr::col((tag::Entity, tag::Column::Id))
                .equals((ticket_tag::Entity, ticket_tag::Column::TagId)),
        )
        .and_where(Expr::col((tag::Entity, tag::Column::Name)).is_in(names.iter().cloned()))
        .to_owned()
}

/// The rows a list in creation order can walk for a filter naming tag `name` (`tickets::read::filter::Walk`):
/// `ticket_tags`, one row per ticket carrying it, and its tag, on `alias`.
pub(crate) fn walk(name: &str, alias: &DynIden) -> (TableRef, Expr) {
    let id = Query::select()
        .column(tag::Column::Id)
        .from(tag::Entity)
        .and_where(Expr::col((tag::Entity, tag::Column::Name)).eq(name))
        .to_owned();
    let held = Expr::col((alias.clone(), ticket_tag::Column::TagId.into_iden())).eq(Expr::from(id));
    (ticket_tag::Entity.into_table_ref(), held)
}

/// How a ticket's tags change.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Put these on, keeping the others.
    Add(Vec<String>),
    /// Take these off.
    Remove(Vec<String>),
    /// Exactly these.
    Replace(Vec<String>),
}

/// The tags of ticket `ticket_id` after `edit`, by name. 404 when the actor may not see the ticket, 403 when
/// they may see but not tag it, 400 for a bad name, a name off the curated list while free tags are off,
/// or more than [`MAX_PER_TICKET`] tags.
pub async fn change(
    state: WriteDeps<'_>,
    actor: &Actor,
    ticket_id: i32,
    edit: Edit,
) -> AppResult<Vec<String>> {
    let edit = match edit {
        Edit::Add(names) => Edit::Add(normalise_all("tags", &names)?),
        Edit::Remove(names) => Edit::Remove(normalise_all("tags", &names)?),
        Edit::Replace(names) => Edit::Replace(normalise_all("tags", &names)?),
    };
    let txn = state.db.begin_write().await?;
    let seen = tickets::get(&txn, actor, ticket_id).await?;
    if !can_tag(actor, &seen) {
        return Err(AppError::forbidden("you may not tag this ticket"));
    }
    // Tag changes of one ticket take turns, so none is lost and each audit record holds.
    let t = ticket::Entity::find_by_id(ticket_id)
        .lock_exclusive()
        .one(&txn)
        .await?
        .filter(|t| t.archived_at.is_none())
        .ok_or_else(|| AppError::not_found("ticket"))?;
    let tagger = Tagger {
        author: Some(actor.id()),
        via: None,
        curated_only: !free_tags(&txn).await?,
    };
    let written = write(&txn, state, &tagger, &t, &edit).await?;
    txn.commit().await?;
    let after = match written {
        Written::Changed(after) => {
            let event = LiveEvent::new(LiveKind::Updated, ticket_id);
            state.live.publish(state.db, event).await;
            after
        }
        Written::Unchanged(current) => current,
    };
    Ok(after)
}

/// Put the tags of ticket `source` on `target` (locked by the caller) as far as it has room, recorded as
/// `author`'s: a merge. The source keeps its own.
pub(crate) async fn carry_over(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    author: i32,
    source: i32,
    target: &ticket::Model,
) -> AppResult<()> {
    let theirs = names_of(txn, source).await?;
    let ours = names_of(txn, target.id).await?;
    let room = MAX_PER_TICKET.saturating_sub(ours.len());
    let add: Vec<String> = theirs
        .into_iter()
        .filter(|n| !ours.contains(n))
        .take(room)
        .collect();
    if add.is_empty() {
        return Ok(());
    }
    let tagger = Tagger {
        author: Some(author),
        via: None,
        curated_only: false,
    };
    write(txn, state, &tagger, target, &Edit::Add(add)).await?;
    Ok(())
}

/// Who changes tags, and under which rule.
pub(crate) struct Tagger<'a> {
    /// The person it is recorded for (none: the service).
    pub author: Option<i32>,
    /// The rule that acts, when one does.
    pub via: Option<&'a Via>,
    /// Whether names off the curated list are refused (free tags are off and a person, not a rule, tags).
    pub curated_only: bool,
}

/// What [`write`] did.
pub(crate) enum Written {
    /// The tags after the change.
    Changed(Vec<String>),
    /// Nothing differed: the tags as they are.
    Unchanged(Vec<String>),
}

/// Apply `edit` (names normalised) to `t`, locked in `txn` by the caller, who checked who may: the rows, the
/// audit record, the `ticket.tagged` webhook and the generation, all in `txn`.
pub(crate) async fn write(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    tagger: &Tagger<'_>,
    t: &ticket::Model,
    edit: &Edit,
) -> AppResult<Written> {
    let current = names_of(txn, t.id).await?;
    let Some(change) = TagChange::of(&current, edit)? else {
        return Ok(Written::Unchanged(current));
    };
    let mut writes = relink(
        txn,
        state.tags,
        t,
        &change.before,
        &change.after,
        tagger.curated_only,
    )
    .await?;
    writes.push(audit::insert_of(change.record(tagger, t.id)?).into());
    writes.extend(counters::on_updated(t.status, t.status)?.map(Into::into));
    let (added, removed, after) = (&change.added, &change.removed, &change.after);
    let mut hooks = events::Hooks::default();
    let rows = events::ticket_tagged_rows(
        txn,
        &mut hooks,
        state.config,
        t,
        added,
        removed,
        after,
        tagger.via,
    )
    .await?;
    writes.extend(crate::notify::outbox::insert_of(rows).map(Write::from));
    run_together(txn, writes).await?;
    Ok(Written::Changed(change.after))
}

/// One change of a ticket's tags, worked out in memory: the names before and after (sorted), and those it
/// puts on and takes off.
pub(crate) struct TagChange {
    /// The tags before.
    pub before: Vec<String>,
    /// The tags after.
    pub after: Vec<String>,
    /// Put on.
    pub added: Vec<String>,
    /// Taken off.
    pub removed: Vec<String>,
}

impl TagChange {
    /// `edit` applied to the tags `current`: `None` when nothing differs, 400 when the ticket would hold more
    /// than [`MAX_PER_TICKET`].
    pub(crate) fn of(current: &[String], edit: &Edit) -> AppResult<Option<TagChange>> {
        let before: BTreeSet<String> = current.iter().cloned().collect();
        let mut after = before.clone();
        match edit {
            Edit::Add(names) => after.extend(names.iter().cloned()),
            Edit::Remove(names) => names.iter().for_each(|n| {
                after.remove(n);
            }),
            Edit::Replace(names) => after = names.iter().cloned().collect(),
        }
        let added: Vec<String> = after.difference(&before).cloned().collect();
        let removed: Vec<String> = before.difference(&after).cloned().collect();
        if added.is_empty() && removed.is_empty() {
            return Ok(None);
        }
        if after.len() > MAX_PER_TICKET {
            return Err(AppError::field(
                "tags",
                format!("a ticket holds at most {MAX_PER_TICKET} tags"),
            ));
        }
        Ok(Some(TagChange {
            before: before.into_iter().collect(),
            after: after.into_iter().collect(),
            added,
            removed,
        }))
    }

    /// The audit record of this change of ticket `ticket_id`'s tags by `tagger` (internal: tags are the
    /// team's).
    pub(crate) fn record(&self, tagger: &Tagger<'_>, ticket_id: i32) -> AppResult<audit::Entry> {
        let mut changes = json!({ "tags": [self.before, self.after] });
        if let Some(via) = tagger.via {
            changes["via"] = serde_json::to_value(via).map_err(AppError::internal)?;
        }
        // A rule's record is nobody's, as its changes are.
        let author = tagger.author.filter(|_| tagger.via.is_none());
        Ok(audit::Entry::new(author, "ticket", ticket_id, "tag")
            .ticket(ticket_id)
            .internal(true)
            .changes(changes))
    }
}

/// The writes that take `t`'s tags from `stored` (as the database holds them) to `wanted`: the links put on
/// and the links taken off. A name off the curated list is refused when `curated_only`.
///
/// The links are inserted by name, their ids taken by the statement itself: a tag deleted meanwhile then gets
/// no link, as if the delete had come after. Names all `known` to exist are linked reading nothing; otherwise
/// they are read (and made where missing) first.
pub(crate) async fn relink(
    txn: &DatabaseTransaction,
    known: &KnownTags,
    t: &ticket::Model,
    stored: &[String],
    wanted: &[String],
    curated_only: bool,
) -> AppResult<Vec<Write>> {
    let added: Vec<String> = wanted
        .iter()
        .filter(|n| !stored.contains(n))
        .cloned()
        .collect();
    let removed: Vec<String> = stored
        .iter()
        .filter(|n| !wanted.contains(n))
        .cloned()
        .collect();
    let mut writes: Vec<Write> = Vec::new();
    if !added.is_empty() {
        // Names all known to exist are linked as they are; otherwise they are checked and made first.
        if curated_only || added.iter().any(|n| known.known(n).is_none()) {
            ensure(txn, known, &added, curated_only).await?;
        }
        writes.push(links_by_name(t, added, Utc::now())?.into());
    }
    if !removed.is_empty() {
        let gone = tag::Entity::find()
            .select_only()
            .column(tag::Column::Id)
            .filter(tag::Column::Name.is_in(removed))
            .into_query();
        writes.push(
            ticket_tag::Entity::delete_many()
                .filter(ticket_tag::Column::TicketId.eq(t.id))
                .filter(ticket_tag::Column::TagId.in_subquery(gone))
                .into_query()
                .into(),
        );
    }
    Ok(writes)
}

/// The insert linking `t` to the tags named `names`, their ids taken by the statement itself.
fn links_by_name(
    t: &ticket::Model,
    names: Vec<String>,
    now: chrono::DateTime<Utc>,
) -> AppResult<InsertStatement> {
    use ticket_tag::Column as Link;
    let ids = Query::select()
        .expr(Expr::val(t.id))
        .column(tag::Column::Id)
        .expr(Expr::val(now))
        .expr(Expr::val(t.created_at))
        .from(tag::Entity)
        .and_where(tag::Column::Name.is_in(names))
        .to_owned();
    let mut insert = Query::insert();
    insert
        .into_table(ticket_tag::Entity)
        .columns([
            Link::TicketId,
            Link::TagId,
            Link::CreatedAt,
            Link::TicketCreatedAt,
        ])
        .select_from(ids)
        .map_err(AppError::internal)?
        .on_conflict(
            OnConflict::columns([Link::TicketId, Link::TagId])
                .do_nothing()
                .to_owned(),
        );
    Ok(insert)
}

/// Make the tags `names` where missing. While free tags are off, a name that is not curated is refused when
/// `curated_only` (400 naming it).
async fn ensure(
    db: &impl ConnectionTrait,
    remembered: &KnownTags,
    names: &[String],
    curated_only: bool,
) -> AppResult<()> {
    let seen = remembered.seen();
    let known: HashMap<String, tag::Model> = tag::Entity::find()
        .filter(tag::Column::Name.is_in(names.iter().cloned()))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect();
    // Only names that existed before this transaction: one it makes may yet be rolled back.
    for name in known.keys() {
        remembered.remember(seen, name.clone(), ());
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !known.get(*n).is_some_and(|t| t.curated))
        .collect();
    if !missing.is_empty() && curated_only {
        return Err(AppError::field(
            "tags",
            format!(
                "{} not on the tag list, and only listed tags may be used",
                missing
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let new: Vec<&String> = names.iter().filter(|n| !known.contains_key(*n)).collect();
    if !new.is_empty() {
        let now = Utc::now();
        let rows = new.iter().map(|name| tag::ActiveModel {
            id: ActiveValue::NotSet,
            name: Set((*name).clone()),
            curated: Set(false),
            created_at: Set(now),
        });
        // A concurrent first use of the same name is not an error.
        tag::Entity::insert_many(rows)
            .on_conflict(
                OnConflict::column(tag::Column::Name)
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

/// The tag names of one ticket, sorted (no visibility check: callers check the ticket).
pub(crate) async fn names_of(db: &impl ConnectionTrait, ticket_id: i32) -> AppResult<Vec<String>> {
    let rows = db.query_all(&names_query(ticket_id)).await?;
    Ok(rows
        .iter()
        .map(|row| row.try_get_by_index::<String>(0))
        .collect::<Result<_, sea_orm::DbErr>>()?)
}

/// The select of [`names_of`], for a write that reads the tags in its own statement.
pub(crate) fn names_query(ticket_id: i32) -> sea_orm::sea_query::SelectStatement {
    ticket_tag::Entity::find()
        .select_only()
        .column_as(Expr::col((tag::Entity, tag::Column::Name)), "name")
        .join(sea_orm::JoinType::InnerJoin, link_to_tag())
        .filter(ticket_tag::Column::TicketId.eq(ticket_id))
        .order_by_asc(Expr::col((tag::Entity, tag::Column::Name)))
        .into_query()
}

/// The tags of the row's ticket (`tickets.id`) as one column, for a ticket read that brings them along
/// (`service::tickets::Joined::tags`): the names joined by commas, which no name holds ([`normalise`]), or
/// NULL for none. Whether the reader may see them is for the reader to decide: [`names_seen`].
pub(crate) fn names_column(backend: sea_orm::DbBackend) -> Expr {
    let joined = match backend {
        sea_orm::DbBackend::Postgres => "string_agg(tags.name, ',')",
        _ => "group_concat(tags.name, ',')",
    };
    Expr::cust(format!(
        "(SELECT {joined} FROM ticket_tags JOIN tags ON tags.id = ticket_tags.tag_id \
         WHERE ticket_tags.ticket_id = tickets.id)"
    ))
}

/// The tags [`names_column`] read of `t`, sorted, if `actor` may see them; `None` otherwise.
pub(crate) fn names_seen(actor: &Actor, t: &ticket::Model, column: &str) -> Option<Vec<String>> {
    if !can_tag(actor, t) {
        return None;
    }
    let mut names: Vec<String> = column
        .split(',')
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    names.sort_unstable();
    Some(names)
}

fn link_to_tag() -> sea_orm::RelationDef {
    ticket_tag::Entity::belongs_to(tag::Entity)
        .from(ticket_tag::Column::TagId)
        .to(tag::Column::Id)
        .into()
}

fn link_to_ticket() -> sea_orm::RelationDef {
    ticket_tag::Entity::belongs_to(ticket::Entity)
        .from(ticket_tag::Column::TicketId)
        .to(ticket::Column::Id)
        .into()
}

/// The tags of a ticket the actor may see (404 otherwise) and tag (403 otherwise), sorted.
pub async fn of_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<Vec<String>> {
    let t = tickets::get(db, actor, ticket_id).await?;
    if !can_tag(actor, &t) {
        return Err(AppError::forbidden("tags are the team's"));
    }
    names_of(db, ticket_id).await
}

/// The tags of each of `ticket_ids` whose tags the actor may see (live tickets they see, as the team or its
/// workers), sorted; one statement for any number. Tickets without such tags are absent.
pub async fn of_tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
) -> AppResult<HashMap<i32, Vec<String>>> {
    if ticket_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let readable = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::Id)
        .filter(ticket::Column::Id.is_in(ticket_ids.iter().copied()))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::internally_readable(actor));
    let pairs: Vec<(i32, String)> = ticket_tag::Entity::find()
        .select_only()
        .column(ticket_tag::Column::TicketId)
        .column_as(Expr::col((tag::Entity, tag::Column::Name)), "name")
        .join(sea_orm::JoinType::InnerJoin, link_to_tag())
        .filter(ticket_tag::Column::TicketId.in_subquery(readable.into_query()))
        .order_by_asc(Expr::col((tag::Entity, tag::Column::Name)))
        .into_tuple()
        .all(db)
        .await?;
    let mut out: HashMap<i32, Vec<String>> = HashMap::new();
    for (id, name) in pairs {
        out.entry(id).or_default().push(name);
    }
    Ok(out)
}

/// A tag in the list, with how many live tickets carry it.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct TagCount {
    /// The name.
    pub name: String,
    /// On the curated list.
    pub curated: bool,
    /// Live tickets carrying it.
    pub tickets: i64,
}

/// Tags in use or curated, most used first (then by name), whose name contains `query`; at most `limit`
/// (1–[`MAX_LISTED`]). The team's only (403 otherwise).
pub async fn list(
    db: &impl ConnectionTrait,
    actor: &Actor,
    query: Option<&str>,
    limit: u64,
) -> AppResult<Vec<TagCount>> {
    if !actor.is_team() {
        return Err(AppError::forbidden("tags are the team's"));
    }
    let live = Query::select()
        .expr(Expr::col(sea_orm::sea_query::Asterisk).count())
        .from(ticket_tag::Entity)
        .inner_join(
            ticket::Entity,
            Expr::col((ticket::Entity, ticket::Column::Id))
                .equals((ticket_tag::Entity, ticket_tag::Column::TicketId)),
        )
        .and_where(
            Expr::col((ticket_tag::Entity, ticket_tag::Column::TagId))
                .equals((tag::Entity, tag::Column::Id)),
        )
        .and_where(Expr::col((ticket::Entity, ticket::Column::ArchivedAt)).is_null())
        .to_owned();
    let count = Expr::SubQuery(
        None,
        Box::new(sea_orm::sea_query::SubQueryStatement::from(live)),
    );
    let mut select = tag::Entity::find()
        .select_only()
        .column(tag::Column::Name)
        .column(tag::Column::Curated)
        .column_as(count.clone(), "tickets");
    if let Some(q) = query.map(str::trim).filter(|q| !q.is_empty()) {
        crate::service::text::single_line("q", q)?;
        let escaped = q
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        select = select.filter(
            Expr::col((tag::Entity, tag::Column::Name))
                .like(sea_orm::sea_query::LikeExpr::new(format!("%{escaped}%")).escape('\\')),
        );
    }
    let listed = select
        .filter(
            sea_orm::Condition::any()
                .add(tag::Column::Curated.eq(true))
                .add(count.clone().gt(0)),
        )
        .order_by_desc(count)
        .order_by_asc(tag::Column::Name)
        .limit(limit.clamp(1, MAX_LISTED))
        .into_model::<TagCount>()
        .all(db)
        .await?;
    Ok(listed)
}

/// One tag with its use (the team's; 404 for an unknown name).
pub async fn get(db: &impl ConnectionTrait, actor: &Actor, name: &str) -> AppResult<TagCount> {
    if !actor.is_team() {
        return Err(AppError::forbidden("tags are the team's"));
    }
    let name = normalise("name", name).map_err(|_| AppError::not_found("tag"))?;
    one(db, &name).await
}

/// Whether free tags are allowed, as the team reads it.
pub async fn settings(db: &impl ConnectionTrait, actor: &Actor) -> AppResult<bool> {
    if !actor.is_team() {
        return Err(AppError::forbidden("tags are the team's"));
    }
    free_tags(db).await
}

/// Whether names off the curated list may be put on tickets (on unless an admin turned it off).
pub async fn free_tags(db: &impl ConnectionTrait) -> AppResult<bool> {
    let found = setting::Entity::find_by_id(FREE_TAGS_KEY.to_string())
        .one(db)
        .await?;
    Ok(found.is_none_or(|s| s.value != "false"))
}

fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden("only admins manage the tag list"))
    }
}

/// Turn free tags on or off (admins). Tags already on tickets stay.
pub async fn set_free_tags(db: &crate::db::Db, actor: &Actor, free: bool) -> AppResult<bool> {
    require_admin(actor)?;
    let txn = db.begin_write().await?;
    let row = setting::ActiveModel {
        key: Set(FREE_TAGS_KEY.to_string()),
        value: Set(free.to_string()),
    };
    setting::Entity::insert(row)
        .on_conflict(
            OnConflict::column(setting::Column::Key)
                .update_column(setting::Column::Value)
                .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "setting", 0, "update")
            .changes(json!({ FREE_TAGS_KEY: [null, free] })),
    )
    .await?;
    txn.commit().await?;
    Ok(free)
}

/// A change to a tag across every ticket (admins).
#[derive(Debug, Clone, Default)]
pub struct TagUpdate {
    /// A new name; when another tag has it, the two are merged into that one.
    pub name: Option<String>,
    /// On or off the curated list.
    pub curated: Option<bool>,
}

/// Put `name` on the curated list, making the tag if it is new (admins).
pub async fn curate(db: &crate::db::Db, actor: &Actor, name: &str) -> AppResult<TagCount> {
    require_admin(actor)?;
    let name = normalise("name", name)?;
    let txn = db.begin_write().await?;
    ensure_unchecked(&txn, &name).await?;
    set_curated(&txn, actor, &name, None, true).await?;
    txn.commit().await?;
    one(&db.conn, &name).await
}

/// Move tag `name` on or off the curated list (`was`: where it was, none for a new tag), audited.
async fn set_curated(
    txn: &DatabaseTransaction,
    actor: &Actor,
    name: &str,
    was: Option<bool>,
    curated: bool,
) -> AppResult<()> {
    tag::Entity::update_many()
        .col_expr(tag::Column::Curated, Expr::value(curated))
        .filter(tag::Column::Name.eq(name))
        .exec(txn)
        .await?;
    let old_name = was.map(|_| name);
    audit_tag(
        txn,
        actor,
        "curate",
        json!({ "name": [old_name, name], "curated": [was, curated] }),
    )
    .await
}

async fn ensure_unchecked(db: &impl ConnectionTrait, name: &str) -> AppResult<()> {
    let row = tag::ActiveModel {
        id: ActiveValue::NotSet,
        name: Set(name.to_string()),
        curated: Set(false),
        created_at: Set(Utc::now()),
    };
    tag::Entity::insert(row)
        .on_conflict(
            OnConflict::column(tag::Column::Name)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(())
}

async fn audit_tag(
    db: &impl ConnectionTrait,
    actor: &Actor,
    action: &'static str,
    changes: serde_json::Value,
) -> AppResult<()> {
    audit::record(
        db,
        audit::Entry::new(Some(actor.id()), "tag", 0, action).changes(changes),
    )
    .await?;
    Ok(())
}

/// One tag with its count (404 when there is none by that name).
async fn one(db: &impl ConnectionTrait, name: &str) -> AppResult<TagCount> {
    let found = tag::Entity::find()
        .filter(tag::Column::Name.eq(name))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("tag"))?;
    let tickets = ticket_tag::Entity::find()
        .join(sea_orm::JoinType::InnerJoin, link_to_ticket())
        .filter(ticket_tag::Column::TagId.eq(found.id))
        .filter(ticket::Column::ArchivedAt.is_null())
        .count(db)
        .await?;
    Ok(TagCount {
        name: found.name,
        curated: found.curated,
        tickets: i64::try_from(tickets).unwrap_or(i64::MAX),
    })
}

/// Rename a tag on every ticket, merge it into another by naming that one, or move it on or off the curated
/// list (admins; 404 for an unknown tag).
pub async fn update(
    db: &crate::db::Db,
    known: &KnownTags,
    actor: &Actor,
    name: &str,
    change: TagUpdate,
) -> AppResult<TagCount> {
    require_admin(actor)?;
    let from = normalise("name", name).map_err(|_| AppError::not_found("tag"))?;
    let to = change
        .name
        .as_deref()
        .map(|to| normalise("name", to))
        .transpose()?;
    let txn = db.begin_write().await?;
    let source = tag::Entity::find()
        .filter(tag::Column::Name.eq(from.clone()))
        .lock_exclusive()
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("tag"))?;
    let mut name = source.name.clone();
    let mut curated = source.curated;
    if let Some(to) = to.filter(|to| *to != source.name) {
        let target = tag::Entity::find()
            .filter(tag::Column::Name.eq(to.clone()))
            .lock_exclusive()
            .one(&txn)
            .await?;
        match target {
            Some(target) => {
                // A merge: the source's tickets carry the target, then the source goes.
                txn.execute_raw(merge_statement(
                    txn.get_database_backend(),
                    source.id,
                    target.id,
                ))
                .await?;
                tag::Entity::delete_by_id(source.id).exec(&txn).await?;
                curated = target.curated || source.curated;
                tag::Entity::update_many()
                    .col_expr(tag::Column::Curated, Expr::value(curated))
                    .filter(tag::Column::Id.eq(target.id))
                    .exec(&txn)
                    .await?;
                audit_tag(&txn, actor, "merge", json!({ "name": [source.name, to] })).await?;
            }
            None => {
                // A tag of that name made meanwhile (a first use racing the rename) is a 400, not a 500:
                // sent again, the rename finds it and merges.
                tag::Entity::update_many()
                    .col_expr(tag::Column::Name, Expr::value(to.clone()))
                    .filter(tag::Column::Id.eq(source.id))
                    .exec(&txn)
                    .await
                    .on_unique(
                        "name",
                        "a tag of that name was just made; send the rename again to merge",
                    )?;
                audit_tag(&txn, actor, "rename", json!({ "name": [source.name, to] })).await?;
            }
        }
        name = to;
        counters::on_clock_moved(&txn).await?;
    }
    let renamed = name != source.name;
    if let Some(c) = change.curated.filter(|c| *c != curated) {
        set_curated(&txn, actor, &name, Some(curated), c).await?;
    }
    txn.commit().await?;
    if renamed {
        known.changed(db).await;
    }
    one(&db.conn, &name).await
}

/// The statement giving every ticket tagged `from` the tag `to` too (kept once where it had both).
fn merge_statement(backend: sea_orm::DbBackend, from: i32, to: i32) -> sea_orm::Statement {
    let sql = "INSERT INTO ticket_tags (ticket_id, tag_id, created_at, ticket_created_at) \
               SELECT ticket_id, $1, created_at, ticket_created_at FROM ticket_tags WHERE tag_id = $2 \
               ON CONFLICT (ticket_id, tag_id) DO NOTHING";
    let sql = match backend {
        sea_orm::DbBackend::Postgres => sql.to_string(),
        _ => sql.replace("$1", "?").replace("$2", "?"),
    };
    sea_orm::Statement::from_sql_and_values(backend, sql, [to.into(), from.into()])
}

/// Take a tag off every ticket and out of the list (admins; 404 for an unknown tag).
pub async fn delete(
    db: &crate::db::Db,
    known: &KnownTags,
    actor: &Actor,
    name: &str,
) -> AppResult<()> {
    require_admin(actor)?;
    let name = normalise("name", name).map_err(|_| AppError::not_found("tag"))?;
    let txn = db.begin_write().await?;
    let deleted = tag::Entity::delete_many()
        .filter(tag::Column::Name.eq(name.clone()))
        .exec(&txn)
        .await?;
    if deleted.rows_affected == 0 {
        return Err(AppError::not_found("tag"));
    }
    audit_tag(&txn, actor, "delete", json!({ "name": [name, null] })).await?;
    counters::on_clock_moved(&txn).await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_are_trimmed_lowercased_and_spaced_once() -> AppResult<()> {
        assert_eq!(normalise("tags", "  VPN  Outage ")?, "vpn outage");
        assert_eq!(normalise("tags", "Ärger\tim\nBüro")?, "ärger im büro");
        assert!(normalise("tags", "   ").is_err());
        assert!(normalise("tags", "a,b").is_err());
        assert!(normalise("tags", &"x".repeat(51)).is_err());
        assert_eq!(normalise("tags", &"ß".repeat(50))?.chars().count(), 50);
        Ok(())
    }

    proptest! {
        #[test]
        fn normalising_is_idempotent_and_bounded(raw in "\\PC{0,80}") {
            if let Ok(name) = normalise("tags", &raw) {
                prop_assert_eq!(normalise("tags", &name).ok(), Some(name.clone()));
                prop_assert!(!name.is_empty() && name.chars().count() <= MAX_LEN);
                prop_assert_eq!(name.trim(), name.as_str());
                prop_assert!(!name.contains("  ") && !name.contains(','));
                prop_assert_eq!(name.to_lowercase(), name.clone());
            }
        }

        #[test]
        fn equal_names_up_to_case_and_spacing_are_one(raw in "[a-zA-Z ]{1,40}") {
            let spaced = format!("  {}  ", raw.to_uppercase().replace(' ', "   "));
            prop_assert_eq!(normalise("tags", &raw).ok(), normalise("tags", &spaced).ok());
        }
    }
}
