//! Macros: a saved set of ticket changes and replies, in the rule language's actions, that a team member
//! applies in one step (docs/automation.md).
//!
//! A macro is personal (its owner's), a group's (its members use it) or everyone's on the team. Agents
//! manage their personal macros; administrators manage the shared ones. Applying one is the agent's own
//! change: it goes through `tickets::update` and `comments::create` with the agent's permissions, the
//! workflow and the triggers, exactly as if the agent had made each change by hand. A preview makes every
//! check the change would and writes nothing.
use super::known::KnownMacros;
use super::language::{actions_to_json, parse_actions, Action, DueDate};
use super::render;
use crate::auth::Actor;
use crate::db::Db;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::service::comments::{self, NewComment};
use crate::service::tickets::{self, TicketPatch};
use crate::service::{audit, tags, text, WriteDeps};
use chrono::Utc;
use entity::{group, ticket, ticket_macro};
use sea_orm::sea_query::Condition;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use serde_json::{json, Value as Json};

/// Macros one account sees at most (its own, its groups' and everyone's).
pub const MAX_VISIBLE: u64 = 500;
/// Tickets one application changes at most; more is a bulk change.
pub const MAX_TICKETS: usize = 100;

/// Who a macro is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Its owner's alone.
    Personal,
    /// The members of a group.
    Group(i32),
    /// Everyone on the team.
    Everyone,
}

/// The scope of a stored macro.
pub fn scope_of(m: &ticket_macro::Model) -> Scope {
    match (m.owner_id, m.group_id) {
        (Some(_), _) => Scope::Personal,
        (None, Some(g)) => Scope::Group(g),
        (None, None) => Scope::Everyone,
    }
}

/// The actions of a macro: the rule language's, less `notify` and `assign` (a macro sets fields and replies;
/// mailing people and spreading work are a trigger's), checked as a trigger's are (custom field values
/// against the active definitions).
async fn macro_actions(db: &impl ConnectionTrait, raw: &Json) -> AppResult<Json> {
    let mut actions = parse_actions(raw)?;
    if let Some(i) = actions
        .iter()
        .position(|a| matches!(a, Action::Notify { .. }))
    {
        return Err(AppError::field(
            &format!("actions[{i}]"),
            "a macro changes tickets and replies; notify is for triggers",
        ));
    }
    if actions.iter().any(Action::is_set_field) {
        let defined = crate::service::custom_fields::Defined::load(db).await?;
        super::fields::type_actions(&mut actions, &defined)?;
        super::fields::check_named(db, &actions, &defined).await?;
    }
    Ok(actions_to_json(&actions))
}

/// Fields of a new macro.
#[derive(Debug, Clone)]
pub struct NewMacro {
    /// 1-200 characters.
    pub name: String,
    /// Who it is for.
    pub scope: Scope,
    /// The rule language's actions.
    pub actions: Json,
}

/// A change to a macro; absent fields stay.
#[derive(Debug, Clone, Default)]
pub struct MacroPatch {
    /// New name.
    pub name: Option<String>,
    /// New actions.
    pub actions: Option<Json>,
}

fn require_team(actor: &Actor) -> AppResult<()> {
    if actor.is_team() {
        Ok(())
    } else {
        Err(AppError::forbidden("only team members use macros"))
    }
}

/// Whether `actor` may use (see and apply) `m`.
fn can_use(actor: &Actor, m: &ticket_macro::Model) -> bool {
    actor.is_team()
        && match scope_of(m) {
            Scope::Personal => m.owner_id == Some(actor.id()),
            Scope::Group(g) => actor.is_admin() || actor.member_of(Some(g)),
            Scope::Everyone => true,
        }
}

/// Whether `actor` may change or remove `m`: its owner, or an administrator for a shared one.
fn can_manage(actor: &Actor, m: &ticket_macro::Model) -> bool {
    match scope_of(m) {
        Scope::Personal => m.owner_id == Some(actor.id()),
        Scope::Group(_) | Scope::Everyone => actor.is_admin(),
    }
}

/// The macros `actor` may use: personal ones first, then the groups', then everyone's, each by name
/// (remembered per instance in `known`).
pub async fn list(
    db: &impl ConnectionTrait,
    known: &KnownMacros,
    actor: &Actor,
) -> AppResult<std::sync::Arc<Vec<ticket_macro::Model>>> {
    require_team(actor)?;
    known.of(actor, read_list(db, actor)).await
}

