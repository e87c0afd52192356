//! deskgraph: an IT service-management (ticketing) service with a GraphQL API and a REST
//! compatibility layer over one service layer.

pub mod app;
pub mod auth;
pub mod cli;
pub mod config;
pub mod db;
pub mod demo;
pub mod domain;
pub mod error;
pub mod graphql;
pub mod http;
pub mod notify;
pub mod rest;
pub mod sanitize;
pub mod seed;
pub mod service;
pub mod state;
pub mod web;
