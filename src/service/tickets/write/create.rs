//! Creating a ticket: its number, counters, SLA clock, audit record, outbox rows and idempotency key in
//! one statement.
use super::triggered::{self, Ran};
use super::{check_group, check_project, clean_description, NewTicket};
use crate::auth::Actor;
use crate::domain::{format_ticket_number, Channel, Priority, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::custom_fields;
use crate::service::events;
use crate::service::idempotency::{self, IdempotencyKey};
use crate::service::text;
use crate::service::tickets::counters;
use crate::service::WriteDeps;
use crate::service::{attachments, links, sla, users};
use crate::storage::BlobStore;
use chrono::Utc;
use entity::{mail_message, ticket, ticket_sla};
use sea_orm::{
    ActiveModelTrait, ConnectionTrait, DatabaseTransaction, DbBackend, EntityTrait,
    IntoActiveModel, QueryTrait, Set, Statement,
};
use serde_json::json;

/// The next ticket number and the id the new row will have. Bumping the counter takes its row lock
/// (PostgreSQL) or holds the write lock (SQLite) until commit, so numbers are consecutive and a
/// rolled-back create gives its number back; everything else the create needs is read before it.
async fn reserve(db: &impl ConnectionTrait) -> AppResult<(i64, i32)> {
    let next_id = match db.get_database_backend() {
        DbBackend::Postgres => "nextval(pg_get_serial_sequence('tickets', 'id'))",
        // The table is AUTOINCREMENT: ids are never reused, and the writer holds the database lock.
        _ => {
            "max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'tickets'), 0), \
                 coalesce((SELECT max(id) FROM tickets), 0)) + 1"
        }
    };
    let stmt = Statement::from_string(
        db.get_database_backend(),
        format!(
            "UPDATE counters SET value = value + 1 WHERE name = 'ticket_number' \
             RETURNING value, {next_id}"
        ),
    );
    let row = db
        .query_one_raw(stmt)
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("ticket_number counter missing")))?;
    let number = row.try_get_by_index::<i64>(0)?;
    let id = i32::try_from(row.try_get_by_index::<i64>(1)?).map_err(AppError::internal)?;
    Ok((number, id))
}

/// Now, to the microsecond both databases keep, so a row built here equals the row read back.
fn now_stored() -> chrono::DateTime<Utc> {
    super::to_micros(Utc::now())
}

/// Only the team assigns: a requester naming an assignee or a group is refused before anything about them is
/// read, so the answer says nothing about the account or group named (docs/decisions.md).
fn check_assignment_allowed(actor: &Actor, input: &NewTicket) -> AppResult<()> {
    if actor.is_team() {
        return Ok(());
    }
    if input.assignee_id.is_some() {
        return Err(AppError::forbidden_field(
            "assigned_to",
            "only team members may assign tickets",
        ));
    }
    if input.assigned_group_id.is_some() {
        return Err(AppError::forbidden_field(
            "assigned_group",
            "only team members may assign tickets",
        ));
    }
    Ok(())
}

/// How an idempotency key is named in errors: the GraphQL input field (the REST door renames it).
pub const KEY_FIELD: &str = "idempotency_key";

/// The key, and the fingerprint of the create it was sent with: every input field, as sent.
fn keyed(input: &NewTicket) -> AppResult<Option<(&IdempotencyKey, String)>> {
    let Some(key) = &input.idempotency_key else {
        return Ok(None);
    };
    let asked = json!({
        "create": "ticket",
        "title": input.title,
        "description": input.description,
        "priority": input.priority,
        "project": input.project_id,
        "assignee": input.assignee_id,
        "group": input.assigned_group_id,
        "due_date": input.due_date,
        "requester": input.requester_id,
        "custom_fields": input.custom_fields,
    });
    Ok(Some((key, idempotency::fingerprint(&asked)?)))
}

/// Create a ticket (status `new`) with its number, counters, audit record and outbox rows, all
/// written in one statement on PostgreSQL while the number is locked.
///
/// With an idempotency key, a create this account already made under that key within a day is not made
/// again: its first answer is returned (a different request under the key is a 409), also when the two
/// race (see `service::idempotency`).
pub async fn create(
    state: WriteDeps<'_>,
    actor: &Actor,
    input: NewTicket,
) -> AppResult<ticket::Model> {
    create_along(state, actor, input, Along::default()).await
}

