//! Integration tests: one binary, one file per area. Every storage test runs on SQLite, and on
//! PostgreSQL too when `DESKGRAPH_TEST_POSTGRES_URL` is set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod helpers;

mod auth;
mod graphql_account;
mod graphql_http;
mod graphql_mutations;
mod graphql_support;
mod graphql_tickets;
