//! One PostgreSQL LISTEN connection per instance, shared by everything that hears from other instances
//! (live events, credential changes). Each listener registers the channels it wants and a callback; this
//! module owns the connection, its reconnection and its end.
use sea_orm::sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::Duration;

/// What reaches a listener.
#[derive(Debug, Clone, Copy)]
pub enum Heard<'a> {
    /// A notification on one of its channels, with its payload.
    Notification(&'a str),
    /// The connection dropped and is being made again: notifications may have been missed meanwhile.
    Lost,
}

/// A callback for one channel.
pub type OnHeard = Arc<dyn Fn(Heard<'_>) + Send + Sync>;

/// One channel and what to do with what arrives on it.
#[derive(Clone)]
pub struct Listener {
    /// The channel name.
    pub channel: &'static str,
    /// Called for every notification on `channel`, and once per lost connection.
    pub on_heard: OnHeard,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener")
            .field("channel", &self.channel)
            .finish()
    }
}

/// Keeps the LISTEN connection alive; dropping the last clone ends it.
#[derive(Clone, Debug)]
pub struct Listening {
    _alive: Arc<tokio::sync::oneshot::Sender<()>>,
}

/// Listen on every channel of `listeners` with one connection to `url`. Returns once the connection is
/// listening, so notifications sent from then on arrive.
pub async fn start(url: &str, listeners: Vec<Listener>) -> anyhow::Result<Listening> {
    let mut connection = PgListener::connect(url).await?;
    connection
        .listen_all(listeners.iter().map(|l| l.channel))
        .await?;
    let (alive, ended) = tokio::sync::oneshot::channel();
    tokio::spawn(relay(connection, listeners, ended));
    Ok(Listening {
        _alive: Arc::new(alive),
    })
}

/// Hand each notification to the listeners of its channel until the [`Listening`] handle is dropped.
async fn relay(
    mut connection: PgListener,
    listeners: Vec<Listener>,
    mut ended: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        let received = tokio::select! {
            _ = &mut ended => return,
            received = connection.recv() => received,
        };
        match received {
            Ok(notification) => {
                for listener in listeners
                    .iter()
                    .filter(|l| l.channel == notification.channel())
                {
                    (listener.on_heard)(Heard::Notification(notification.payload()));
                }
            }
            Err(err) => {
                // PgListener reconnects by itself on the next recv; pause so a dead server is not hammered.
                tracing::warn!(error = %err, "LISTEN connection lost");
                for listener in &listeners {
                    (listener.on_heard)(Heard::Lost);
                }
                tokio::select! {
                    _ = &mut ended => return,
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        }
    }
}

/// Tell the other instances' listeners on `channel` that something they remember changed (`payload` may say
/// what, for listeners that can forget just that). Call after the change committed. No-op off PostgreSQL (one process); never fails the caller,
/// since what listeners remember expires by itself too: a lost notice is logged.
pub async fn notify(db: &crate::db::Db, channel: &'static str, payload: &str, what: &str) {
    use sea_orm::{ConnectionTrait, DbBackend, Statement};
    if db.backend() != DbBackend::Postgres {
        return;
    }
    let stmt = Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [channel.into(), payload.into()],
    );
    if let Err(err) = db.conn.execute_raw(stmt).await {
        tracing::warn!(error = %err, "{what} not sent to other instances");
    }
}
