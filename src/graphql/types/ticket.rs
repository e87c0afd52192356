//! `Ticket`: each field once ([`fields!`]): columns, relations through the page's records and the
//! loaders, and what the viewer may do with it.
use super::audit::{self, AuditEventConnection};
use super::comment::{self, CommentConnection};
use super::{Asset, Attachment};
use crate::domain::{Priority, StatusCategory, TicketStatus, Workflow};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::engine::one_pass::{fields, plain_output};
use crate::graphql::engine::one_pass::{GroupOf, ProjectOf, UserOf};
use crate::graphql::ids;
use crate::graphql::loaders::attachments::TicketAttachmentsKey;
use crate::graphql::loaders::viewer::{
    AssetsOfTicketKey, FieldsOfTicketKey, FollowersOfTicketKey, LinksOfTicketKey, TagsOfTicketKey,
    TimeOfTicketKey, VisibleTicketKey,
};
use crate::graphql::loaders::TicketSlaKey;
use crate::graphql::scalars::Date;
use crate::graphql::types::TicketLink;
use crate::graphql::types::{Group, Project, User};
use crate::service::comments::{self, can_read_internal};
use crate::service::custom_fields;
use crate::service::links::LinkView;
use crate::service::tickets::rules;
use async_graphql::{Context, Result, ID};
use chrono::{DateTime, Utc};
use entity::ticket;
use entity::values::LinkType;

/// A request or incident raised by a requester.
pub struct Ticket(pub ticket::Model);

impl Ticket {
    fn fields(&self) -> TicketFields<'_> {
        TicketFields(self)
    }

    /// Global id (what the `Node` interface asks each of its types).
    pub async fn id(&self, _ctx: &Context<'_>) -> Result<ID> {
        Ok(ids::encode("Ticket", self.0.id))
    }
}

plain_output!(Ticket, TicketFields);

/// The links of ticket `id` the viewer may see, through the request's loader: the first
/// [`LIST_MAX`](crate::graphql::limits::cost::LIST_MAX), as lists are priced.
async fn links_of(ctx: &Context<'_>, id: i32) -> Result<Vec<LinkView>> {
    let (req, _) = viewer(ctx)?;
    let mut found = req
        .visible
        .load_one(LinksOfTicketKey(id))
        .await
        .map_err(load_error)?
        .unwrap_or_default();
    found.truncate(usize::try_from(crate::graphql::limits::cost::LIST_MAX).unwrap_or(100));
    Ok(found)
}

/// The resolvers of every `Ticket` field, for selections that are not plain.
pub struct TicketFields<'a>(&'a Ticket);

impl std::borrow::Borrow<Ticket> for TicketFields<'_> {
    fn borrow(&self) -> &Ticket {
        self.0
    }
}

impl std::ops::Deref for TicketFields<'_> {
    type Target = ticket::Model;

    fn deref(&self) -> &ticket::Model {
        &self.0 .0
    }
}

