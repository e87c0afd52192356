//! `addTags`, `removeTags` on a ticket; `curateTag`, `updateTag`, `deleteTag` and `updateTagSettings` for
//! administrators.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::query::tags::TagSettings;
use crate::graphql::types::{Tag, Ticket};
use crate::service::tags::{self, Edit, TagUpdate};
use crate::service::tickets;
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};

/// Tag mutations.
#[derive(Default)]
pub struct TagMutation;

/// Tags for one ticket.
#[derive(InputObject)]
pub struct TicketTagsInput {
    /// The ticket.
    ticket_id: ID,
    /// Up to 50 names; normalised (trimmed, lowercase).
    tags: Vec<String>,
}

/// A ticket and its tags after the change.
#[derive(SimpleObject)]
pub struct TicketTagsPayload {
    /// The ticket.
    ticket: Ticket,
    /// Its tags, sorted.
    tags: Vec<String>,
}

/// A tag to curate.
#[derive(InputObject)]
pub struct CurateTagInput {
    /// The name.
    name: String,
}

/// A change to a tag across every ticket.
#[derive(InputObject)]
pub struct UpdateTagInput {
    /// The tag.
    name: String,
    /// A new name; naming another tag merges this one into it.
    new_name: Option<String>,
    /// On or off the curated list.
    curated: Option<bool>,
}

/// A tag to delete.
#[derive(InputObject)]
pub struct DeleteTagInput {
    /// The name.
    name: String,
}

/// The deleted tag's name.
#[derive(SimpleObject)]
pub struct DeleteTagPayload {
    /// The name it had.
    deleted_name: String,
}

/// The tag settings to set.
#[derive(InputObject)]
pub struct UpdateTagSettingsInput {
    /// Whether names off the curated list may be put on tickets.
    free_tags: bool,
}

async fn edit(ctx: &Context<'_>, ticket_id: &ID, edit: Edit) -> Result<TicketTagsPayload> {
    let (req, actor) = viewer(ctx)?;
    let id = ids::decode(ticket_id, "Ticket", "ticketId")?;
    let deps = req.state.write_deps(crate::domain::Channel::Graphql);
    let tags = tags::change(deps, &actor, id, edit).await?;
    let ticket = Ticket(tickets::get(&req.state.db.conn, &actor, id).await?);
    Ok(TicketTagsPayload { ticket, tags })
}

#[Object]
impl TagMutation {
    /// Put tags on a ticket, keeping the others (the team, the assignee and the assigned group).
    async fn add_tags(
        &self,
        ctx: &Context<'_>,
        input: TicketTagsInput,
    ) -> Result<TicketTagsPayload> {
        edit(ctx, &input.ticket_id, Edit::Add(input.tags)).await
    }

    /// Take tags off a ticket.
    async fn remove_tags(
        &self,
        ctx: &Context<'_>,
        input: TicketTagsInput,
    ) -> Result<TicketTagsPayload> {
        edit(ctx, &input.ticket_id, Edit::Remove(input.tags)).await
    }

    /// Put a name on the curated list, making the tag if it is new (administrators).
    async fn curate_tag(&self, ctx: &Context<'_>, input: CurateTagInput) -> Result<Tag> {
        let (req, actor) = viewer(ctx)?;
        Ok(tags::curate(&req.state.db, &actor, &input.name)
            .await?
            .into())
    }

    /// Rename a tag on every ticket, merge it into another by naming that one, or curate it
    /// (administrators).
    async fn update_tag(&self, ctx: &Context<'_>, input: UpdateTagInput) -> Result<Tag> {
        let (req, actor) = viewer(ctx)?;
        let change = TagUpdate {
            name: input.new_name,
            curated: input.curated,
        };
        Ok(
            tags::update(&req.state.db, &req.state.tags, &actor, &input.name, change)
                .await?
                .into(),
        )
    }

    /// Take a tag off every ticket and out of the list (administrators).
    async fn delete_tag(
        &self,
        ctx: &Context<'_>,
        input: DeleteTagInput,
    ) -> Result<DeleteTagPayload> {
        let (req, actor) = viewer(ctx)?;
        tags::delete(&req.state.db, &req.state.tags, &actor, &input.name).await?;
        Ok(DeleteTagPayload {
            deleted_name: input.name,
        })
    }

    /// Allow or refuse names off the curated list (administrators).
    async fn update_tag_settings(
        &self,
        ctx: &Context<'_>,
        input: UpdateTagSettingsInput,
    ) -> Result<TagSettings> {
        let (req, actor) = viewer(ctx)?;
        Ok(TagSettings {
            free_tags: tags::set_free_tags(&req.state.db, &actor, input.free_tags).await?,
        })
    }
}
