//! Running the triggers on a ticket write, inside its transaction (docs/automation.md).
//!
//! Each active trigger, in position order, is matched against the write as the person and the triggers
//! before it left the ticket; it fires at most once. Its changes are made with the same definitions as a
//! person's (`update`: the workflow, the row, counters, clock, audit record and events; `tags`: the links and
//! their record), each rule's record and webhooks marked `via` the rule. They are held in memory ([`Staged`])
//! and written together once the rules have run, or before an action that needs the row as they left it (a
//! custom field value, a comment, a notice). A rule's change starts no new round, so rules cannot loop.
use super::status::apply_lifecycle;
use super::update::{diff, record, row_update, side_writes};
use super::{check_group, check_project, check_user};
use crate::auth::Actor;
use crate::db::{insert_together, run_together, Write};
use crate::domain::CommentType;
use crate::domain::Workflow;
use crate::domain::{StatusCategory, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::notify::live::LiveEvent;
use crate::service::automation::fields::{self, FieldValues};
use crate::service::automation::language::{Action, DueDate, NotifyTarget, Spread};
use crate::service::automation::{
    fill, render, role_of, within_business_hours, Event, Facts, Role, Trigger, Via,
};
use crate::service::comments;
use crate::service::custom_fields;
use crate::service::events;
use crate::service::tags;
use crate::service::tickets::counters;
use crate::service::users;
use crate::service::WriteDeps;
use chrono::{DateTime, Utc};
use entity::counter;
use entity::ticket;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, QueryFilter, Set};
use sea_orm::{DatabaseTransaction, EntityTrait, QuerySelect, QueryTrait};

/// What the rules did to a write: the ticket as the last one left it, and the comments they posted (for
/// the live events sent after the commit).
pub struct Ran {
    /// The ticket.
    pub ticket: ticket::Model,
    /// Ids of the comments the rules posted.
    pub comments: Vec<i32>,
}

impl Ran {
    /// The live events of a committed create: the new ticket, then the comments its rules posted.
    pub async fn publish_created(&self, state: WriteDeps<'_>) {
        let event = crate::notify::live::LiveEvent::new(
            crate::notify::live::LiveKind::Created,
            self.ticket.id,
        );
        state.live.publish(state.db, event).await;
        self.publish_comments(state).await;
    }

    /// The live events of what the rules changed in `before` and posted, once the write committed.
    pub async fn publish(&self, state: WriteDeps<'_>, before: &ticket::Model) {
        super::update::publish_change(state, before, &self.ticket).await;
        self.publish_comments(state).await;
    }

    /// The live events of what the rules posted, once the write committed.
    pub async fn publish_comments(&self, state: WriteDeps<'_>) {
        for id in &self.comments {
            let event = LiveEvent::comment(self.ticket.id, *id);
            state.live.publish(state.db, event).await;
        }
    }
}

/// What happened to the ticket, as the rules see it besides its fields.
#[derive(Clone, Copy, Debug)]
struct Happened {
    event: Event,
    comment_internal: Option<bool>,
    sla_target: Option<&'static str>,
}

impl Happened {
    fn of(event: Event) -> Self {
        Happened {
            event,
            comment_internal: None,
            sla_target: None,
        }
    }
}

/// Run `triggers` on a write of `event` that took the ticket from `before` (none: created) to `current`,
/// changing the custom fields `fields_changed` (each with its value before); `tags`, the ticket's tags if the
/// write read them (otherwise read when a rule needs them).
#[allow(clippy::too_many_arguments)]
pub(super) async fn run(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    triggers: &[Trigger],
    event: Event,
    before: Option<&ticket::Model>,
    current: ticket::Model,
    fields_changed: &custom_fields::Changed,
    tags: Option<Vec<String>>,
    hooks: events::Hooks,
) -> AppResult<Ran> {
    let happened = Happened::of(event);
    let by = Some(actor);
    let staged = Staged::new(&current, tags, hooks);
    Box::pin(run_on(
        txn,
        state,
        by,
        triggers,
        happened,
        before,
        current,
        fields_changed,
        staged,
    ))
    .await
}

