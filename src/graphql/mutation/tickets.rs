//! Ticket mutations: create, update, status moves, delete (archive) and restore.
use crate::domain::{Priority, TicketStatus};
use crate::error::AppResult;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use crate::graphql::types::Ticket;
use crate::service::custom_fields::RawEdits;
use crate::service::idempotency::IdempotencyKey;
use crate::service::tickets::{self, NewTicket, TicketPatch};
use async_graphql::{Context, InputObject, Json, MaybeUndefined, Object, Result, SimpleObject, ID};

/// Ticket mutations.
#[derive(Default)]
pub struct TicketMutation;

/// A new ticket.
#[derive(InputObject)]
pub struct CreateTicketInput {
    /// 1-200 characters.
    title: String,
    /// HTML, sanitised.
    description: Option<String>,
    /// Default MEDIUM.
    priority: Option<Priority>,
    /// Project.
    project_id: Option<ID>,
    /// Assignee.
    assignee_id: Option<ID>,
    /// Assigned group.
    assigned_group_id: Option<ID>,
    /// Due date.
    due_date: Option<Date>,
    /// Requester (team members only may name someone else).
    requester_id: Option<ID>,
    /// A key (1-255 visible ASCII characters, e.g. a UUID) that makes the create safe to send again: within
    /// 24 hours, the same input under the same key from the same account returns the first ticket and
    /// creates nothing; another input under it is refused (`BAD_USER_INPUT`, `fields.idempotencyKey`).
    idempotency_key: Option<String>,
    /// Custom field values (`customFields` lists the keys a ticket of its project carries).
    fields: Option<Vec<FieldValueInput>>,
}

/// One custom field's value, written as `TicketField.value` reads it (null clears it).
#[derive(InputObject)]
pub struct FieldValueInput {
    /// The field's key.
    key: String,
    /// The value: a string, number, boolean, list of choices or id, by the field's kind.
    value: Option<Json<serde_json::Value>>,
}

/// The values as the service takes them.
fn raw_fields(fields: Vec<FieldValueInput>) -> RawEdits {
    fields
        .into_iter()
        .map(|f| (f.key, f.value.map_or(serde_json::Value::Null, |v| v.0)))
        .collect()
}

/// Custom field values to set on a ticket.
#[derive(InputObject)]
pub struct SetTicketFieldsInput {
    /// The ticket.
    id: ID,
    /// The values; fields not named stay as they are.
    fields: Vec<FieldValueInput>,
}

/// The ticket after its fields were set.
#[derive(SimpleObject)]
pub struct SetTicketFieldsPayload {
    /// The ticket.
    ticket: Ticket,
}

/// A change to a ticket; omitted fields stay, `null` clears a nullable one.
#[derive(InputObject)]
pub struct UpdateTicketInput {
    /// The ticket.
    id: ID,
    /// New title.
    title: Option<String>,
    /// New description.
    description: Option<String>,
    /// New priority.
    priority: Option<Priority>,
    /// New status (workflow-checked).
    status: Option<TicketStatus>,
    /// New project, or null for none.
    project_id: MaybeUndefined<ID>,
    /// New assignee, or null for none.
    assignee_id: MaybeUndefined<ID>,
    /// New assigned group, or null for none.
    assigned_group_id: MaybeUndefined<ID>,
    /// New due date, or null for none.
    due_date: MaybeUndefined<Date>,
    /// Custom field values to set (null clears one).
    fields: Option<Vec<FieldValueInput>>,
}

/// A status move.
#[derive(InputObject)]
pub struct ChangeTicketStatusInput {
    /// The ticket.
    id: ID,
    /// The status to move to.
    status: TicketStatus,
}

/// Names one ticket.
#[derive(InputObject)]
pub struct DeleteTicketInput {
    /// The ticket.
    id: ID,
}

/// Names one archived ticket.
#[derive(InputObject)]
pub struct RestoreTicketInput {
    /// The ticket.
    id: ID,
}

/// The deleted ticket's id.
#[derive(SimpleObject)]
pub struct DeleteTicketPayload {
    /// Global id of the archived ticket.
    deleted_ticket_id: ID,
}

fn maybe_id(value: MaybeUndefined<ID>, kind: &str, field: &str) -> AppResult<Option<Option<i32>>> {
    Ok(match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(id) => Some(Some(ids::decode(&id, kind, field)?)),
    })
}

fn ticket_id(id: &ID) -> AppResult<i32> {
    ids::decode(id, "Ticket", "id")
}

