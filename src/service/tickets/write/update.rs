//! Changing a ticket's fields, with field permissions and the workflow checked on the locked row.
use super::status::{apply_lifecycle, check_transition};
use super::{check_group, check_project, check_user, clean_description, triggered, TicketPatch};
use crate::auth::Actor;
use crate::db::{run_together, run_together_reading, Write};
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::service::audit::{self, Changes};
use crate::service::automation::{Event, Trigger, Via};
use crate::service::events;
use crate::service::text;
use crate::service::tickets::{self, counters, rules};
use crate::service::{comments, custom_fields, sla, WriteDeps};
use chrono::{DateTime, Utc};
use entity::ticket;
use sea_orm::{ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryTrait, Set};

fn check_patch_permission(
    actor: &Actor,
    current: &ticket::Model,
    patch: &TicketPatch,
) -> AppResult<()> {
    if rules::can_update_all(actor, current) {
        return Ok(());
    }
    if current.requester_id != actor.id() {
        return Err(AppError::forbidden("you may not change this ticket"));
    }
    let refused: Vec<&str> = patch
        .fields()
        .into_iter()
        .filter(|f| !rules::REQUESTER_FIELDS.contains(f))
        .collect();
    if refused.is_empty() {
        Ok(())
    } else {
        Err(AppError::forbidden_fields(
            format!(
                "requesters may only change title, description and priority (not {})",
                refused.join(", ")
            ),
            &refused,
            "requesters may not change this field",
        ))
    }
}

/// A patch checked against the ticket as the actor may see it: permissions, text and what it names. The
/// workflow is checked on the row the change is made to.
struct Checked {
    current: ticket::Model,
    title: Option<String>,
    description: Option<String>,
    fields: std::sync::Arc<custom_fields::Defined>,
    edits: Vec<custom_fields::FieldEdit>,
}

async fn check(
    db: &impl sea_orm::ConnectionTrait,
    actor: &Actor,
    id: i32,
    patch: &TicketPatch,
    fields: std::sync::Arc<custom_fields::Defined>,
) -> AppResult<Checked> {
    let current = tickets::get(db, actor, id).await?;
    check_patch_permission(actor, &current, patch)?;
    let title = patch
        .title
        .as_deref()
        .map(|title| text::required_line("title", title))
        .transpose()?;
    let description = patch
        .description
        .as_deref()
        .map(clean_description)
        .transpose()?;
    if let Some(Some(pid)) = patch.project_id {
        if current.project_id != Some(pid) {
            check_project(db, pid).await?;
        }
    }
    if let Some(Some(uid)) = patch.assignee_id {
        check_user(db, "assigned_to", uid).await?;
    }
    if let Some(Some(gid)) = patch.assigned_group_id {
        check_group(db, gid).await?;
    }
    let edits = match &patch.custom_fields {
        Some(raw) => {
            let project_id = patch.project_id.unwrap_or(current.project_id);
            custom_fields::prepare(db, actor, &fields, project_id, Some(&current), raw).await?
        }
        None => Vec::new(),
    };
    Ok(Checked {
        current,
        title,
        description,
        fields,
        edits,
    })
}

/// The ticket `current` becomes under `patch` (its text already checked), the move checked by the workflow.
fn patched(
    current: &ticket::Model,
    patch: &TicketPatch,
    title: Option<String>,
    description: Option<String>,
    now: DateTime<Utc>,
) -> AppResult<ticket::Model> {
    if current.merged_into_id.is_some() {
        return Err(AppError::conflict(format!(
            "{} was merged into another ticket: change that one",
            current.ticket_number
        )));
    }
    if let Some(next) = patch.status {
        check_transition(current.status, next)?;
    }
    let mut next = current.clone();
    if let Some(t) = title {
        next.title = t;
    }
    if let Some(d) = description {
        next.description = d;
    }
    if let Some(p) = patch.priority {
        next.priority = p;
    }
    if let Some(s) = patch.status {
        next.status = s;
        if s != current.status {
            apply_lifecycle(&mut next, s, now);
        }
    }
    if let Some(v) = patch.project_id {
        next.project_id = v;
    }
    if let Some(v) = patch.assignee_id {
        next.assignee_id = v;
    }
    if let Some(v) = patch.assigned_group_id {
        next.assigned_group_id = v;
    }
    if let Some(v) = patch.due_date {
        next.due_date = v;
    }
    Ok(next)
}