/// A ticket being made whose row is not written yet: the create's own writes that go with the row (the
/// idempotency key, the counters, the clock), its audit record and outbox rows (first among the write's), and
/// the person's custom field values, written right after the row and held to the fields required from the start
/// when `hold_required`.
pub(super) struct Creating<'a> {
    /// The create's writes besides the row, its record and its outbox rows.
    pub rest: Vec<sea_orm::sea_query::InsertStatement>,
    /// The create's audit record.
    pub record: crate::service::audit::Entry,
    /// The create's outbox rows (`ticket.created`, the clock's checks).
    pub rows: Vec<entity::outbox::ActiveModel>,
    /// The person's custom field values.
    pub edits: Vec<custom_fields::FieldEdit>,
    /// The active field definitions.
    pub fields: std::sync::Arc<custom_fields::Defined>,
    /// Whether the fields required from the start are checked.
    pub hold_required: bool,
    /// Who makes it.
    pub actor: &'a Actor,
}

/// The triggers of the creation of `draft` by `actor` (its id and number taken, its row not written). What
/// they change that moves neither the ticket's counters nor its clock (its tags, its due date, its assignee
/// when no chat destination hears of assignments) is written with the row, in its statement; before a change
/// that does, the row is written as it stands.
pub(super) async fn on_create(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    triggers: &[Trigger],
    draft: ticket::Model,
    creating: Creating<'_>,
    hooks: events::Hooks,
) -> AppResult<Ran> {
    let set = custom_fields::set_on_new(&creating.edits);
    let mut staged = Staged::new(&draft, Some(Vec::new()), hooks);
    staged.creating = Some(creating);
    let happened = Happened::of(Event::Created);
    Box::pin(run_on(
        txn,
        state,
        Some(actor),
        triggers,
        happened,
        None,
        draft,
        &set,
        staged,
    ))
    .await
}

/// The triggers on an SLA event the service recorded for `t` (locked in `txn`, the SLA check's
/// transaction): `sla_at_risk` or `sla_breached` of `target`. Nobody made it, so the actor's role is
/// `system` and nobody is left out of the emails.
pub async fn after_sla_event(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    triggers: &[Trigger],
    t: ticket::Model,
    breached: bool,
    target: &'static str,
) -> AppResult<Ran> {
    let happened = Happened {
        event: if breached {
            Event::SlaBreached
        } else {
            Event::SlaAtRisk
        },
        comment_internal: None,
        sla_target: Some(target),
    };
    let before = t.clone();
    let staged = Staged::new(&t, None, events::Hooks::default());
    Box::pin(run_on(
        txn,
        state,
        None,
        triggers,
        happened,
        Some(&before),
        t,
        &Vec::new(),
        staged,
    ))
    .await
}

/// The triggers on a comment the actor added to `t` (`internal`: an internal note), inside the comment's
/// transaction: nothing is read or locked unless one fires; then the ticket row is locked and re-read, and
/// the rules run on it as on any write.
pub async fn after_comment(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    triggers: &[Trigger],
    t: &ticket::Model,
    internal: bool,
) -> AppResult<Option<Ran>> {
    let groups = actor.group_ids();
    let happened = Happened {
        event: Event::CommentAdded,
        comment_internal: Some(internal),
        sla_target: None,
    };
    let business_hours = business_hours(txn, state, triggers, t).await?;
    let mut staged = Staged::new(t, None, events::Hooks::default());
    let none = FieldValues::default();
    let unread = Facts {
        event: happened.event,
        channel: state.channel,
        role: role_of(actor),
        groups: &groups,
        comment_internal: happened.comment_internal,
        sla_target: None,
        business_hours,
        tags: &[],
        fields: &none,
        fields_before: &none,
        before: Some(t),
        after: t,
    };
    // Whether a rule fires on what the comment knows (`Some(true)` ends the look), or may once the tags and
    // custom field values are read (`None`): they are read only then.
    let mut judged = Some(false);
    for rule in triggers {
        match rule.fires_unread(&unread) {
            Some(true) => {
                judged = Some(true);
                break;
            }
            None => judged = None,
            Some(false) => {}
        }
    }
    let fires = if let Some(fires) = judged {
        fires
    } else {
        let tags = if triggers.iter().any(|r| r.conditions.uses_tags()) {
            staged.tags(txn, t.id).await?.to_vec()
        } else {
            Vec::new()
        };
        let fields = fields_asked(txn, state, triggers, t, None).await?;
        let facts = Facts {
            tags: &tags,
            fields: &fields,
            fields_before: &fields,
            ..unread
        };
        triggers.iter().any(|trigger| trigger.fires(&facts))
    };
    if !fires {
        return Ok(None);
    }
    let current = super::relock(txn, t.id, super::Lock::UnderComment, true).await?;
    let before = current.clone();
    staged.stored = current.clone();
    let ran = Box::pin(run_on(
        txn,
        state,
        Some(actor),
        triggers,
        happened,
        Some(&before),
        current,
        &Vec::new(),
        staged,
    ))
    .await?;
    Ok(Some(ran))
}