/// What commits with a new ticket besides its own rows: files opened with it, and the record of the mail
/// message it came from (`service::mail_in`), so that neither is ever written without the other.
#[derive(Default)]
pub struct Along<'a> {
    /// Files, each a client file name and its spooled bytes, stored in `storage`.
    pub files: Vec<(String, attachments::Spooled)>,
    /// Where the files' bytes go (none: the files are left out).
    pub storage: Option<&'a dyn BlobStore>,
    /// The mail message's record; its ticket is filled in here.
    pub receipt: Option<mail_message::ActiveModel>,
    /// A ticket the new one follows up (a reply by mail to a finished ticket): the two are related.
    pub related: Option<ticket::Model>,
}

/// [`create`] with what commits along with the ticket ([`Along`]). A bad file is a 400 on `file` before
/// anything is written; a create answered from its idempotency key writes none of it again.
pub async fn create_along(
    state: WriteDeps<'_>,
    actor: &Actor,
    input: NewTicket,
    along: Along<'_>,
) -> AppResult<ticket::Model> {
    for (name, upload) in &along.files {
        attachments::check(name, upload)?;
    }
    check_assignment_allowed(actor, &input)?;
    let keyed = keyed(&input)?;
    let mut expired = false;
    if let Some((key, fingerprint)) = &keyed {
        if let Some(recorded) = idempotency::recall(&state.db.conn, actor.id(), key).await? {
            if !recorded.expired(Utc::now()) {
                return recorded.replay(fingerprint, KEY_FIELD);
            }
            expired = true;
        }
    }
    let made = make(state, actor, &input, keyed.clone(), expired, along).await;
    match (made, keyed) {
        // The key's record, committed meanwhile by a create racing this one, answers instead.
        (Err(err), Some((key, fingerprint))) => {
            match idempotency::recall(&state.db.conn, actor.id(), key).await? {
                Some(recorded) if !recorded.expired(Utc::now()) => {
                    recorded.replay(&fingerprint, KEY_FIELD)
                }
                _ => Err(err),
            }
        }
        (made, _) => made,
    }
}

/// [`create`] once it is known to be made.
async fn make(
    state: WriteDeps<'_>,
    actor: &Actor,
    input: &NewTicket,
    keyed: Option<(&IdempotencyKey, String)>,
    replace_expired_key: bool,
    along: Along<'_>,
) -> AppResult<ticket::Model> {
    let prepared = prepare(state, actor, input).await?;
    let mut staged = Vec::with_capacity(along.files.len());
    if let Some(storage) = along.storage {
        for (name, upload) in along.files {
            staged.push(attachments::stage(state.db, storage, name, upload).await?);
        }
    }
    let txn = state.db.begin_write().await?;
    if let (Some((key, _)), true) = (&keyed, replace_expired_key) {
        idempotency::forget_expired(&txn, actor.id(), key, prepared.new.created_at).await?;
    }
    let ran = insert(&txn, state, actor, prepared, keyed).await?;
    for file in staged {
        attachments::insert(&txn, actor, &ran.ticket, None, file).await?;
    }
    if let Some(other) = &along.related {
        links::relate(&txn, state, actor, &ran.ticket, other).await?;
    }
    if let Some(mut receipt) = along.receipt {
        receipt.ticket_id = Set(Some(ran.ticket.id));
        receipt.insert(&txn).await?;
    }
    txn.commit().await?;
    ran.publish_created(state).await;
    Ok(ran.ticket)
}

/// A new ticket checked and read for, before its transaction: the row (without its id and number), who hears of
/// it, its SLA clock and the active triggers.
pub(super) struct Prepared {
    new: ticket::Model,
    fields: std::sync::Arc<custom_fields::Defined>,
    edits: Vec<custom_fields::FieldEdit>,
    /// Held to the fields required from the start: opened by a person through a form or an API that can
    /// carry their values, not by mail, a split or the service.
    hold_required: bool,
    announce: events::TicketCreated,
    clock: Option<sla::NewClock>,
    triggers: std::sync::Arc<Vec<crate::service::automation::Trigger>>,
}

impl Prepared {
    /// Not held to the fields required from the start (a ticket split off another cannot be given them).
    pub(super) fn without_required(mut self) -> Self {
        self.hold_required = false;
        self
    }
}