/// What [`update`] would make of the ticket, with every check it makes, written nowhere: the ticket as it is
/// and as it would be (triggers left out: they run on the write itself).
pub async fn preview(
    db: &impl sea_orm::ConnectionTrait,
    actor: &Actor,
    id: i32,
    patch: &TicketPatch,
) -> AppResult<(ticket::Model, ticket::Model)> {
    // Only a patch that sets fields reads their definitions; the write checks the required ones.
    let fields = match patch.custom_fields {
        Some(_) => custom_fields::Defined::load(db).await?,
        None => custom_fields::Defined::default(),
    };
    let checked = check(db, actor, id, patch, std::sync::Arc::new(fields)).await?;
    let next = patched(
        &checked.current,
        patch,
        checked.title,
        checked.description,
        Utc::now(),
    )?;
    Ok((checked.current, next))
}

/// Apply a partial change, enforcing field permissions and the workflow.
pub async fn update(
    state: WriteDeps<'_>,
    actor: &Actor,
    id: i32,
    patch: TicketPatch,
) -> AppResult<ticket::Model> {
    update_noting(state, actor, id, patch, None).await
}

/// [`update`], and then, in the same transaction, a public comment by `actor` with the HTML `note` (a
/// resolution note): both are written or neither is. The comment is checked (as any comment's body) before
/// anything is written, and the triggers see the change and then the comment, as two writes would show them.
pub(super) async fn update_noting(
    state: WriteDeps<'_>,
    actor: &Actor,
    id: i32,
    patch: TicketPatch,
    note: Option<&str>,
) -> AppResult<ticket::Model> {
    let note = note.map(comments::clean_body).transpose()?;
    let fields = state.fields.active(&state.db.conn).await?;
    let checked = check(&state.db.conn, actor, id, &patch, fields).await?;
    // Before the transaction, as every read the write can make early: remembered, mostly.
    let triggers = state.triggers.active(&state.db.conn).await?;
    let note = match note {
        Some(body) => {
            let public = crate::domain::CommentType::Public;
            let answering =
                comments::Answering::read(state, actor, &checked.current, public).await?;
            Some((body, answering))
        }
        None => None,
    };
    let txn = state.db.begin_write().await?;
    let current = super::relock(&txn, id, super::Lock::Write, false).await?;
    let now = Utc::now();
    let next = patched(&current, &patch, checked.title, checked.description, now)?;
    let before = current.clone();
    let action = if patch.fields() == ["status"] {
        "status_change"
    } else {
        "update"
    };
    let set =
        custom_fields::write(&txn, state, Some(actor.id()), None, &next, &checked.edits).await?;
    custom_fields::check_required(
        &txn,
        actor,
        &checked.fields,
        &next,
        Some(before.status),
        &checked.edits,
    )
    .await?;
    let mut hooks = events::Hooks::default();
    let tags = triggers.iter().any(Trigger::touches_tags);
    let written = write_change(
        &txn,
        state,
        Some(actor),
        &mut hooks,
        action,
        current,
        next,
        now,
        tags,
    )
    .await?;
    let only_fields = written.is_none();
    let (saved, tags) = match written {
        Some(Written { ticket, tags }) => (ticket, tags),
        None if set.is_empty() => {
            let noted = match note {
                Some((body, answering)) => Some(
                    comments::add_in(&txn, state, actor, &triggers, &before, body, &answering)
                        .await?,
                ),
                None => None,
            };
            txn.commit().await?;
            return Ok(publish_note(state, before, noted).await);
        }
        // Only custom fields changed: a change all the same, which the triggers see (as the row is now).
        None => {
            let saved = ticket::Entity::find_by_id(id)
                .one(&txn)
                .await?
                .ok_or_else(|| AppError::not_found("ticket"))?;
            (saved, None)
        }
    };
    let event = Event::Updated;
    let ran = triggered::run(
        &txn,
        state,
        actor,
        &triggers,
        event,
        Some(&before),
        saved,
        &set,
        tags,
        hooks,
    )
    .await?;
    let noted = match note {
        Some((body, answering)) => Some(
            comments::add_in(&txn, state, actor, &triggers, &ran.ticket, body, &answering).await?,
        ),
        None => None,
    };
    txn.commit().await?;
    // A change of custom fields alone is told as an update, once: not again when a rule changed a field too.
    let told = publish_change(state, &before, &ran.ticket).await;
    if only_fields && !told {
        let event = LiveEvent::new(LiveKind::Updated, id);
        state.live.publish(state.db, event).await;
    }
    ran.publish_comments(state).await;
    Ok(publish_note(state, ran.ticket, noted).await)
}