/// The triggers in order on what `actor` (none: the service) made happen, which changed the custom fields
/// `fields_changed`; what they change is held in `staged` and written at the end.
#[allow(clippy::too_many_arguments)]
async fn run_on(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: Option<&Actor>,
    triggers: &[Trigger],
    happened: Happened,
    before: Option<&ticket::Model>,
    mut current: ticket::Model,
    fields_changed: &custom_fields::Changed,
    mut staged: Staged<'_>,
) -> AppResult<Ran> {
    if triggers.is_empty() {
        staged.write(txn, state, &current).await?;
        return Ok(Ran {
            ticket: staged.stored,
            comments: Vec::new(),
        });
    }
    let mut posted = Vec::new();
    let groups = actor.map(Actor::group_ids).unwrap_or_default();
    let role = actor.map_or(Role::System, role_of);
    let business_hours = business_hours(txn, state, triggers, &current).await?;
    let none = FieldValues::default();
    let asks_fields = triggers
        .iter()
        .any(|r| r.conditions.fields_named().next().is_some());
    // The custom field values the rules ask about, as they are and as they were before the write: read the
    // first time a rule's conditions on them decide whether it fires, or before a rule changes them.
    let mut fields: Option<(FieldValues, FieldValues)> = None;
    for trigger in triggers {
        let unread = Facts {
            event: happened.event,
            channel: state.channel,
            role,
            groups: &groups,
            comment_internal: happened.comment_internal,
            sla_target: happened.sla_target,
            business_hours,
            tags: &[],
            fields: &none,
            fields_before: &none,
            before,
            after: &current,
        };
        let fires = match trigger.fires_unread(&unread) {
            Some(answer) => answer,
            None => {
                // Once read, the tags are the staged ones: what earlier rules put on or took off.
                let tags = if trigger.conditions.uses_tags() {
                    staged.tags(txn, current.id).await?.to_vec()
                } else {
                    Vec::new()
                };
                if fields.is_none() && trigger.conditions.fields_named().next().is_some() {
                    fields = Some(
                        fields_now_and_before(
                            txn,
                            state,
                            triggers,
                            &current,
                            &staged,
                            fields_changed,
                        )
                        .await?,
                    );
                }
                let (now, was) = fields.as_ref().map_or((&none, &none), |(n, w)| (n, w));
                let facts = Facts {
                    tags: &tags,
                    fields: now,
                    fields_before: was,
                    ..unread
                };
                trigger.fires(&facts)
            }
        };
        if !fires {
            continue;
        }
        if fields.is_none() && asks_fields && trigger.actions.iter().any(Action::moves_fields) {
            // As they were before this rule changes them, so that a later rule's `changed` compares with the
            // write's own values.
            fields = Some(
                fields_now_and_before(txn, state, triggers, &current, &staged, fields_changed)
                    .await?,
            );
        }
        let project = current.project_id;
        let applied = apply(txn, state, actor, trigger, current, &mut staged).await?;
        current = applied.ticket;
        // Later rules see the custom field values this one set (or the fields a new project brought).
        if let Some((now, _)) = &mut fields {
            if trigger.actions.iter().any(Action::is_set_field) || current.project_id != project {
                *now = fields_asked(txn, state, triggers, &current, staged.new_values()).await?;
            }
        }
        posted.extend(applied.comments);
    }
    staged.write(txn, state, &current).await?;
    Ok(Ran {
        ticket: staged.stored,
        comments: posted,
    })
}

