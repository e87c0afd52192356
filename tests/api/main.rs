//! Integration tests: one binary, one file per area. Every storage test runs on SQLite, and on
//! PostgreSQL too when `DESKGRAPH_TEST_POSTGRES_URL` is set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod helpers;

mod asset_links;
mod assets;
mod auth;
mod comments_edit;
mod comments_support;
mod comments_visibility;
mod comments_write;
mod events_admin;
mod events_email;
mod events_support;
mod events_webhooks;
mod graphql_account;
mod graphql_http;
mod graphql_mutations;
mod graphql_support;
mod graphql_tickets;
mod projects;
mod seed;
mod ticket_totals;
mod tickets_list;
mod tickets_rest;
mod tickets_visibility;
mod web_comments;
mod web_session;
mod workflow;
