//! `Ticket`: fields, relations through the loaders, and what the viewer may do with it.
use super::audit::{self, AuditEventConnection};
use super::comment::{self, CommentConnection};
use super::{Asset, Attachment, Group, Project, User};
use crate::domain::{Priority, StatusCategory, TicketStatus};
use crate::graphql::attachment_loader::TicketAttachmentsKey;
use crate::graphql::context::{load_error, viewer};
use crate::graphql::cost::capped;
use crate::graphql::ids;
use crate::graphql::loaders::{GroupKey, TicketSlaKey};
use crate::graphql::plain::{self, plain_output, Env, Plain};
use crate::graphql::scalars::Date;
use crate::graphql::viewer_loader::AssetsOfTicketKey;
use crate::service::comments;
use crate::service::tickets::rules;
use async_graphql::parser::types::Field;
use async_graphql::resolver_utils::enum_value;
use async_graphql::{Context, Object, Result, ScalarType, Value, ID};
use chrono::{DateTime, Utc};
use entity::ticket;

/// A request or incident raised by a requester.
pub struct Ticket(pub ticket::Model);

impl Ticket {
    fn fields(&self) -> TicketFields<'_> {
        TicketFields(&self.0)
    }

    /// Global id (what the `Node` interface asks each of its types).
    pub async fn id(&self, _ctx: &Context<'_>) -> Result<ID> {
        Ok(ids::encode("Ticket", self.0.id))
    }
}

plain_output!(Ticket, TicketFields);

impl Plain for Ticket {
    const NAME: &'static str = "Ticket";
    const INTERFACES: &'static [&'static str] = &["Node"];

    fn field(&self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let t = &self.0;
        let status = || TicketStatus::from_db(&t.status).ok();
        Some(match field.name.node.as_str() {
            "id" => Value::String(ids::encode("Ticket", t.id).0),
            "databaseId" => Value::from(t.id),
            "ticketNumber" => Value::String(t.ticket_number.clone()),
            "title" => Value::String(t.title.clone()),
            "description" => Value::String(t.description.clone()),
            "status" => enum_value(status()?),
            "statusCategory" => enum_value(status()?.category()),
            "priority" => enum_value(Priority::from_db(&t.priority).ok()?),
            "requester" => plain::user(Some(t.requester_id), field, env)?,
            "assignee" => plain::user(t.assignee_id, field, env)?,
            "assignedGroup" => {
                let key = t.assigned_group_id.map(GroupKey);
                plain::relation(&env.req.loader, key, Group, field, env)?
            }
            "project" => plain::project(t.project_id, field, env)?,
            "dueDate" => t.due_date.map_or(Value::Null, |d| Date(d).to_value()),
            "createdAt" => t.created_at.to_value(),
            "updatedAt" => t.updated_at.to_value(),
            "firstRespondedAt" => time(t.first_responded_at),
            "resolvedAt" => time(t.resolved_at),
            "closedAt" => time(t.closed_at),
            "commentsCount" => Value::from(comments::visible_count(&env.actor, t)),
            "allowedTransitions" => Value::List(
                rules::allowed_transitions(&env.actor, t)
                    .into_iter()
                    .map(enum_value)
                    .collect(),
            ),
            "viewerCanUpdate" => Value::Boolean(rules::can_update(&env.actor, t)),
            "viewerCanComment" => Value::Boolean(rules::can_comment(&env.actor, t)),
            "viewerCanCommentInternally" => {
                Value::Boolean(crate::service::comments::can_read_internal(&env.actor, t))
            }
            _ => return None,
        })
    }
}

fn time(at: Option<DateTime<Utc>>) -> Value {
    at.map_or(Value::Null, |at| at.to_value())
}

/// The resolvers of every `Ticket` field, for selections that are not plain.
pub struct TicketFields<'a>(&'a ticket::Model);

impl std::ops::Deref for TicketFields<'_> {
    type Target = ticket::Model;

    fn deref(&self) -> &ticket::Model {
        self.0
    }
}

impl<'a> TicketFields<'a> {
    fn status_value(&self) -> Result<TicketStatus> {
        Ok(TicketStatus::from_db(&self.status)?)
    }

    async fn user(ctx: &Context<'_>, id: Option<i32>) -> Result<Option<User>> {
        let Some(id) = id else { return Ok(None) };
        let (req, _) = viewer(ctx)?;
        Ok(req.user(id).await?.map(User))
    }
}