/// What the fired rules of one write changed and the database does not hold yet: the ticket's row as stored,
/// its tags as stored and as the rules left them (once read, or known), each change's audit record and outbox
/// rows in the order the rules made them, and the hooks those rows go to, read once for all.
pub(super) struct Staged<'a> {
    /// The ticket's row as stored, or as it will be once `creating` writes it.
    stored: ticket::Model,
    /// The ticket being made, while its row is not written.
    creating: Option<Creating<'a>>,
    tags_stored: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    records: Vec<crate::service::audit::Entry>,
    rows: Vec<entity::outbox::ActiveModel>,
    hooks: events::Hooks,
    now: DateTime<Utc>,
}

impl<'a> Staged<'a> {
    /// Nothing staged yet over `stored`, whose tags are `tags` when known (a ticket just made has none).
    pub(super) fn new(
        stored: &ticket::Model,
        tags: Option<Vec<String>>,
        hooks: events::Hooks,
    ) -> Self {
        Staged {
            stored: stored.clone(),
            creating: None,
            tags_stored: tags.clone(),
            tags,
            records: Vec::new(),
            rows: Vec::new(),
            hooks,
            now: Utc::now(),
        }
    }

    /// The custom field values of a ticket whose row is not written yet (none: read them).
    fn new_values(&self) -> Option<&[custom_fields::FieldEdit]> {
        self.creating.as_ref().map(|c| c.edits.as_slice())
    }

    /// Whether a change from `current` to `next` of a ticket not written yet can be written with its row: it
    /// moves neither its counters nor its clock, and no chat destination would be told of it with the clock
    /// the row does not have yet.
    fn goes_with_the_row(&self, current: &ticket::Model, next: &ticket::Model) -> bool {
        current.status == next.status
            && current.priority == next.priority
            && current.project_id == next.project_id
            && current.assigned_group_id == next.assigned_group_id
            && (current.assignee_id == next.assignee_id || self.hooks.any_chat() == Some(false))
    }

    /// The ticket's tags as the rules left them, read the first time they are asked for.
    async fn tags(&mut self, txn: &DatabaseTransaction, ticket_id: i32) -> AppResult<&[String]> {
        if self.tags.is_none() {
            let stored = tags::names_of(txn, ticket_id).await?;
            self.tags_stored = Some(stored.clone());
            self.tags = Some(stored);
        }
        Ok(self.tags.as_deref().unwrap_or_default())
    }

    /// Stage the change of `current` to `next` made by `via` for `actor`'s write (`action`: `update`, or
    /// `status_change` for a move alone): its record and events. The ticket as it now is.
    #[allow(clippy::too_many_arguments)]
    async fn change(
        &mut self,
        txn: &DatabaseTransaction,
        state: WriteDeps<'_>,
        actor: Option<&Actor>,
        via: &Via,
        action: &'static str,
        current: ticket::Model,
        mut next: ticket::Model,
    ) -> AppResult<ticket::Model> {
        let changes = diff(&current, &next);
        if changes.is_empty() {
            return Ok(current);
        }
        if self.creating.is_some() && !self.goes_with_the_row(&current, &next) {
            Box::pin(self.write(txn, state, &current)).await?;
        }
        next.updated_at = self.now;
        super::as_stored(&mut next);
        self.records
            .push(record(actor, Some(via), action, next.id, changes)?);
        let skip = actor.map(Actor::id);
        let (hooks, config) = (&mut self.hooks, state.config);
        let rows =
            events::ticket_changed_rows(txn, hooks, config, skip, Some(via), &current, &next)
                .await?;
        self.rows.extend(rows);
        Ok(next)
    }

    /// Stage `edit` of `t`'s tags by `tagger`: its record and webhook. A rule is not held to the curated list;
    /// an edit that would put more tags on the ticket than it may hold does nothing, logged.
    async fn tag(
        &mut self,
        txn: &DatabaseTransaction,
        state: WriteDeps<'_>,
        tagger: &tags::Tagger<'_>,
        t: &ticket::Model,
        edit: &tags::Edit,
    ) -> AppResult<()> {
        let current = self.tags(txn, t.id).await?;
        let change = match tags::TagChange::of(current, edit) {
            Ok(Some(change)) => change,
            Ok(None) => return Ok(()),
            Err(AppError::Validation { message, .. }) => {
                tracing::warn!(ticket = t.id, %message, "a rule's tags were left off");
                return Ok(());
            }
            Err(err) => return Err(err),
        };
        self.records.push(change.record(tagger, t.id)?);
        let (added, removed, after) = (&change.added, &change.removed, &change.after);
        let (hooks, config, via) = (&mut self.hooks, state.config, tagger.via);
        let rows =
            events::ticket_tagged_rows(txn, hooks, config, t, added, removed, after, via).await?;
        self.rows.extend(rows);
        self.tags = Some(change.after);
        Ok(())
    }

