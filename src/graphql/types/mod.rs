//! GraphQL object types: thin wrappers over entity models that resolve relations through the loaders.
pub mod account;
pub mod asset;
pub mod node;
pub mod project;
pub mod ticket;
pub mod user;

pub use account::ApiToken;
pub use asset::Asset;
pub use node::Node;
pub use project::Project;
pub use ticket::Ticket;
pub use user::{Group, User};
