//! The `deskgraph` binary: parse the command line and run it.
use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = deskgraph::cli::Cli::parse();
    match deskgraph::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