    /// Write what is staged, `current` being the ticket as the rules left it: the row and what moves with it
    /// (counters and generation, clock, kept metrics), the tags' links, the records in their order and the
    /// outbox rows, in one statement on PostgreSQL.
    async fn write(
        &mut self,
        txn: &DatabaseTransaction,
        state: WriteDeps<'_>,
        current: &ticket::Model,
    ) -> AppResult<()> {
        if let Some(creating) = self.creating.take() {
            return Box::pin(self.create(txn, state, current, creating)).await;
        }
        let mut writes: Vec<Write> = Vec::new();
        let moved = !diff(&self.stored, current).is_empty();
        if moved {
            writes.push(row_update(current).into());
            writes.extend(side_writes(txn, state, &self.stored, current, self.now).await?);
        }
        if !moved && self.tags_stored != self.tags {
            // Lists filtered by tag count again.
            let status = current.status;
            writes.extend(counters::on_updated(status, status)?.map(Write::from));
        }
        writes.extend(
            self.tail(txn, state, current, Vec::new(), Vec::new())
                .await?,
        );
        if !writes.is_empty() {
            run_together(txn, writes).await?;
        }
        self.stored = current.clone();
        self.tags_stored = self.tags.clone();
        Ok(())
    }

    /// The writes that end what is staged: the tags' links where they changed, then `records` and the rules'
    /// records in one insert, then `rows` and the rules' outbox rows in one insert (what is given goes first).
    async fn tail(
        &mut self,
        txn: &DatabaseTransaction,
        state: WriteDeps<'_>,
        current: &ticket::Model,
        mut records: Vec<crate::service::audit::Entry>,
        mut rows: Vec<entity::outbox::ActiveModel>,
    ) -> AppResult<Vec<Write>> {
        let mut writes = Vec::new();
        if let (Some(stored), Some(wanted)) = (&self.tags_stored, &self.tags) {
            if stored != wanted {
                writes.extend(tags::relink(txn, state.tags, current, stored, wanted, false).await?);
            }
        }
        records.append(&mut self.records);
        writes.extend(crate::service::audit::insert_all_of(records).map(Write::from));
        rows.append(&mut self.rows);
        writes.extend(crate::notify::outbox::insert_of(rows).map(Write::from));
        Ok(writes)
    }

    /// Write the row of the ticket being made as `current` (what the rules changed so far goes with the row),
    /// the create's own writes, the tags' links, its record then the rules' and its outbox rows then the
    /// rules', in one statement on PostgreSQL; then the person's custom field values.
    async fn create(
        &mut self,
        txn: &DatabaseTransaction,
        state: WriteDeps<'_>,
        current: &ticket::Model,
        creating: Creating<'_>,
    ) -> AppResult<()> {
        let mut rest: Vec<Write> = creating.rest.into_iter().map(Write::from).collect();
        let (record, rows) = (vec![creating.record], creating.rows);
        rest.extend(self.tail(txn, state, current, record, rows).await?);
        let mut insert =
            ticket::Entity::insert(ticket::ActiveModel::from(current.clone())).into_query();
        insert.returning_all();
        let created: ticket::Model = insert_together(txn, insert, rest).await?;
        let (actor, edits) = (creating.actor, &creating.edits);
        custom_fields::write(txn, state, Some(actor.id()), None, &created, edits).await?;
        if creating.hold_required {
            custom_fields::check_required(txn, actor, &creating.fields, &created, None, edits)
                .await?;
        }
        self.stored = created;
        self.tags_stored = self.tags.clone();
        Ok(())
    }
}

/// Whether the write comes within the ticket's business hours, worked out only when a trigger asks.
async fn business_hours(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    triggers: &[Trigger],
    t: &ticket::Model,
) -> AppResult<bool> {
    if triggers.iter().any(|r| r.conditions.uses_business_hours()) {
        within_business_hours(state.policies, txn, t, Utc::now()).await
    } else {
        Ok(true)
    }
}