/// [`list`] read from the database.
async fn read_list(
    db: &impl ConnectionTrait,
    actor: &Actor,
) -> AppResult<Vec<ticket_macro::Model>> {
    let mut shared = Condition::all().add(ticket_macro::Column::OwnerId.is_null());
    if !actor.is_admin() {
        shared = shared.add(
            Condition::any()
                .add(ticket_macro::Column::GroupId.is_null())
                .add(ticket_macro::Column::GroupId.is_in(actor.group_ids())),
        );
    }
    let mut found = ticket_macro::Entity::find()
        .filter(
            Condition::any()
                .add(ticket_macro::Column::OwnerId.eq(actor.id()))
                .add(shared),
        )
        .order_by_asc(ticket_macro::Column::Name)
        .order_by_asc(ticket_macro::Column::Id)
        .limit(MAX_VISIBLE)
        .all(db)
        .await?;
    found.sort_by_key(|m| match scope_of(m) {
        Scope::Personal => 0,
        Scope::Group(_) => 1,
        Scope::Everyone => 2,
    });
    Ok(found)
}

/// A macro `actor` may use, or 404 (one they may not use is not told apart from one that does not exist).
pub async fn get(
    db: &impl ConnectionTrait,
    actor: &Actor,
    id: i32,
) -> AppResult<ticket_macro::Model> {
    require_team(actor)?;
    ticket_macro::Entity::find_by_id(id)
        .one(db)
        .await?
        .filter(|m| can_use(actor, m))
        .ok_or_else(|| AppError::not_found("macro"))
}

/// Save a new macro: a personal one for any team member, a shared one for administrators.
pub async fn create(
    db: &Db,
    known: &KnownMacros,
    actor: &Actor,
    input: NewMacro,
) -> AppResult<ticket_macro::Model> {
    require_team(actor)?;
    if input.scope != Scope::Personal && !actor.is_admin() {
        return Err(AppError::forbidden(
            "only administrators may share macros with a group or everyone",
        ));
    }
    let name = text::required_line("name", &input.name)?;
    let actions = macro_actions(&db.conn, &input.actions).await?;
    if let Scope::Group(g) = input.scope {
        if group::Entity::find_by_id(g).count(&db.conn).await? == 0 {
            return Err(AppError::field(
                "group",
                format!("group {g} does not exist"),
            ));
        }
    }
    let (owner_id, group_id) = match input.scope {
        Scope::Personal => (Some(actor.id()), None),
        Scope::Group(g) => (None, Some(g)),
        Scope::Everyone => (None, None),
    };
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let created = ticket_macro::ActiveModel {
        name: Set(name),
        owner_id: Set(owner_id),
        group_id: Set(group_id),
        actions: Set(actions),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "macro", created.id, "create").changes(json!({
            "name": [null, created.name],
            "owner_id": [null, created.owner_id],
            "group_id": [null, created.group_id],
            "actions": [null, created.actions],
        })),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(created)
}

/// A macro `actor` may manage (403 when they may only use it, 404 when not even that).
async fn managed(db: &Db, actor: &Actor, id: i32) -> AppResult<ticket_macro::Model> {
    let m = get(&db.conn, actor, id).await?;
    if can_manage(actor, &m) {
        Ok(m)
    } else {
        Err(AppError::forbidden(
            "only administrators may change a shared macro",
        ))
    }
}

/// Change a macro.
pub async fn update(
    db: &Db,
    known: &KnownMacros,
    actor: &Actor,
    id: i32,
    patch: MacroPatch,
) -> AppResult<ticket_macro::Model> {
    let current = managed(db, actor, id).await?;
    let mut changes = audit::Changes::new();
    let mut row: ticket_macro::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        let name = text::required_line("name", name)?;
        changes.diff("name", &current.name, &name);
        row.name = Set(name);
    }
    if let Some(raw) = &patch.actions {
        let actions = macro_actions(&db.conn, raw).await?;
        changes.diff("actions", &current.actions, &actions);
        row.actions = Set(actions);
    }
    if changes.is_empty() {
        return Ok(current);
    }
    row.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let saved = row.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "macro", id, "update").changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(saved)
}

/// Remove a macro.
pub async fn delete(db: &Db, known: &KnownMacros, actor: &Actor, id: i32) -> AppResult<()> {
    let current = managed(db, actor, id).await?;
    let txn = db.begin_write().await?;
    ticket_macro::Entity::delete_by_id(id).exec(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "macro", id, "delete")
            .changes(json!({ "name": [current.name, null] })),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(())
}