fields! {
    /// A request or incident raised by a requester, as the viewer may see it.
    impl<'a> TicketFields<'a> as "Ticket" for Ticket, interfaces ["Node"];
    /// Global id.
    id: ID = |t| ids::encode("Ticket", t.0.id);
    /// The integer id used by REST.
    databaseId: i32 = |t| t.0.id;
    /// `<PREFIX>-<N>`, e.g. `TKT-042`.
    ticketNumber: String = |t| t.0.ticket_number.clone();
    /// Title.
    title: String = |t| t.0.title.clone();
    /// Description (sanitised HTML).
    description: String = |t| t.0.description.clone();
    /// Workflow status.
    status: TicketStatus = |t| t.0.status;
    /// Category of the status.
    statusCategory: StatusCategory = |t| t.0.status.category();
    /// Priority.
    priority: Priority = |t| t.0.priority;
    /// Who raised it.
    requester: Option<User> = |t| UserOf(Some(t.0.requester_id));
    /// Who works on it.
    assignee: Option<User> = |t| UserOf(t.0.assignee_id);
    /// The group it is assigned to.
    assignedGroup: Option<Group> = |t| GroupOf(t.0.assigned_group_id);
    /// The project it belongs to.
    project: Option<Project> = |t| ProjectOf(t.0.project_id);
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
    dueDate: Option<Date> = |t| t.0.due_date.map(Date);
    /// Creation time.
    createdAt: DateTime<Utc> = |t| t.0.created_at;
    /// Last change.
    updatedAt: DateTime<Utc> = |t| t.0.updated_at;
    /// First public comment by a team member.
    firstRespondedAt: Option<DateTime<Utc>> = |t| t.0.first_responded_at;
    /// When it was resolved.
    resolvedAt: Option<DateTime<Utc>> = |t| t.0.resolved_at;
    /// When it was closed.
    closedAt: Option<DateTime<Utc>> = |t| t.0.closed_at;
    /// Comments the viewer may read (internal ones only for the team, the assignee and the assigned group).
    commentsCount: i64 = |t, actor| comments::visible_count(actor, &t.0);
    /// Live comments the viewer may read, oldest first.
    async fn comments(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<CommentConnection> {
        comment::connection(ctx, &self.0 .0, first, after).await
    }

    /// Changes to the ticket and its comments, oldest first; entries about internal comments only
    /// for viewers who may read them.
    async fn history(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<AuditEventConnection> {
        audit::ticket_history(ctx, &self.0 .0, first, after).await
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
        Ok(found.into_iter().map(Asset).collect())
    }

    /// Links to tickets the viewer may see, of one type or all, by type and the other ticket's number.
    async fn links(
        &self,
        ctx: &Context<'_>,
        #[graphql(name = "type")] link_type: Option<LinkType>,
    ) -> Result<Vec<TicketLink>> {
        Ok(links_of(ctx, self.id)
            .await?
            .into_iter()
            .filter(|l| link_type.is_none_or(|t| t == l.link_type))
            .map(TicketLink)
            .collect())
    }

    /// The ticket this one was merged into, when it was and the viewer may see that one (a requester of the
    /// merged ticket is told its number in a comment on it).
    async fn merged_into(&self, ctx: &Context<'_>) -> Result<Option<Ticket>> {
        let Some(id) = self.merged_into_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        let found = req
            .visible
            .load_one(VisibleTicketKey(id))
            .await
            .map_err(load_error)?;
        Ok(found.map(Ticket))
    }

    /// The parent ticket, when it has one the viewer may see.
    async fn parent(&self, ctx: &Context<'_>) -> Result<Option<Ticket>> {
        Ok(links_of(ctx, self.id)
            .await?
            .into_iter()
            .find(|l| l.link_type == LinkType::ChildOf)
            .map(|l| Ticket(l.other)))
    }

    /// The child tickets the viewer may see, by number; at most `first` (default 50, at most 100).
    async fn children(
        &self,
        ctx: &Context<'_>,
        #[graphql(validator(minimum = 0, maximum = 100))] first: Option<i32>,
    ) -> Result<Vec<Ticket>> {
        let first = usize::try_from(first.unwrap_or(50)).unwrap_or(50);
        Ok(links_of(ctx, self.id)
            .await?
            .into_iter()
            .filter(|l| l.link_type == LinkType::ParentOf)
            .take(first)
            .map(|l| Ticket(l.other))
            .collect())
    }

    /// Who follows it (hears of it as its requester does), by user name.
    async fn followers(&self, ctx: &Context<'_>) -> Result<Vec<User>> {
        let (req, _) = viewer(ctx)?;
        Ok(req
            .visible
            .load_one(FollowersOfTicketKey(self.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default()
            .into_iter()
            .map(User)
            .collect())
    }

    /// Minutes spent on it: for the team, the assignee and the assigned group; null for anyone else.
    async fn time_spent(&self, ctx: &Context<'_>) -> Result<Option<i64>> {
        let (req, actor) = viewer(ctx)?;
        if !can_read_internal(&actor, &self.0 .0) {
            return Ok(None);
        }
        Ok(Some(
            req.visible
                .load_one(TimeOfTicketKey(self.id))
                .await
                .map_err(load_error)?
                .unwrap_or(0),
        ))
    }

    /// Its tags, sorted: for the team, the assignee and the assigned group; empty for anyone else.
    async fn tags(&self, ctx: &Context<'_>) -> Result<Vec<String>> {
        let (req, _) = viewer(ctx)?;
        Ok(req
            .visible
            .load_one(TagsOfTicketKey(self.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default())
    }

    /// The custom fields it carries that the viewer may see, by position, each with its value (null when
    /// unset); team-only fields for the team, the assignee and the assigned group.
    async fn fields(&self, ctx: &Context<'_>) -> Result<Vec<super::TicketField>> {
        let (req, actor) = viewer(ctx)?;
        let scope = custom_fields::TicketScope::of(&actor, &self.0 .0);
        let shown = req
            .visible
            .load_one(FieldsOfTicketKey(scope))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(shown
            .into_iter()
            .map(|(field, value)| super::TicketField::of(field, value))
            .collect())
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
        Ok(found.into_iter().map(Attachment).collect())
    }

    /// Statuses the viewer may move the ticket to now.
    allowedTransitions: Vec<TicketStatus> = |t, actor| rules::allowed_transitions(actor, &t.0);
    /// Whether the viewer may change anything on the ticket.
    viewerCanUpdate: bool = |t, actor| rules::can_update(actor, &t.0);
    /// Whether the viewer may add a public comment.
    viewerCanComment: bool = |t, actor| rules::can_comment(actor, &t.0);
    /// Whether the viewer may add (and read) internal comments.
    viewerCanCommentInternally: bool = |t, actor| can_read_internal(actor, &t.0);
}
