//! `followTicket` and `unfollowTicket`.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{Ticket, User};
use crate::service::followers::{self, Whom};
use crate::service::tickets;
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};

/// Follower mutations.
#[derive(Default)]
pub struct FollowerMutation;

/// Whom to add as a follower: the viewer, or someone by id or email.
#[derive(InputObject)]
pub struct FollowTicketInput {
    /// The ticket.
    ticket_id: ID,
    /// Someone else (those who work on the ticket, and its requester, add others).
    user_id: Option<ID>,
    /// Someone else by an existing account's email address.
    email: Option<String>,
}

/// The ticket and its new follower.
#[derive(SimpleObject)]
pub struct FollowTicketPayload {
    /// The ticket.
    ticket: Ticket,
    /// The follower.
    follower: User,
    /// False when they followed it already.
    created: bool,
}

/// Whom to remove: the viewer, or someone by id.
#[derive(InputObject)]
pub struct UnfollowTicketInput {
    /// The ticket.
    ticket_id: ID,
    /// Someone else.
    user_id: Option<ID>,
}

/// The ticket.
#[derive(SimpleObject)]
pub struct UnfollowTicketPayload {
    /// The ticket.
    ticket: Ticket,
    /// False when they did not follow it.
    removed: bool,
}

#[Object]
impl FollowerMutation {
    /// Follow a ticket, or add someone to its followers.
    async fn follow_ticket(
        &self,
        ctx: &Context<'_>,
        input: FollowTicketInput,
    ) -> Result<FollowTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let whom = match (input.user_id, input.email) {
            (Some(_), Some(_)) => {
                return Err(crate::error::AppError::bad_request(
                    "give a userId or an email, not both",
                )
                .into())
            }
            (Some(u), None) => Whom::User(ids::decode(&u, "User", "userId")?),
            (None, Some(e)) => Whom::Email(e),
            (None, None) => Whom::Me,
        };
        let (u, created) = followers::follow(&req.state.db, &actor, id, whom).await?;
        Ok(FollowTicketPayload {
            ticket: Ticket(tickets::get(&req.state.db.conn, &actor, id).await?),
            follower: User(u),
            created,
        })
    }

    /// Stop following a ticket, or remove someone from its followers.
    async fn unfollow_ticket(
        &self,
        ctx: &Context<'_>,
        input: UnfollowTicketInput,
    ) -> Result<UnfollowTicketPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let user = ids::decode_opt(input.user_id.as_ref(), "User", "userId")?;
        let removed = followers::unfollow(&req.state.db, &actor, id, user).await?;
        Ok(UnfollowTicketPayload {
            ticket: Ticket(tickets::get(&req.state.db.conn, &actor, id).await?),
            removed,
        })
    }
}
