//! Rules for the connections the service opens to others: which webhook targets it may call.
pub mod targets;