/// Payload names follow the mutation (`CreateTicketPayload`, …) while sharing one shape.
macro_rules! ticket_payload {
    ($name:ident) => {
        #[doc = "The changed ticket."]
        #[derive(SimpleObject)]
        pub struct $name {
            /// The ticket after the change.
            ticket: Ticket,
        }
    };
}
ticket_payload!(CreateTicketPayload);
ticket_payload!(UpdateTicketPayload);
ticket_payload!(ChangeTicketStatusPayload);
ticket_payload!(RestoreTicketPayload);

/// A ticket to merge into another.
#[derive(InputObject)]
pub struct MergeTicketInput {
    /// The ticket to merge (it is closed).
    id: ID,
    /// The ticket it goes into.
    into: ID,
}

/// Tickets to merge into one.
#[derive(InputObject)]
pub struct MergeTicketsInput {
    /// The tickets to merge (each is closed), at most 50.
    source_ids: Vec<ID>,
    /// The ticket they go into.
    target_id: ID,
}

/// Comments to split off a ticket into a new one.
#[derive(InputObject)]
pub struct SplitTicketInput {
    /// The ticket.
    id: ID,
    /// Live comments of it (1 to 100).
    comment_ids: Vec<ID>,
    /// The new ticket's title (default: the original's, with "(split from TKT-5)").
    title: Option<String>,
}

/// The new ticket and the original after a split.
#[derive(SimpleObject)]
pub struct SplitTicketPayload {
    /// The new ticket, linked `RELATES_TO` the original.
    ticket: Ticket,
    /// The ticket it was split off.
    original: Ticket,
}

/// Both tickets after a merge.
#[derive(SimpleObject)]
pub struct MergeTicketPayload {
    /// The merged ticket: closed, `mergedInto` set.
    ticket: Ticket,
    /// The ticket it went into.
    into: Ticket,
}

/// The tickets after a merge of several into one.
#[derive(SimpleObject)]
pub struct MergeTicketsPayload {
    /// The merged tickets, in the order asked: closed, `mergedInto` set.
    tickets: Vec<Ticket>,
    /// The ticket they went into.
    target: Ticket,
}

