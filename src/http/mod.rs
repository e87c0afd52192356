//! Cross-cutting HTTP concerns: client addresses, rate limits, each viewer's share of the database, body
//! limits, metrics, health and security headers (cookies and HSTS included).
pub mod admitted;
pub mod client_ip;
pub mod connections;
pub mod errors;
pub mod health;
pub mod layers;
pub mod metrics;
pub mod ratelimit;
pub mod routes;
pub mod transport;