/// The live events of a committed note and of what the triggers it fired did to `t`; the ticket as they
/// left it.
async fn publish_note(
    state: WriteDeps<'_>,
    t: ticket::Model,
    noted: Option<(entity::comment::Model, Option<triggered::Ran>)>,
) -> ticket::Model {
    let Some((created, ran)) = noted else {
        return t;
    };
    let event = LiveEvent::comment(t.id, created.id);
    state.live.publish(state.db, event).await;
    match ran {
        Some(ran) => {
            ran.publish(state, &t).await;
            ran.ticket
        }
        None => t,
    }
}

/// Write `next` over `current` (locked in `txn`): the row, the counters, the clock and its checks, the audit
/// record (`action`: `update`, or `status_change` for a move and nothing else) and the events, to `hooks`.
/// `actor` is whoever's write it is (none: the service's), left out of the emails. `None` when nothing differs.
/// (The rules' changes are staged and written together: `triggered`.) With `tags`, the ticket's tags come back
/// from the write's own statement where they can (PostgreSQL: [`crate::db::run_together_reading`]), for the
/// rules that change or ask about them.
#[allow(clippy::too_many_arguments)]
pub(super) async fn write_change(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: Option<&Actor>,
    hooks: &mut events::Hooks,
    action: &'static str,
    current: ticket::Model,
    mut next: ticket::Model,
    now: DateTime<Utc>,
    tags: bool,
) -> AppResult<Option<Written>> {
    let changes = diff(&current, &next);
    if changes.is_empty() {
        return Ok(None);
    }
    next.updated_at = now;
    super::as_stored(&mut next);
    // The row, the counters, the clock and its checks, and the audit record: one statement on PostgreSQL.
    let mut writes = vec![Write::from(row_update(&next))];
    writes.extend(side_writes(txn, state, &current, &next, now).await?);
    writes.push(audit::insert_of(record(actor, None, action, next.id, changes)?).into());
    let skip = actor.map(Actor::id);
    let config = state.config;
    let rows = events::ticket_changed_rows(txn, hooks, config, skip, None, &current, &next).await?;
    writes.extend(crate::notify::outbox::insert_of(rows).map(Write::from));
    let tags = if tags {
        let names = crate::service::tags::names_query(next.id);
        run_together_reading(txn, writes, names).await?
    } else {
        run_together(txn, writes).await?;
        None
    };
    Ok(Some(Written { ticket: next, tags }))
}

/// What [`write_change`] wrote: the row, and the ticket's tags (sorted) when they came with its statement.
pub(super) struct Written {
    /// The ticket as written.
    pub ticket: ticket::Model,
    /// Its tags, when asked for and read in the write's statement.
    pub tags: Option<Vec<String>>,
}

