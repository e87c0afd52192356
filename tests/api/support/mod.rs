//! What the tests share: the test application and its users (`helpers`), the `World` of users, groups and
//! tickets most tests start from (`world`), and helpers per area. Tests import from here, never from
//! each other.
pub mod attachments;
pub mod browser;
pub mod canary;
pub mod clients;
pub mod events;
pub mod graphql;
pub mod helpers;
pub mod imap;
pub mod login;
pub mod oidc;
pub mod oidc_browser;
pub mod pages;
pub mod redis;
pub mod s3;
pub mod sla;
pub mod subscriptions;
pub mod tickets;
pub mod world;