/// The ticket's values of the custom fields the triggers ask about, and the same before the write (its
/// changes `changed` undone).
async fn fields_now_and_before(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    triggers: &[Trigger],
    t: &ticket::Model,
    staged: &Staged<'_>,
    changed: &custom_fields::Changed,
) -> AppResult<(FieldValues, FieldValues)> {
    let now = fields_asked(txn, state, triggers, t, staged.new_values()).await?;
    let mut before = now.clone();
    for (key, was) in changed {
        match was {
            Some(v) => before.insert(key.clone(), v.clone()),
            None => before.remove(key),
        };
    }
    Ok((now, before))
}

/// The ticket's values of the custom fields the triggers ask about, in one read (none when none asks).
async fn fields_asked(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    triggers: &[Trigger],
    t: &ticket::Model,
    new: Option<&[custom_fields::FieldEdit]>,
) -> AppResult<FieldValues> {
    let keys = fields::named(triggers.iter().map(|r| &r.conditions));
    fields::asked(txn, state.fields, &keys, t, new).await
}

/// What a time rule does to `current` (locked in `txn`), as the service: its changes, comments and notices,
/// through the same code as a trigger's.
pub async fn by_time_rule(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    rule: &Trigger,
    current: ticket::Model,
) -> AppResult<Ran> {
    let mut staged = Staged::new(&current, None, events::Hooks::default());
    let applied = apply(txn, state, None, rule, current, &mut staged).await?;
    staged.write(txn, state, &applied.ticket).await?;
    Ok(Ran {
        ticket: applied.ticket,
        comments: applied.comments,
    })
}

/// Apply one rule's actions to `current`, made by `actor` (none: the service): its field changes and tags are
/// staged; what needs the row as the rules left it (custom field values, comments, notices) writes what is
/// staged first.
async fn apply(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: Option<&Actor>,
    trigger: &Trigger,
    current: ticket::Model,
    staged: &mut Staged<'_>,
) -> AppResult<Applied> {
    let next = plan(txn, trigger, &current, staged.now).await?;
    let only_status = trigger
        .actions
        .iter()
        .all(|a| matches!(a, Action::SetStatus(_)));
    let action = if only_status {
        "status_change"
    } else {
        "update"
    };
    let via = Via::rule(trigger);
    let mut current = staged
        .change(txn, state, actor, &via, action, current, next)
        .await?;
    if trigger.actions.iter().any(Action::is_set_field) {
        staged.write(txn, state, &current).await?;
        set_fields(txn, state, trigger, &via, &current).await?;
    }
    let tagger = tags::Tagger {
        author: actor.map(Actor::id),
        via: Some(&via),
        curated_only: false,
    };
    for action in &trigger.actions {
        let edit = match action {
            Action::AddTags(names) => tags::Edit::Add(names.clone()),
            Action::RemoveTags(names) => tags::Edit::Remove(names.clone()),
            _ => continue,
        };
        staged.tag(txn, state, &tagger, &current, &edit).await?;
    }
    let speaks = trigger
        .actions
        .iter()
        .any(|a| matches!(a, Action::Comment { .. } | Action::Notify { .. }));
    if !speaks {
        return Ok(Applied {
            ticket: current,
            comments: Vec::new(),
        });
    }
    staged.write(txn, state, &current).await?;
    let comments = post_comments(txn, state, trigger, &via, &current).await?;
    if !comments.is_empty() {
        // The comment counts moved on the row: answer the ticket as it is.
        current = ticket::Entity::find_by_id(current.id)
            .one(txn)
            .await?
            .ok_or_else(|| AppError::not_found("ticket"))?;
        staged.stored = current.clone();
    }
    send_notices(txn, state.config, trigger, &current).await?;
    Ok(Applied {
        ticket: current,
        comments,
    })
}

/// What one rule's actions left: the ticket and the comments posted.
struct Applied {
    ticket: ticket::Model,
    comments: Vec<i32>,
}