#[Object]
impl TicketMutation {
    /// Open a ticket.
    async fn create_ticket(
        &self,
        ctx: &Context<'_>,
        input: CreateTicketInput,
    ) -> Result<CreateTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewTicket {
            title: input.title,
            description: input.description,
            priority: input.priority,
            project_id: ids::decode_opt(input.project_id.as_ref(), "Project", "projectId")?,
            assignee_id: ids::decode_opt(input.assignee_id.as_ref(), "User", "assigneeId")?,
            assigned_group_id: ids::decode_opt(
                input.assigned_group_id.as_ref(),
                "Group",
                "assignedGroupId",
            )?,
            due_date: input.due_date.map(|d| d.0),
            requester_id: ids::decode_opt(input.requester_id.as_ref(), "User", "requesterId")?,
            idempotency_key: input
                .idempotency_key
                .as_deref()
                .map(|raw| IdempotencyKey::parse(raw, tickets::KEY_FIELD))
                .transpose()?,
            custom_fields: input.fields.map(raw_fields).unwrap_or_default(),
        };
        let ticket = tickets::create(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            new,
        )
        .await?;
        Ok(CreateTicketPayload {
            ticket: Ticket(ticket),
        })
    }

    /// Change some fields of a ticket.
    async fn update_ticket(
        &self,
        ctx: &Context<'_>,
        input: UpdateTicketInput,
    ) -> Result<UpdateTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let patch = TicketPatch {
            title: input.title,
            description: input.description,
            priority: input.priority,
            status: input.status,
            project_id: maybe_id(input.project_id, "Project", "projectId")?,
            assignee_id: maybe_id(input.assignee_id, "User", "assigneeId")?,
            assigned_group_id: maybe_id(input.assigned_group_id, "Group", "assignedGroupId")?,
            due_date: match input.due_date {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(d) => Some(Some(d.0)),
            },
            custom_fields: input.fields.map(raw_fields),
        };
        let ticket = tickets::update(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
            patch,
        )
        .await?;
        Ok(UpdateTicketPayload {
            ticket: Ticket(ticket),
        })
    }

    /// Set custom field values of a ticket (every one checked first: a bad value names its key and sets
    /// nothing).
    async fn set_ticket_fields(
        &self,
        ctx: &Context<'_>,
        input: SetTicketFieldsInput,
    ) -> Result<SetTicketFieldsPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let patch = TicketPatch {
            custom_fields: Some(raw_fields(input.fields)),
            ..Default::default()
        };
        let ticket = tickets::update(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
            patch,
        )
        .await?;
        Ok(SetTicketFieldsPayload {
            ticket: Ticket(ticket),
        })
    }

    /// Move a ticket along the workflow.
    async fn change_ticket_status(
        &self,
        ctx: &Context<'_>,
        input: ChangeTicketStatusInput,
    ) -> Result<ChangeTicketStatusPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let ticket = tickets::change_status(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
            input.status,
        )
        .await?;
        Ok(ChangeTicketStatusPayload {
            ticket: Ticket(ticket),
        })
    }

    /// Archive a ticket (team members only); it can be restored.
    async fn delete_ticket(
        &self,
        ctx: &Context<'_>,
        input: DeleteTicketInput,
    ) -> Result<DeleteTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let ticket = tickets::archive(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
        )
        .await?;
        Ok(DeleteTicketPayload {
            deleted_ticket_id: ids::encode("Ticket", ticket.id),
        })
    }

    /// Bring an archived ticket back (team members only).
    async fn restore_ticket(
        &self,
        ctx: &Context<'_>,
        input: RestoreTicketInput,
    ) -> Result<RestoreTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let ticket = tickets::restore(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
        )
        .await?;
        Ok(RestoreTicketPayload {
            ticket: Ticket(ticket),
        })
    }

    /// Merge a ticket into another (team members only; final). Its comments, attachments and time move to
    /// the target with their authors and times, its tags and followers (its requester among them) are added
    /// there, and its links re-pointed; it is closed, and later comments and replies to it land on the target.
    /// A target that does not exist, is the ticket itself or was merged itself is BAD_USER_INPUT on `into`; so
    /// is a ticket merged already (without a field).
    async fn merge_ticket(
        &self,
        ctx: &Context<'_>,
        input: MergeTicketInput,
    ) -> Result<MergeTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let into = ids::decode(&input.into, "Ticket", "into")?;
        let merged = tickets::merge(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
            tickets::MergeTarget::Id(into),
        )
        .await?;
        Ok(MergeTicketPayload {
            ticket: Ticket(merged.source),
            into: Ticket(merged.target),
        })
    }

    /// Merge several tickets into one (team members only; final), all or none: each as `mergeTicket` merges
    /// one. An empty, repeated or too long list (over 50) is BAD_USER_INPUT on `sourceIds`; a target that does
    /// not exist, is among the sources or was merged itself is BAD_USER_INPUT on `targetId`; a source the
    /// viewer cannot see is NOT_FOUND, one merged already a conflict — and then nothing is merged.
    async fn merge_tickets(
        &self,
        ctx: &Context<'_>,
        input: MergeTicketsInput,
    ) -> Result<MergeTicketsPayload> {
        let (req, actor) = viewer(ctx)?;
        let sources = input
            .source_ids
            .iter()
            .map(|id| ids::decode(id, "Ticket", "sourceIds"))
            .collect::<AppResult<Vec<i32>>>()?;
        let target = ids::decode(&input.target_id, "Ticket", "targetId")?;
        let merged = tickets::merge_many(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            &sources,
            tickets::MergeTarget::Id(target),
            "targetId",
        )
        .await?;
        Ok(MergeTicketsPayload {
            tickets: merged.sources.into_iter().map(Ticket).collect(),
            target: Ticket(merged.target),
        })
    }

    /// Split comments off a ticket into a new one (team members only): they move, with their files and the time
    /// logged on them, to a new ticket of the same requester, project, group, assignee and priority, linked
    /// `RELATES_TO` the original. A comment that is not a live one of the ticket is BAD_USER_INPUT on
    /// `comments`.
    async fn split_ticket(
        &self,
        ctx: &Context<'_>,
        input: SplitTicketInput,
    ) -> Result<SplitTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ticket_id(&input.id)?;
        let comment_ids = input
            .comment_ids
            .iter()
            .map(|c| ids::decode(c, "Comment", "commentIds"))
            .collect::<AppResult<Vec<i32>>>()?;
        let made = tickets::split(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
            tickets::SplitOff {
                comment_ids,
                title: input.title,
            },
        )
        .await?;
        let original = tickets::get(&req.state.db.conn, &actor, id).await?;
        Ok(SplitTicketPayload {
            ticket: Ticket(made),
            original: Ticket(original),
        })
    }
}