#[Object(name = "Ticket")]
impl<'a> TicketFields<'a> {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Ticket", self.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.id
    }

    /// `<PREFIX>-<N>`, e.g. `TKT-042`.
    async fn ticket_number(&self) -> &str {
        &self.ticket_number
    }

    /// Title.
    async fn title(&self) -> &str {
        &self.title
    }

    /// Description (sanitised HTML).
    async fn description(&self) -> &str {
        &self.description
    }

    /// Workflow status.
    async fn status(&self) -> Result<TicketStatus> {
        self.status_value()
    }

    /// Category of the status.
    async fn status_category(&self) -> Result<StatusCategory> {
        Ok(self.status_value()?.category())
    }

    /// Priority.
    async fn priority(&self) -> Result<Priority> {
        Ok(Priority::from_db(&self.priority)?)
    }

    /// Who raised it.
    async fn requester(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        Self::user(ctx, Some(self.requester_id)).await
    }

    /// Who works on it.
    async fn assignee(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        Self::user(ctx, self.assignee_id).await
    }

    /// The group it is assigned to.
    async fn assigned_group(&self, ctx: &Context<'_>) -> Result<Option<Group>> {
        let Some(id) = self.assigned_group_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        let found = req
            .loader
            .load_one(GroupKey(id))
            .await
            .map_err(load_error)?;
        Ok(found.map(Group))
    }

    /// The project it belongs to.
    async fn project(&self, ctx: &Context<'_>) -> Result<Option<Project>> {
        let Some(id) = self.project_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        Ok(req.project(id).await?.map(Project))
    }

    /// The service-level clock (null when no policy ever applied to the ticket).
    async fn sla(&self, ctx: &Context<'_>) -> Result<Option<super::TicketSla>> {
        let (req, _) = viewer(ctx)?;
        let found = req
            .loader
            .load_one(TicketSlaKey(self.id))
            .await
            .map_err(load_error)?;
        Ok(found.map(super::TicketSla))
    }

    /// Due date.
    async fn due_date(&self) -> Option<Date> {
        self.due_date.map(Date)
    }

    /// Creation time.
    async fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }

    /// Last change.
    async fn updated_at(&self) -> DateTime<Utc> {
        self.updated_at
    }

    /// First public comment by a team member.
    async fn first_responded_at(&self) -> Option<DateTime<Utc>> {
        self.first_responded_at
    }

    /// When it was resolved.
    async fn resolved_at(&self) -> Option<DateTime<Utc>> {
        self.resolved_at
    }

    /// When it was closed.
    async fn closed_at(&self) -> Option<DateTime<Utc>> {
        self.closed_at
    }

    /// Comments the viewer may read (internal ones only for the team, the assignee and the assigned group).
    async fn comments_count(&self, ctx: &Context<'_>) -> Result<i64> {
        let (_, actor) = viewer(ctx)?;
        Ok(comments::visible_count(&actor, self.0))
    }

    /// Live comments the viewer may read, oldest first.
    async fn comments(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<CommentConnection> {
        comment::connection(ctx, self.0, first, after).await
    }

    /// Changes to the ticket and its comments, oldest first; entries about internal comments only
    /// for viewers who may read them.
    async fn history(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<AuditEventConnection> {
        audit::ticket_history(ctx, self.0, first, after).await
    }

    /// Linked, non-archived assets the viewer may see, by name.
    async fn assets(&self, ctx: &Context<'_>) -> Result<Vec<Asset>> {
        let (req, _) = viewer(ctx)?;
        let found = req
            .visible
            .load_one(AssetsOfTicketKey(self.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(capped(found).map(Asset).collect())
    }

    /// The files on the ticket and on its comments that the viewer may see, oldest first.
    async fn attachments(&self, ctx: &Context<'_>) -> Result<Vec<Attachment>> {
        let (req, _) = viewer(ctx)?;
        let found = req
            .visible
            .load_one(TicketAttachmentsKey(self.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(capped(found).map(Attachment).collect())
    }

    /// Statuses the viewer may move the ticket to now.
    async fn allowed_transitions(&self, ctx: &Context<'_>) -> Result<Vec<TicketStatus>> {
        let (_, actor) = viewer(ctx)?;
        Ok(rules::allowed_transitions(&actor, self.0))
    }

    /// Whether the viewer may change anything on the ticket.
    async fn viewer_can_update(&self, ctx: &Context<'_>) -> Result<bool> {
        let (_, actor) = viewer(ctx)?;
        Ok(rules::can_update(&actor, self.0))
    }

    /// Whether the viewer may add a public comment.
    async fn viewer_can_comment(&self, ctx: &Context<'_>) -> Result<bool> {
        let (_, actor) = viewer(ctx)?;
        Ok(rules::can_comment(&actor, self.0))
    }

    /// Whether the viewer may add (and read) internal comments.
    async fn viewer_can_comment_internally(&self, ctx: &Context<'_>) -> Result<bool> {
        let (_, actor) = viewer(ctx)?;
        Ok(crate::service::comments::can_read_internal(&actor, self.0))
    }
}
