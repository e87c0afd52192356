//! The connections the service opens to others: which webhook targets it may call, and the IMAP client
//! it fetches mail with.
pub mod imap;
pub mod targets;
