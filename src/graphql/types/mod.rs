//! GraphQL object types: thin wrappers over entity models that resolve relations through the loaders.
pub mod account;
pub mod asset;
pub mod attachment;
pub mod audit;
pub mod comment;
pub mod node;
pub mod project;
pub mod sla;
pub mod ticket;
pub mod ticket_event;
pub mod trigger;
pub mod user;
pub mod webhook;

pub use account::ApiToken;
pub use asset::Asset;
pub use attachment::Attachment;
pub use audit::AuditEvent;
pub use comment::{Comment, CommentEdit};
pub use node::Node;
pub use project::Project;
pub use sla::{SlaPolicy, TicketSla};
pub use ticket::Ticket;
pub use ticket_event::{TicketEvent, TicketEventKind};
pub use trigger::Trigger;
pub use user::{Group, User};
pub use webhook::{Webhook, WebhookDelivery};
