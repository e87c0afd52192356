//! deskgraph: an IT service-management (ticketing) service with a GraphQL API and a REST
//! compatibility layer over one service layer.

pub mod app;
pub mod auth;
pub mod cli;
pub mod config;
pub mod counters;
pub mod db;
pub mod demo;
pub mod domain;
pub mod error;
pub mod graphql;
pub mod http;
pub mod i18n;
pub mod jobs;
pub mod net;
pub mod notify;
pub mod rest;
pub mod sanitize;
pub mod seed;
pub mod service;
pub mod state;
pub mod storage;
pub mod web;

/// A map for one request's records keyed by ids: foldhash (fast, seeded per process) rather than SipHash,
/// whose cost was a tenth of a GraphQL list page; the keys are bounded by the page and query-size limits.
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
