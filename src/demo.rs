//! Demo data for a first run.
use crate::state::AppState;
use std::net::SocketAddr;

/// Seed demo data on an empty database and print how to sign in.
pub async fn seed_and_print(_state: &AppState, bind: SocketAddr) -> anyhow::Result<()> {
    println!("deskgraph demo on http://{bind}");
    Ok(())
}
