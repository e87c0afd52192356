mod a11y;
mod admin;
mod attachments;
mod graphiql;
mod queue;
mod sla;
mod ticket;
