//! `TicketLink`: a link between two tickets as one of them sees it.
use crate::graphql::ids;
use crate::graphql::types::Ticket;
use crate::service::links::LinkView;
use async_graphql::{Object, ID};
use entity::values::LinkType;

/// A link to another ticket the viewer may see.
pub struct TicketLink(pub LinkView);

/// A link to another ticket the viewer may see.
#[Object]
impl TicketLink {
    /// Global id.
    async fn id(&self) -> ID {
        ids::encode("TicketLink", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// How this ticket stands to the other.
    #[graphql(name = "type")]
    async fn link_type(&self) -> LinkType {
        self.0.link_type
    }

    /// The ticket at the other end.
    async fn ticket(&self) -> Ticket {
        Ticket(self.0.other.clone())
    }
}
