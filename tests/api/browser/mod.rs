mod admin;
mod attachments;
mod graphiql;
mod sla;
mod ticket;
