//! `deskgraph serve`: HTTP with the outbox worker, the attachment collector and the key sweep alongside,
//! until a signal.
use crate::state::AppState;
use anyhow::Context;
use std::net::SocketAddr;

/// How often each instance collects unused attachment bytes (`service::attachments::collect`).
const COLLECT_EVERY: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// How often each instance removes expired idempotency keys (`service::idempotency::sweep`).
const SWEEP_KEYS_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// Serve HTTP, with the outbox worker, the attachment collector and the sweep of expired idempotency keys
/// alongside, until SIGINT or SIGTERM, then finish in-flight requests.
pub async fn serve(state: AppState, bind: SocketAddr) -> anyhow::Result<()> {
    let worker = crate::jobs::worker::spawn(state.delivery_deps());
    let mail = tokio::spawn(crate::service::mailboxes::fetch::run(state.mail_fetcher()));
    let collector = tokio::spawn(crate::service::attachments::collect_forever(
        state.db.clone(),
        state.storage.clone(),
        COLLECT_EVERY,
    ));
    let sweeper = tokio::spawn(crate::service::idempotency::sweep_forever(
        state.db.clone(),
        SWEEP_KEYS_EVERY,
    ));
    let limits = state.config.connections;
    let request_timeout = std::time::Duration::from_secs(state.config.request_timeout_seconds);
    let app = crate::app::router(state)?;
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("cannot listen on {bind}"))?;
    tracing::info!("deskgraph listening on http://{}", listener.local_addr()?);
    crate::http::connections::serve(listener, app, limits, shutdown_signal()).await?;
    // Writes whose clients left moved to tasks of their own, which no connection waits for.
    crate::http::admitted::finish(request_timeout).await;
    // Rows it was delivering stay leased and pending; the next start delivers them.
    worker.abort();
    mail.abort();
    collector.abort();
    sweeper.abort();
    tracing::info!("deskgraph stopped");
    Ok(())
}

/// SIGINT or SIGTERM, whichever comes first.
pub(super) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}
