//! Stand-alone migration CLI (`cargo run -p migration -- up`); the service also migrates on start.
use sea_orm_migration::prelude::*;

#[tokio::main]
async fn main() {
    cli::run_cli(migration::Migrator).await;
}
