//! The `Node` interface and lookup of any node by global id, with the viewer's visibility.
use super::audit::parse_audit_id;
use super::{
    ApiToken, Asset, Attachment, AuditEvent, ChatDestination, Comment, CustomField, Group, Mailbox,
    Project, Ticket, TimeRule, Trigger, User, Webhook,
};
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::graphql::context::RequestContext;
use crate::graphql::ids;
use crate::service::{
    assets, attachments, audit, automation, chat, comments, custom_fields, mailboxes, projects,
    tickets, users, webhooks,
};
use async_graphql::{Interface, ID};
use entity::{api_token, group};
use sea_orm::EntityTrait;
use std::sync::Arc;

/// Anything with a global id.
#[derive(Interface)]
#[graphql(field(name = "id", ty = "ID", desc = "Global id."))]
pub enum Node {
    /// A user.
    User(User),
    /// A group.
    Group(Group),
    /// A ticket.
    Ticket(Ticket),
    /// A project.
    Project(Project),
    /// An inventory item.
    Asset(Asset),
    /// An API token.
    ApiToken(ApiToken),
    /// A webhook endpoint (administrators only).
    Webhook(Webhook),
    /// A Slack or Teams destination (administrators only).
    ChatDestination(ChatDestination),
    /// An IMAP mailbox mail is fetched from (administrators only).
    Mailbox(Mailbox),
    /// An automation trigger (administrators only).
    Trigger(Trigger),
    /// An automation time rule (administrators only).
    TimeRule(TimeRule),
    /// A comment.
    Comment(Comment),
    /// An audit-trail entry.
    AuditEvent(AuditEvent),
    /// A file on a ticket or comment.
    Attachment(Attachment),
    /// A custom field definition (team-only ones for the team).
    CustomField(CustomField),
}

/// The node behind a global id, or NOT_FOUND when it does not exist or the actor may not see it.
pub async fn find(req: &RequestContext, actor: &Actor, id: &ID) -> AppResult<Node> {
    let not_found = || AppError::not_found("node");
    let db = &req.state.db.conn;
    // Audit ids are 64-bit and do not fit the common decoder.
    if let Some(audit_id) = parse_audit_id(id) {
        return Ok(Node::AuditEvent(AuditEvent(
            audit::get_visible(db, actor, audit_id).await?,
        )));
    }
    let (kind, db_id) = ids::decode_any(id).ok_or_else(not_found)?;
    let node = match kind.as_str() {
        "Ticket" => Node::Ticket(Ticket(tickets::get(db, actor, db_id).await?)),
        "User" => Node::User(User(users::get_visible(db, actor, db_id).await?)),
        "Group" => Node::Group(Group(
            group::Entity::find_by_id(db_id)
                .one(db)
                .await?
                .ok_or_else(not_found)?,
        )),
        "Project" => Node::Project(Project(projects::get(db, db_id).await?)),
        "Asset" => Node::Asset(Asset(assets::get(db, actor, db_id).await?)),
        "ApiToken" => Node::ApiToken(ApiToken(
            api_token::Entity::find_by_id(db_id)
                .one(db)
                .await?
                .filter(|t| t.user_id == actor.id())
                .ok_or_else(not_found)?,
        )),
        "CustomField" => Node::CustomField(CustomField(Arc::new(
            custom_fields::get(db, actor, db_id).await?,
        ))),
        "Trigger" if actor.is_admin() => Node::Trigger(Trigger(
            automation::triggers::get(&req.state.db, actor, db_id).await?,
        )),
        "TimeRule" if actor.is_admin() => Node::TimeRule(TimeRule(
            automation::time_rules::get(&req.state.db, actor, db_id).await?,
        )),
        "Webhook" if actor.is_admin() => {
            Node::Webhook(Webhook(webhooks::get(&req.state.db, actor, db_id).await?))
        }
        "ChatDestination" if actor.is_admin() => Node::ChatDestination(ChatDestination(
            chat::get(&req.state.db, actor, db_id).await?,
        )),
        "Mailbox" if actor.is_admin() => {
            Node::Mailbox(Mailbox(mailboxes::get(&req.state.db, actor, db_id).await?))
        }
        "Comment" => {
            let (c, t) = comments::get_visible(db, actor, db_id).await?;
            Node::Comment(Comment::new(c, Arc::new(t)))
        }
        "Attachment" => Node::Attachment(Attachment(
            attachments::get_visible(db, actor, db_id).await?.0,
        )),
        _ => return Err(not_found()),
    };
    Ok(node)
}
