//! `addTicketLink`, `removeTicketLink` and `resolveChildren`.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{Ticket, TicketLink};
use crate::service::{links, tickets};
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};
use entity::values::LinkType;

/// Link mutations.
#[derive(Default)]
pub struct LinkMutation;

/// A link to make.
#[derive(InputObject)]
pub struct AddTicketLinkInput {
    /// The ticket.
    ticket_id: ID,
    /// How it stands to the other (`CHILD_OF`: it is the other's child).
    #[graphql(name = "type")]
    link_type: LinkType,
    /// The other ticket.
    other_ticket_id: ID,
}

/// The link and the ticket.
#[derive(SimpleObject)]
pub struct AddTicketLinkPayload {
    /// The link as the ticket sees it.
    link: TicketLink,
    /// The ticket.
    ticket: Ticket,
    /// False when the link was there already.
    created: bool,
}

/// A link to remove.
#[derive(InputObject)]
pub struct RemoveTicketLinkInput {
    /// The ticket.
    ticket_id: ID,
    /// One of its links.
    link_id: ID,
}

/// The ticket after the link went.
#[derive(SimpleObject)]
pub struct RemoveTicketLinkPayload {
    /// The removed link's id.
    removed_link_id: ID,
    /// The ticket.
    ticket: Ticket,
}

/// A parent whose children to resolve.
#[derive(InputObject)]
pub struct ResolveChildrenInput {
    /// The parent ticket.
    ticket_id: ID,
}

/// A child that could not be resolved.
#[derive(SimpleObject)]
pub struct ChildFailure {
    /// The child.
    ticket_id: ID,
    /// The error code, as in errors' `extensions.code`.
    code: String,
    /// Why.
    message: String,
}

/// What resolving the children did.
#[derive(SimpleObject)]
pub struct ResolveChildrenPayload {
    /// The children resolved.
    resolved: Vec<Ticket>,
    /// Those that could not be.
    failures: Vec<ChildFailure>,
}

#[Object]
impl LinkMutation {
    /// Link a ticket to another (the team, the assignee and the assigned group). Linking twice changes
    /// nothing; a self-link, a second parent or a loop is BAD_USER_INPUT on `ticket`.
    async fn add_ticket_link(
        &self,
        ctx: &Context<'_>,
        input: AddTicketLinkInput,
    ) -> Result<AddTicketLinkPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let other = ids::decode(&input.other_ticket_id, "Ticket", "otherTicketId")?;
        let deps = req.state.write_deps(crate::domain::Channel::Graphql);
        let (link, created) = links::add(deps, &actor, id, input.link_type, other).await?;
        let ticket = Ticket(tickets::get(&req.state.db.conn, &actor, id).await?);
        Ok(AddTicketLinkPayload {
            link: TicketLink(link),
            ticket,
            created,
        })
    }

    /// Remove one of a ticket's links.
    async fn remove_ticket_link(
        &self,
        ctx: &Context<'_>,
        input: RemoveTicketLinkInput,
    ) -> Result<RemoveTicketLinkPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let link = ids::decode(&input.link_id, "TicketLink", "linkId")?;
        let deps = req.state.write_deps(crate::domain::Channel::Graphql);
        links::remove(deps, &actor, id, link).await?;
        let ticket = Ticket(tickets::get(&req.state.db.conn, &actor, id).await?);
        Ok(RemoveTicketLinkPayload {
            removed_link_id: input.link_id,
            ticket,
        })
    }

    /// Resolve a parent's open children the viewer may see, one by one, each as a change by hand.
    async fn resolve_children(
        &self,
        ctx: &Context<'_>,
        input: ResolveChildrenInput,
    ) -> Result<ResolveChildrenPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let deps = req.state.write_deps(crate::domain::Channel::Graphql);
        let mut payload = ResolveChildrenPayload {
            resolved: Vec::new(),
            failures: Vec::new(),
        };
        for (child, outcome) in links::resolve_children(deps, &actor, id).await? {
            match outcome {
                Ok(t) => payload.resolved.push(Ticket(t)),
                Err(err) => payload.failures.push(ChildFailure {
                    ticket_id: ids::encode("Ticket", child),
                    code: err.graphql_code().to_string(),
                    message: err.public_message(),
                }),
            }
        }
        Ok(payload)
    }
}