/// What differs between `current` and `next` in the fields a change sets, as its audit record tells it.
pub(super) fn diff(current: &ticket::Model, next: &ticket::Model) -> Changes {
    let mut changes = Changes::new();
    changes.diff("title", &current.title, &next.title);
    changes.diff("description", &current.description, &next.description);
    changes.diff("priority", &current.priority, &next.priority);
    changes.diff("status", &current.status, &next.status);
    changes.diff("project_id", &current.project_id, &next.project_id);
    changes.diff("assignee_id", &current.assignee_id, &next.assignee_id);
    changes.diff(
        "assigned_group_id",
        &current.assigned_group_id,
        &next.assigned_group_id,
    );
    changes.diff("due_date", &current.due_date, &next.due_date);
    changes
}

/// The statement that writes what a change sets of `next` (and its lifecycle times) over its row.
pub(super) fn row_update(next: &ticket::Model) -> sea_orm::sea_query::UpdateStatement {
    let mut active = <ticket::ActiveModel as sea_orm::ActiveModelTrait>::default();
    active.title = Set(next.title.clone());
    active.description = Set(next.description.clone());
    active.priority = Set(next.priority);
    active.status = Set(next.status);
    active.project_id = Set(next.project_id);
    active.assignee_id = Set(next.assignee_id);
    active.assigned_group_id = Set(next.assigned_group_id);
    active.due_date = Set(next.due_date);
    active.resolved_at = Set(next.resolved_at);
    active.closed_at = Set(next.closed_at);
    active.status_changed_at = Set(next.status_changed_at);
    active.updated_at = Set(next.updated_at);
    ticket::Entity::update_many()
        .set(active)
        .filter(ticket::Column::Id.eq(next.id))
        .into_query()
}

/// What a change of the ticket from `before` to `after` writes besides its row: the counters (and the tickets
/// generation, which every write moves), the clock and its checks, the kept metrics of a status move.
pub(super) async fn side_writes(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    before: &ticket::Model,
    after: &ticket::Model,
    now: DateTime<Utc>,
) -> AppResult<Vec<Write>> {
    let mut writes: Vec<Write> = counters::on_updated(before.status, after.status)?
        .into_iter()
        .map(Write::from)
        .collect();
    let clock = sla::on_updated(txn, state.policies, before, after, now).await?;
    writes.extend(clock.into_iter().map(Write::from));
    let kept = crate::service::reports::on_status_moved(before, after, now)?;
    writes.extend(kept.into_iter().map(Write::from));
    Ok(writes)
}

/// The audit record of a change `changes` of ticket `id` (`action`: `update` or `status_change`), by `actor`,
/// or marked `via` the rule that made it (then nobody's).
pub(super) fn record(
    actor: Option<&Actor>,
    via: Option<&Via>,
    action: &'static str,
    id: i32,
    changes: Changes,
) -> AppResult<audit::Entry> {
    let mut changes = changes.into_value();
    if let Some(via) = via {
        changes["via"] = serde_json::to_value(via).map_err(AppError::internal)?;
    }
    let author = actor.filter(|_| via.is_none()).map(Actor::id);
    Ok(audit::Entry::new(author, "ticket", id, action)
        .ticket(id)
        .changes(changes))
}

/// Live events of a committed change: `StatusChanged` when the status moved, `Updated` when any
/// other field did (both when both did). Whether it told of an update.
pub(in crate::service) async fn publish_change(
    state: WriteDeps<'_>,
    before: &ticket::Model,
    after: &ticket::Model,
) -> bool {
    if before.status != after.status {
        let event = LiveEvent::new(LiveKind::StatusChanged, after.id);
        state.live.publish(state.db, event).await;
    }
    let mut others = before.clone();
    others.status = after.status;
    others.resolved_at = after.resolved_at;
    others.closed_at = after.closed_at;
    others.status_changed_at = after.status_changed_at;
    others.updated_at = after.updated_at;
    let updated = others != *after;
    if updated {
        let event = LiveEvent::new(LiveKind::Updated, after.id);
        state.live.publish(state.db, event).await;
    }
    updated
}
