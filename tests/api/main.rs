//! Integration tests: one binary, grouped by area in folders, the fixtures they share in `support/`.
//! Every storage test runs on SQLite, and on PostgreSQL too when `DESKGRAPH_TEST_POSTGRES_URL` is set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod assets;
mod attachments;
mod automation;
mod browser;
mod channels;
mod comments;
mod events;
mod fuzz;
mod graphql;
mod limits;
mod model;
mod ops;
mod reports;
mod search;
mod sign_in;
mod sla;
mod subscriptions;
mod tickets;
mod web;