/// A reply a macro posts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The body, HTML.
    pub body: String,
    /// An internal note rather than a public reply.
    pub internal: bool,
}

/// What a macro would do to a ticket.
#[derive(Clone, Debug)]
pub struct Preview {
    /// The ticket as it is.
    pub before: ticket::Model,
    /// The ticket as the macro would leave it (before triggers, which run on the write).
    pub after: ticket::Model,
    /// The replies it would post, rendered for the ticket.
    pub replies: Vec<Reply>,
    /// The custom field values it would change: `custom_fields.<key>` and `[old, new]`.
    pub fields: Vec<(String, Json)>,
}

impl Preview {
    /// `{field: [old, new]}` of the fields it would change (REST names; ids for people, groups and projects).
    pub fn changes(&self) -> Json {
        let (b, a) = (&self.before, &self.after);
        let mut changes = audit::Changes::new();
        changes.diff("status", &b.status, &a.status);
        changes.diff("priority", &b.priority, &a.priority);
        changes.diff("assigned_to", &b.assignee_id, &a.assignee_id);
        changes.diff("assigned_group", &b.assigned_group_id, &a.assigned_group_id);
        changes.diff("project", &b.project_id, &a.project_id);
        changes.diff("due_date", &b.due_date, &a.due_date);
        let mut changes = changes.into_value();
        for (name, change) in &self.fields {
            changes[name.as_str()] = change.clone();
        }
        changes
    }
}

/// The field changes of `actions` as a patch (a number of days counts from today, UTC).
fn patch_of(actions: &[Action]) -> TicketPatch {
    let mut patch = TicketPatch::default();
    for action in actions {
        match action {
            Action::SetStatus(s) => patch.status = Some(*s),
            Action::SetPriority(p) => patch.priority = Some(*p),
            Action::SetAssignee(v) => patch.assignee_id = Some(*v),
            Action::SetGroup(v) => patch.assigned_group_id = Some(*v),
            Action::SetProject(v) => patch.project_id = Some(*v),
            Action::SetDueDate(due) => {
                patch.due_date = Some(match due {
                    DueDate::Clear => None,
                    DueDate::On(d) => Some(*d),
                    DueDate::InDays(n) => {
                        Some(Utc::now().date_naive() + chrono::Duration::days(*n))
                    }
                })
            }
            // The agent's own change: held to what they may set on the ticket, as a value set by hand.
            Action::SetField { key, value } => patch
                .custom_fields
                .get_or_insert_with(Vec::new)
                .push((key.clone(), value.clone())),
            Action::Comment { .. }
            | Action::Notify { .. }
            | Action::Assign { .. }
            | Action::AddTags(_)
            | Action::RemoveTags(_) => {}
        }
    }
    patch
}

/// The replies of `actions` rendered for `t`; one that renders empty is an error naming the macro.
async fn replies(
    db: &impl ConnectionTrait,
    m: &ticket_macro::Model,
    actions: &[Action],
    t: &ticket::Model,
) -> AppResult<Vec<Reply>> {
    let mut out = Vec::new();
    for action in actions {
        if let Action::Comment { template, internal } = action {
            let body = render(db, template, t, &m.name).await?.ok_or_else(|| {
                AppError::bad_request(format!(
                    "macro \"{}\" renders an empty or too long reply",
                    m.name
                ))
            })?;
            out.push(Reply {
                body,
                internal: *internal,
            });
        }
    }
    Ok(out)
}

/// The custom field values `actions` would change on `t` (already checked by the preview of the patch), as
/// `custom_fields.<key>` and `[old, new]` in the REST spelling; nothing is read unless they set one.
async fn field_changes(
    db: &impl ConnectionTrait,
    actor: &Actor,
    actions: &[Action],
    t: &ticket::Model,
) -> AppResult<Vec<(String, Json)>> {
    if !actions.iter().any(Action::is_set_field) {
        return Ok(Vec::new());
    }
    let defined = crate::service::custom_fields::Defined::load(db).await?;
    let shown = crate::service::custom_fields::of_ticket(db, actor, &defined, t).await?;
    let mut out: Vec<(String, Json)> = Vec::new();
    for action in actions {
        let Action::SetField { key, value } = action else {
            continue;
        };
        let Some((field, old)) = shown.iter().find(|(f, _)| &f.key == key) else {
            continue;
        };
        let new = crate::service::custom_fields::parse(field.kind, &field.choices, value)
            .ok()
            .flatten();
        let name = format!("custom_fields.{key}");
        out.retain(|(n, _)| *n != name);
        if new != *old {
            let json_of = |v: &Option<crate::service::custom_fields::FieldValue>| {
                v.as_ref().map_or(Json::Null, |v| v.to_json())
            };
            out.push((name, json!([json_of(old), json_of(&new)])));
        }
    }
    Ok(out)
}

