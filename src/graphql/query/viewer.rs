//! `me`, `node`, `nodes`, the user directory, groups and the viewer's API tokens.
use crate::error::AppError;
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo, Window};
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::limits::cost::LIST_MAX;
use crate::graphql::types::{node, ApiToken, Group, Node, User};
use crate::service::users::{accounts, Admin};
use crate::service::{tokens, users, Take};
use async_graphql::{
    Context, Enum, ErrorExtensions, InputObject, Object, Result, SimpleObject, ID,
};

/// What an account is, for filtering the directory.
#[derive(Enum, Clone, Copy, PartialEq, Eq)]
pub enum UserRole {
    /// Not a team member.
    Requester,
    /// A team member who is not an administrator.
    Agent,
    /// A superuser or a member of Administrators.
    Admin,
}

impl From<UserRole> for accounts::Role {
    fn from(role: UserRole) -> Self {
        match role {
            UserRole::Requester => accounts::Role::Requester,
            UserRole::Agent => accounts::Role::Agent,
            UserRole::Admin => accounts::Role::Admin,
        }
    }
}

/// Which accounts `users` lists (administrators only).
#[derive(InputObject)]
pub struct UserFilter {
    /// Only active (true) or only deactivated (false) accounts.
    active: Option<bool>,
    /// Only accounts of this role.
    role: Option<UserRole>,
    /// Only members of this group.
    group_id: Option<ID>,
}

/// Queries about the viewer and the directory.
#[derive(Default)]
pub struct ViewerQuery;

/// An edge of a user list.
#[derive(SimpleObject)]
pub struct UserEdge {
    /// Opaque cursor.
    cursor: String,
    /// The user.
    node: User,
}

/// A page of users.
#[derive(SimpleObject)]
pub struct UserConnection {
    /// Edges with cursors.
    edges: Vec<UserEdge>,
    /// The users of this page.
    nodes: Vec<User>,
    /// Paging state.
    page_info: PageInfo,
    /// Users matching, over all pages.
    total_count: i64,
}

#[Object]
impl ViewerQuery {
    /// The signed-in user.
    async fn me(&self, ctx: &Context<'_>) -> Result<User> {
        let (_, actor) = viewer(ctx)?;
        Ok(User(actor.user.clone()))
    }

    /// Any node by global id; null with a NOT_FOUND error when missing or not visible.
    async fn node(&self, ctx: &Context<'_>, id: ID) -> Result<Option<Node>> {
        let (req, actor) = viewer(ctx)?;
        Ok(Some(node::find(req, &actor, &id).await?))
    }

    /// Nodes by global ids, in order; null (with a NOT_FOUND error) for each missing or invisible one.
    async fn nodes(&self, ctx: &Context<'_>, ids: Vec<ID>) -> Result<Vec<Option<Node>>> {
        let (req, actor) = viewer(ctx)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in &ids {
            match node::find(req, &actor, id).await {
                Ok(found) => out.push(Some(found)),
                Err(AppError::NotFound(message)) => {
                    let err: async_graphql::Error = AppError::NotFound(message).into();
                    let err = err.extend_with(|_, ext| ext.set("id", id.to_string()));
                    ctx.add_error(err.into_server_error(ctx.item.pos));
                    out.push(None);
                }
                Err(other) => return Err(other.into()),
            }
        }
        Ok(out)
    }

    /// The user directory (team members only): active users whose username or name contains `query`.
    /// With `filter` (administrators only), every account, deactivated ones included, filtered by state,
    /// role and group, and `query` also matches emails.
    async fn users(
        &self,
        ctx: &Context<'_>,
        query: Option<String>,
        filter: Option<UserFilter>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<UserConnection> {
        let (req, actor) = viewer(ctx)?;
        let args = PageArgs {
            first,
            after,
            ..Default::default()
        };
        let window = args.window()?;
        let Window::Forward { .. } = window else {
            return Err(AppError::bad_request("users are paged forward only").into());
        };
        let page = slice(window, None);
        let db = &req.state.db.conn;
        let (mut rows, total) = match filter {
            None => {
                users::search(db, &actor, query.as_deref(), page.offset, page.limit + 1).await?
            }
            Some(filter) => {
                let filter = accounts::AccountFilter {
                    active: filter.active,
                    role: filter.role.map(Into::into),
                    group_id: ids::decode_opt(filter.group_id.as_ref(), "Group", "groupId")?,
                    q: query,
                };
                accounts::list(
                    db,
                    &Admin::of(&actor)?,
                    &filter,
                    page.offset,
                    page.limit + 1,
                )
                .await?
            }
        };
        let more = rows.len() as u64 > page.limit;
        rows.truncate(page.limit as usize);
        let info = page_info(page, rows.len(), more);
        let edges = rows
            .iter()
            .enumerate()
            .map(|(i, u)| UserEdge {
                cursor: cursor(page.offset + i as u64),
                node: User(u.clone()),
            })
            .collect();
        Ok(UserConnection {
            edges,
            nodes: rows.into_iter().map(User).collect(),
            page_info: info,
            total_count: total as i64,
        })
    }

    /// Groups by name: the first 100 (a documented cap, docs/graphql.md).
    async fn groups(&self, ctx: &Context<'_>) -> Result<Vec<Group>> {
        let (req, _) = viewer(ctx)?;
        let groups = users::list_groups(&req.state.db.conn, Take::First(LIST_MAX)).await?;
        Ok(groups.into_iter().map(Group).collect())
    }

    /// The viewer's API tokens, newest first: the first 100 (a documented cap, docs/graphql.md).
    async fn api_tokens(&self, ctx: &Context<'_>) -> Result<Vec<ApiToken>> {
        let (req, actor) = viewer(ctx)?;
        let list = tokens::list_for(&req.state.db.conn, &actor, Take::First(LIST_MAX)).await?;
        Ok(list.into_iter().map(ApiToken).collect())
    }
}
