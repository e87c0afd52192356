//! Loads the relations a ticket page selects in one batch per kind, before the fields resolve.
//! The loaders would batch them anyway ([`crate::graphql::engine::batches`]), one level of the selection at a time; primed,
//! what the page's fields ask for is read with the page, in fewer round trips.
use crate::graphql::context::{load_error, RequestContext};
use crate::graphql::loaders::comments::CommentEditsKey;
use crate::graphql::loaders::comments::TicketCommentsKey;
use crate::graphql::loaders::viewer::{
    AssetsOfTicketKey, FieldsOfTicketKey, FollowersOfTicketKey, GroupsOfUserKey, LinksOfTicketKey,
    TagsOfTicketKey, TicketsOfAssetKey, UserKey, VisibleTicketKey,
};
use crate::graphql::loaders::{GroupKey, ProjectKey, ProjectTicketCountKey};
use crate::service::custom_fields;
use crate::service::tickets::{Joined, People, TicketPage};
use async_graphql::{Context, Lookahead, Result};
use entity::{asset, project, ticket};

fn selected<'a>(connection: &Lookahead<'a>, path: &[&str]) -> bool {
    let via = |start: Lookahead<'a>| path.iter().fold(start, |la, name| la.field(name)).exists();
    via(connection.field("nodes")) || via(connection.field("edges").field("node"))
}

/// Whether the selection under a ticket connection shows the people or project of its tickets: then the
/// page is read with them in one statement ([`crate::service::tickets::TicketReads::page`]) and [`feed_refs`] hands them over.
pub fn connection_wants_refs(connection: &Lookahead<'_>) -> bool {
    ["requester", "assignee", "project"]
        .iter()
        .any(|name| selected(connection, &[name]))
}

/// Whether the selection under a ticket connection shows `field` of its tickets.
pub fn connection_wants(connection: &Lookahead<'_>, field: &str) -> bool {
    selected(connection, &[field])
}

/// Whether a single ticket's selection shows its people or project.
pub fn ticket_wants_refs(ticket: &Lookahead<'_>) -> bool {
    ["requester", "assignee", "project"]
        .iter()
        .any(|name| ticket.field(name).exists())
}

/// Put users and projects read with a page of tickets where the resolvers look first
/// ([`crate::graphql::context::PageRecords`]).
pub fn feed_refs(req: &RequestContext, refs: TicketPage) -> Vec<ticket::Model> {
    let TicketPage {
        tickets,
        people,
        projects,
        ..
    } = refs;
    match req.page_records.lock() {
        Ok(mut records) => {
            records.users.extend(people);
            records.projects.extend(projects);
        }
        // Never expected (nothing panics while holding it); the resolvers then load them again.
        Err(_) => tracing::warn!("request's page records unavailable"),
    }
    tickets
}

/// Prime the request's loader with what the selection under a ticket connection will ask for, but
/// what [`feed_refs`] already put there (`joined`: what the page's statement joined) is not asked again.
pub async fn ticket_page(
    ctx: &Context<'_>,
    req: &RequestContext,
    rows: &[ticket::Model],
    joined: Option<Joined>,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let people_joined = joined.is_some_and(|j| j.people == Some(People::Records));
    let la = ctx.look_ahead();
    let loader = &req.loader;
    let mut user_ids = Vec::new();
    if !people_joined && selected(&la, &["requester"]) {
        user_ids.extend(rows.iter().map(|t| t.requester_id));
    }
    if !people_joined && selected(&la, &["assignee"]) {
        user_ids.extend(rows.iter().filter_map(|t| t.assignee_id));
    }
    if !user_ids.is_empty() {
        req.visible
            .load_many(user_ids.iter().copied().map(UserKey))
            .await
            .map_err(load_error)?;
    }
    let mut group_owners = Vec::new();
    if selected(&la, &["requester", "groups"]) {
        group_owners.extend(rows.iter().map(|t| t.requester_id));
    }
    if selected(&la, &["assignee", "groups"]) {
        group_owners.extend(rows.iter().filter_map(|t| t.assignee_id));
    }
    if !group_owners.is_empty() {
        req.visible
            .load_many(group_owners.into_iter().map(GroupsOfUserKey))
            .await
            .map_err(load_error)?;
    }
    if selected(&la, &["assignedGroup"]) {
        let keys = rows
            .iter()
            .filter_map(|t| t.assigned_group_id)
            .map(GroupKey);
        loader.load_many(keys).await.map_err(load_error)?;
    }
    if !joined.is_some_and(|j| j.project) && selected(&la, &["project"]) {
        let keys = rows.iter().filter_map(|t| t.project_id).map(ProjectKey);
        loader.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["assets"]) {
        let keys = rows.iter().map(|t| AssetsOfTicketKey(t.id));
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["tags"]) {
        let keys = rows.iter().map(|t| TagsOfTicketKey(t.id));
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["fields"]) {
        let actor = req.actor()?;
        let keys = rows
            .iter()
            .map(|t| FieldsOfTicketKey(custom_fields::TicketScope::of(&actor, t)));
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["followers"]) {
        let keys = rows.iter().map(|t| FollowersOfTicketKey(t.id));
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["links"]) || selected(&la, &["parent"]) || selected(&la, &["children"]) {
        let keys = rows.iter().map(|t| LinksOfTicketKey(t.id));
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["mergedInto"]) {
        let keys = rows
            .iter()
            .filter_map(|t| t.merged_into_id)
            .map(VisibleTicketKey);
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    comment_pages(req, &la, rows).await
}

/// The selections of comment nodes under the tickets of a ticket connection.
fn comment_nodes<'a>(connection: &Lookahead<'a>) -> Vec<Lookahead<'a>> {
    let tickets = [
        connection.field("nodes"),
        connection.field("edges").field("node"),
    ];
    tickets
        .iter()
        .flat_map(|t| {
            let comments = t.field("comments");
            [
                comments.field("nodes"),
                comments.field("edges").field("node"),
            ]
        })
        .filter(|c| c.exists())
        .collect()
}