/// Check `input` and read everything its create needs, so that the transaction, which holds the ticket-number
/// lock, only writes.
pub(super) async fn prepare(
    state: WriteDeps<'_>,
    actor: &Actor,
    input: &NewTicket,
) -> AppResult<Prepared> {
    let title = text::required_line("title", &input.title)?;
    let description = clean_description(input.description.as_deref().unwrap_or(""))?;
    let db = &state.db.conn;
    let requester_id = match input.requester_id {
        Some(id) if id != actor.id() => {
            if !actor.is_team() {
                return Err(AppError::forbidden(
                    "only team members may open tickets for someone else",
                ));
            }
            id
        }
        _ => actor.id(),
    };
    // One read of the people named: checked here, mailed by the outbox rows.
    let named = [Some(requester_id), input.assignee_id];
    let active = users::recipients(db, named.into_iter().flatten()).await?;
    let must_exist = |field: &str, id: i32| {
        if active.contains_key(&id) || id == actor.id() {
            Ok(())
        } else {
            Err(AppError::field(field, format!("user {id} does not exist")))
        }
    };
    must_exist("requester", requester_id)?;
    if let Some(id) = input.project_id {
        check_project(db, id).await?;
    }
    if let Some(id) = input.assignee_id {
        must_exist("assigned_to", id)?;
    }
    if let Some(id) = input.assigned_group_id {
        check_group(db, id).await?;
    }
    let fields = state.fields.active(db).await?;
    let edits = custom_fields::prepare(
        db,
        actor,
        &fields,
        input.project_id,
        None,
        &input.custom_fields,
    )
    .await?;
    let announce = events::TicketCreated::prepare(
        db,
        state.config,
        actor,
        &active,
        requester_id,
        input.assignee_id,
    )
    .await?;
    let priority = input.priority.unwrap_or(Priority::Medium);
    let sla_policies = state.policies.for_priority(db, priority).await?;
    let now = now_stored();
    let new = ticket::Model {
        // Set once the number is taken, below.
        id: 0,
        number: 0,
        ticket_number: String::new(),
        title,
        description,
        status: TicketStatus::New,
        priority,
        requester_id,
        assignee_id: input.assignee_id,
        assigned_group_id: input.assigned_group_id,
        project_id: input.project_id,
        due_date: input.due_date,
        created_at: now,
        updated_at: now,
        first_responded_at: None,
        resolved_at: None,
        closed_at: None,
        archived_at: None,
        archived_by_id: None,
        public_comment_count: 0,
        all_comment_count: 0,
        status_changed_at: Some(now),
        merged_into_id: None,
    };
    // Everything that does not need the id or the number is done before taking them: every create waits
    // on the number's lock until this one commits.
    let clock = sla::on_created(&sla_policies, &new);
    let triggers = state.triggers.active(db).await?;
    let hold_required = matches!(
        state.channel,
        Channel::Web | Channel::Rest | Channel::Graphql
    );
    Ok(Prepared {
        new,
        fields,
        edits,
        hold_required,
        announce,
        clock,
        triggers,
    })
}

/// Write the prepared ticket in `txn`: its number, row, counters, clock, audit record, outbox rows and
/// idempotency key, with what the triggers of its creation change (`triggered::on_create`). The caller commits,
/// then publishes.
pub(super) async fn insert(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    prepared: Prepared,
    keyed: Option<(&IdempotencyKey, String)>,
) -> AppResult<Ran> {
    let Prepared {
        mut new,
        fields,
        edits,
        hold_required,
        announce,
        clock,
        triggers,
    } = prepared;
    let now = new.created_at;
    let (number, id) = reserve(txn).await?;
    new.id = id;
    new.number = number;
    new.ticket_number = format_ticket_number(&state.config.ticket_prefix, number);
    let changes = json!({
        "ticket_number": [null, new.ticket_number],
        "title": [null, new.title],
        "status": [null, new.status],
        "priority": [null, new.priority],
        "requester_id": [null, new.requester_id],
        "assignee_id": [null, new.assignee_id],
        "assigned_group_id": [null, new.assigned_group_id],
        "project_id": [null, new.project_id],
    });
    let mut rest = Vec::new();
    // First, so that on SQLite a key taken meanwhile fails before the other rows are written.
    if let Some((key, fingerprint)) = keyed {
        rest.push(idempotency::insert_of(
            actor.id(),
            key,
            fingerprint,
            &new,
            now,
        )?);
    }
    rest.push(counters::on_created(&new)?);
    let record = audit::Entry::new(Some(actor.id()), "ticket", id, "create")
        .ticket(id)
        .changes(changes);
    let clock = clock.map(|c| c.rows(id));
    let hooks = announce.hooks();
    let mut rows = announce.rows(&new, clock.as_ref().map(|(c, _)| c))?;
    if let Some((clock, checks)) = clock {
        rest.push(ticket_sla::Entity::insert(clock.into_active_model()).into_query());
        rows.extend(checks);
    }
    let creating = triggered::Creating {
        rest,
        record,
        rows,
        edits,
        fields,
        hold_required,
        actor,
    };
    triggered::on_create(txn, state, actor, &triggers, new, creating, hooks).await
}
