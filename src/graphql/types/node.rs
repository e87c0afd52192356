//! The `Node` interface and lookup of any node by global id, with the viewer's visibility.
use super::{ApiToken, Asset, Group, Project, Ticket, User};
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::graphql::context::RequestContext;
use crate::graphql::ids;
use crate::service::{assets, projects, tickets};
use async_graphql::{Interface, ID};
use entity::{api_token, group, user};
use sea_orm::EntityTrait;

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
}

/// The node behind a global id, or NOT_FOUND when it does not exist or the actor may not see it.
pub async fn find(req: &RequestContext, actor: &Actor, id: &ID) -> AppResult<Node> {
    let not_found = || AppError::not_found("node");
    let (kind, db_id) = ids::decode_any(id).ok_or_else(not_found)?;
    let db = &req.state.db.conn;
    let node = match kind.as_str() {
        "Ticket" => Node::Ticket(Ticket(tickets::get(db, actor, db_id).await?)),
        "User" => Node::User(User(
            user::Entity::find_by_id(db_id)
                .one(db)
                .await?
                .ok_or_else(not_found)?,
        )),
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
        _ => return Err(not_found()),
    };
    Ok(node)
}
