//! The `deskgraph` binary: parse the command line and run it.
use clap::Parser;

/// glibc's malloc and free were a large share of the server's CPU under load; mimalloc serves a request's
/// many small, short-lived allocations faster.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = deskgraph::cli::Cli::parse();
    match deskgraph::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            match err.downcast_ref::<deskgraph::cli::Exit>() {
                Some(exit) => std::process::ExitCode::from(exit.code),
                None => std::process::ExitCode::FAILURE,
            }
        }
    }
}