/// The `set_field` actions of `trigger` on `t`, in one write through the code a person's values go through
/// (the rows, the audit record marked `via` the rule, the webhook). A value that no longer fits (the field was
/// archived, is not the ticket's project's, or names someone gone) is skipped and logged.
async fn set_fields(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    trigger: &Trigger,
    via: &Via,
    t: &ticket::Model,
) -> AppResult<()> {
    let raw: Vec<(&str, &serde_json::Value)> = trigger
        .actions
        .iter()
        .filter_map(|a| match a {
            Action::SetField { key, value } => Some((key.as_str(), value)),
            _ => None,
        })
        .collect();
    if raw.is_empty() {
        return Ok(());
    }
    let defined = state.fields.active(txn).await?;
    let (edits, skipped) = custom_fields::prepare_for_rule(txn, &defined, t, &raw).await?;
    for (key, why) in skipped {
        tracing::warn!(rule = trigger.id, ticket = t.id, field = %key, %why, "a rule's field value was skipped");
    }
    custom_fields::write(txn, state, None, Some(via), t, &edits).await?;
    Ok(())
}

/// The member of `group` an `assign` action hands a ticket to: the least loaded (fewest open tickets, then
/// the lowest id), or the next after the last one round-robin picked (its place kept in `counters`, whose row
/// lock serialises concurrent picks). `None` when the group has no active team member.
async fn pick(txn: &DatabaseTransaction, spread: Spread, group: i32) -> AppResult<Option<i32>> {
    let members = users::assignable_members(txn, group).await?;
    if members.is_empty() {
        return Ok(None);
    }
    match spread {
        Spread::LeastLoaded => {
            let open: Vec<TicketStatus> = TicketStatus::ALL
                .iter()
                .copied()
                .filter(|s| s.category() != StatusCategory::Done)
                .collect();
            let loads: Vec<(Option<i32>, i64)> = ticket::Entity::find()
                .select_only()
                .column(ticket::Column::AssigneeId)
                .column_as(ticket::Column::Id.count(), "open")
                .filter(ticket::Column::AssigneeId.is_in(members.clone()))
                .filter(ticket::Column::Status.is_in(open))
                .filter(ticket::Column::ArchivedAt.is_null())
                .group_by(ticket::Column::AssigneeId)
                .into_tuple()
                .all(txn)
                .await?;
            let load = |id: i32| {
                loads
                    .iter()
                    .find(|(who, _)| *who == Some(id))
                    .map_or(0, |(_, n)| *n)
            };
            Ok(members.into_iter().min_by_key(|id| (load(*id), *id)))
        }
        Spread::RoundRobin => {
            let name = format!("round_robin:{group}");
            let last = counter::Entity::find_by_id(name.clone())
                .lock_exclusive()
                .one(txn)
                .await?
                .map(|c| c.value);
            let next = members
                .iter()
                .copied()
                .find(|id| last.is_some_and(|last| i64::from(*id) > last))
                .unwrap_or(members[0]);
            counter::Entity::insert(counter::ActiveModel {
                name: Set(name),
                value: Set(i64::from(next)),
            })
            .on_conflict(
                OnConflict::column(counter::Column::Name)
                    .update_column(counter::Column::Value)
                    .to_owned(),
            )
            .exec_without_returning(txn)
            .await?;
            Ok(Some(next))
        }
    }
}

/// The emails and chat messages of `trigger`'s `notify` actions about `t`, queued with the write.
async fn send_notices(
    txn: &DatabaseTransaction,
    config: &crate::config::Config,
    trigger: &Trigger,
    t: &ticket::Model,
) -> AppResult<()> {
    for action in &trigger.actions {
        let Action::Notify { to, subject, body } = action else {
            continue;
        };
        if let NotifyTarget::Chat(id) | NotifyTarget::Webhook(id) = to {
            let subject = fill(txn, subject, t, &trigger.name).await?;
            let text = fill(txn, body, t, &trigger.name).await?;
            if matches!(to, NotifyTarget::Chat(_)) {
                events::rule_chat(txn, config, t, *id, &subject, &text).await?;
            } else {
                let via = Via::rule(trigger);
                events::rule_webhook(txn, t, *id, &via, &subject, &text).await?;
            }
            continue;
        }
        let ids = match to {
            NotifyTarget::Requester => vec![t.requester_id],
            NotifyTarget::Assignee => t.assignee_id.into_iter().collect(),
            NotifyTarget::AssignedGroup => match t.assigned_group_id {
                Some(group) => events::group_members(txn, group).await?,
                None => Vec::new(),
            },
            NotifyTarget::User(id) => vec![*id],
            NotifyTarget::Group(group) => events::group_members(txn, *group).await?,
            NotifyTarget::Chat(_) | NotifyTarget::Webhook(_) => Vec::new(),
        };
        if ids.is_empty() {
            continue;
        }
        let subject = fill(txn, subject, t, &trigger.name).await?;
        let text = fill(txn, body, t, &trigger.name).await?;
        events::rule_notice(txn, t, &ids, &subject, &text).await?;
    }
    Ok(())
}