/// Comments, their edit histories and the people on them, for every ticket of the page at once.
async fn comment_pages(
    req: &RequestContext,
    la: &Lookahead<'_>,
    rows: &[ticket::Model],
) -> Result<()> {
    if !selected(la, &["comments"]) {
        return Ok(());
    }
    // Whole comment lists are loaded (pages are cut in the resolver), so their people are too.
    let nodes = comment_nodes(la);
    let any = |path: &[&str]| {
        nodes.iter().any(|n| {
            let mut names = path.iter();
            let start = names.next().map(|name| n.field(name));
            start.is_some_and(|s| names.fold(s, |la, name| la.field(name)).exists())
        })
    };
    let loader = &req.visible;
    let keys = rows.iter().map(|t| TicketCommentsKey(t.id));
    let pages = loader.load_many(keys).await.map_err(load_error)?;
    let all: Vec<&entity::comment::Model> =
        pages.values().flat_map(|l| l.comments.iter()).collect();
    let mut user_ids: Vec<i32> = Vec::new();
    if any(&["author"]) {
        // Read with the comments.
        req.add_page_users(pages.values().flat_map(|l| l.authors.values()).cloned());
    }
    if any(&["editedBy"]) {
        user_ids.extend(all.iter().filter_map(|c| c.edited_by_id));
    }
    if any(&["edits"]) {
        let keys = all.iter().map(|c| CommentEditsKey(c.id));
        let edits = loader.load_many(keys).await.map_err(load_error)?;
        if any(&["edits", "editedBy"]) {
            user_ids.extend(edits.values().flatten().filter_map(|e| e.edited_by_id));
        }
    }
    if !user_ids.is_empty() {
        user_ids.sort_unstable();
        user_ids.dedup();
        loader
            .load_many(user_ids.into_iter().map(UserKey))
            .await
            .map_err(load_error)?;
    }
    Ok(())
}

/// Prime the loaders for a page of projects (their ticket counts).
pub async fn project_page(
    ctx: &Context<'_>,
    req: &RequestContext,
    rows: &[project::Model],
) -> Result<()> {
    if !rows.is_empty() && selected(&ctx.look_ahead(), &["ticketCount"]) {
        let keys = rows.iter().map(|p| ProjectTicketCountKey(p.id));
        req.loader.load_many(keys).await.map_err(load_error)?;
    }
    Ok(())
}

/// Prime the loaders for a page of assets (owners and linked tickets).
pub async fn asset_page(
    ctx: &Context<'_>,
    req: &RequestContext,
    rows: &[asset::Model],
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let la = ctx.look_ahead();
    if selected(&la, &["owner"]) {
        let keys = rows.iter().filter_map(|a| a.owner_id).map(UserKey);
        req.visible.load_many(keys).await.map_err(load_error)?;
    }
    if selected(&la, &["tickets"]) {
        let keys = rows.iter().map(|a| TicketsOfAssetKey(a.id));
        let linked = req.visible.load_many(keys).await.map_err(load_error)?;
        // One level further (`tickets { assets }`), so those loads do not race the loader's batch window.
        if selected(&la, &["tickets", "assets"]) {
            let ticket_ids = linked.values().flatten().map(|t| AssetsOfTicketKey(t.id));
            req.visible
                .load_many(ticket_ids)
                .await
                .map_err(load_error)?;
        }
    }
    Ok(())
}
