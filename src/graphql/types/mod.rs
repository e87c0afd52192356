//! GraphQL object types: thin wrappers over entity models that resolve relations through the loaders.
pub mod account;
pub mod node;
pub mod ticket;
pub mod user;

pub use account::{ApiToken, Project};
pub use node::Node;
pub use ticket::Ticket;
pub use user::{Group, User};