/// The comments of `trigger`'s actions, rendered for `t` and posted; their ids.
async fn post_comments(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    trigger: &Trigger,
    via: &Via,
    t: &ticket::Model,
) -> AppResult<Vec<i32>> {
    let mut posted = Vec::new();
    for action in &trigger.actions {
        let Action::Comment { template, internal } = action else {
            continue;
        };
        let Some(body) = render(txn, template, t, &trigger.name).await? else {
            tracing::warn!(
                trigger = trigger.id,
                ticket = t.id,
                "trigger comment skipped: empty or too long once rendered"
            );
            continue;
        };
        let kind = if *internal {
            CommentType::Internal
        } else {
            CommentType::Public
        };
        let created = comments::post_by_rule(txn, state.config, via, t, kind, body).await?;
        posted.push(created.id);
    }
    Ok(posted)
}

/// Whether a check passed; a validation refusal is a skipped action, anything else an error.
fn passed(check: AppResult<()>) -> AppResult<bool> {
    match check {
        Ok(()) => Ok(true),
        Err(AppError::Validation { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The ticket as `trigger`'s actions leave `current`. An action that the workflow refuses, or that names a
/// user, group or project gone since the rule was saved, is skipped and logged.
async fn plan(
    txn: &DatabaseTransaction,
    trigger: &Trigger,
    current: &ticket::Model,
    now: DateTime<Utc>,
) -> AppResult<ticket::Model> {
    let mut next = current.clone();
    for action in &trigger.actions {
        let applied = match action {
            Action::SetStatus(status) if *status == next.status => true,
            Action::SetStatus(status) if next.status.can_move_to(*status) => {
                next.status = *status;
                apply_lifecycle(&mut next, *status, now);
                true
            }
            Action::SetStatus(_) => false,
            Action::SetPriority(priority) => {
                next.priority = *priority;
                true
            }
            Action::SetAssignee(user) => {
                let ok = match user {
                    Some(id) => passed(check_user(txn, "assigned_to", *id).await)?,
                    None => true,
                };
                if ok {
                    next.assignee_id = *user;
                }
                ok
            }
            Action::SetGroup(group) => {
                let ok = match group {
                    Some(id) => passed(check_group(txn, *id).await)?,
                    None => true,
                };
                if ok {
                    next.assigned_group_id = *group;
                }
                ok
            }
            Action::SetProject(project) => {
                let ok = match project {
                    Some(id) => passed(check_project(txn, *id).await)?,
                    None => true,
                };
                if ok {
                    next.project_id = *project;
                }
                ok
            }
            Action::SetDueDate(due) => {
                next.due_date = match due {
                    DueDate::Clear => None,
                    DueDate::On(date) => Some(*date),
                    DueDate::InDays(days) => Some(now.date_naive() + chrono::Duration::days(*days)),
                };
                true
            }
            Action::Assign { spread, group } => {
                let group = group.or(next.assigned_group_id);
                let picked = match group {
                    Some(group) => pick(txn, *spread, group).await?,
                    None => None,
                };
                if picked.is_some() {
                    next.assignee_id = picked;
                }
                picked.is_some()
            }
            Action::Comment { .. }
            | Action::Notify { .. }
            | Action::AddTags(_)
            | Action::RemoveTags(_)
            | Action::SetField { .. } => true,
        };
        if !applied {
            tracing::warn!(
                trigger = trigger.id,
                ticket = current.id,
                action = ?action,
                "trigger action skipped: the workflow refuses it or what it names is gone"
            );
        }
    }
    Ok(next)
}
