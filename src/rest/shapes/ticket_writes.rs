//! The bodies that answer a ticket create and update.
use super::timestamp;
use crate::rest::openapi::values;
use entity::ticket;
use serde::Serialize;
use utoipa::ToSchema;

/// The 201 body of a ticket create.
#[derive(Serialize, ToSchema)]
pub struct TicketCreated {
    /// Ticket id.
    id: i32,
    /// `<PREFIX>-<NNN>`.
    ticket_number: String,
    /// Title.
    title: String,
    #[schema(schema_with = values::ticket_status)]
    status: String,
    #[schema(schema_with = values::priority)]
    priority: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
}

/// The 201 body of a ticket create.
pub fn ticket_created(t: &ticket::Model) -> TicketCreated {
    TicketCreated {
        id: t.id,
        ticket_number: t.ticket_number.clone(),
        title: t.title.clone(),
        status: t.status.to_string(),
        priority: t.priority.to_string(),
        created_at: timestamp(&t.created_at),
    }
}

/// The 200 body of a ticket update.
#[derive(Serialize, ToSchema)]
pub struct TicketUpdated {
    /// Ticket id.
    id: i32,
    /// `<PREFIX>-<NNN>`.
    ticket_number: String,
    /// Title.
    title: String,
    #[schema(schema_with = values::ticket_status)]
    status: String,
    #[schema(schema_with = values::priority)]
    priority: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
}

/// The 200 body of a ticket update.
pub fn ticket_updated(t: &ticket::Model) -> TicketUpdated {
    TicketUpdated {
        id: t.id,
        ticket_number: t.ticket_number.clone(),
        title: t.title.clone(),
        status: t.status.to_string(),
        priority: t.priority.to_string(),
        updated_at: timestamp(&t.updated_at),
    }
}