/// What macro `macro_id` would do to ticket `ticket_id`, with every check applying it makes (permissions,
/// workflow, what it names, who may write an internal note), written nowhere.
pub async fn preview(
    db: &impl ConnectionTrait,
    actor: &Actor,
    macro_id: i32,
    ticket_id: i32,
) -> AppResult<Preview> {
    let m = get(db, actor, macro_id).await?;
    let actions = parse_actions(&m.actions)?;
    let patch = patch_of(&actions);
    let (before, after) = if patch.fields().is_empty() {
        let t = tickets::get(db, actor, ticket_id).await?;
        (t.clone(), t)
    } else {
        tickets::preview(db, actor, ticket_id, &patch).await?
    };
    let replies = replies(db, &m, &actions, &after).await?;
    if replies.iter().any(|r| r.internal) && !comments::can_read_internal(actor, &after) {
        return Err(AppError::forbidden(
            "only the team, the assignee and the assigned group may write internal comments",
        ));
    }
    let fields = field_changes(db, actor, &actions, &before).await?;
    Ok(Preview {
        before,
        after,
        replies,
        fields,
    })
}

/// Apply macro `macro_id` to each of `ticket_ids` (at most [`MAX_TICKETS`], each once), each ticket on its
/// own: its field changes in one write, then its replies. Each outcome is the ticket as it was left, or why
/// it was refused; one refused ticket does not stop the others.
pub async fn apply(
    state: WriteDeps<'_>,
    actor: &Actor,
    macro_id: i32,
    ticket_ids: &[i32],
) -> AppResult<Vec<(i32, AppResult<ticket::Model>)>> {
    let m = get(&state.db.conn, actor, macro_id).await?;
    if ticket_ids.is_empty() || ticket_ids.len() > MAX_TICKETS {
        return Err(AppError::field(
            "ticketIds",
            format!("name 1 to {MAX_TICKETS} tickets"),
        ));
    }
    let actions = parse_actions(&m.actions)?;
    let mut outcomes = Vec::with_capacity(ticket_ids.len());
    let mut seen = Vec::with_capacity(ticket_ids.len());
    for id in ticket_ids {
        if seen.contains(id) {
            continue;
        }
        seen.push(*id);
        let outcome = apply_one(state, actor, &m, &actions, *id).await;
        if let Err(AppError::Internal(e)) = &outcome {
            tracing::error!(ticket = id, macro_id, error = %e, "applying a macro failed");
        }
        outcomes.push((*id, outcome));
    }
    Ok(outcomes)
}

async fn apply_one(
    state: WriteDeps<'_>,
    actor: &Actor,
    m: &ticket_macro::Model,
    actions: &[Action],
    ticket_id: i32,
) -> AppResult<ticket::Model> {
    let db = &state.db.conn;
    // Checked first, so that a reply that cannot be posted leaves the fields unchanged too.
    let preview = preview(db, actor, m.id, ticket_id).await?;
    let patch = patch_of(actions);
    let mut t = if patch.fields().is_empty() {
        preview.before
    } else {
        tickets::update(state, actor, ticket_id, patch).await?
    };
    for action in actions {
        let edit = match action {
            Action::AddTags(names) => tags::Edit::Add(names.clone()),
            Action::RemoveTags(names) => tags::Edit::Remove(names.clone()),
            _ => continue,
        };
        tags::change(state, actor, ticket_id, edit).await?;
    }
    for reply in replies(db, m, actions, &t).await? {
        let kind = if reply.internal {
            CommentType::Internal
        } else {
            CommentType::Public
        };
        let input = NewComment {
            body: reply.body,
            comment_type: kind,
        };
        comments::create(state, actor, ticket_id, input).await?;
    }
    if !preview.replies.is_empty() {
        // Replies move the comment counts and may set off triggers: answer the ticket as it is now.
        t = tickets::get(db, actor, ticket_id).await?;
    }
    Ok(t)
}
