//! The active triggers, compiled once per instance, so that a ticket write is matched against them in memory
//! and reads nothing for it: saving, reordering or deleting a trigger forgets them everywhere
//! (`db::remembered`).
use super::triggers::{active, Trigger};
use crate::db::listen::Listener;
use crate::db::remembered::Remembered;
use crate::db::Db;
use crate::error::AppResult;
use sea_orm::ConnectionTrait;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that triggers changed.
pub const CHANNEL: &str = "deskgraph_triggers";

/// How long the triggers are remembered at most: what a change that no notice announced waits.
pub const LIFETIME: Duration = Duration::from_secs(10);

/// The active triggers in evaluation order. Cheap to clone; clones share the entry.
#[derive(Clone, Debug)]
pub struct KnownTriggers(Remembered<(), Vec<Trigger>>);

impl Default for KnownTriggers {
    fn default() -> Self {
        KnownTriggers(Remembered::new(CHANNEL, 1, LIFETIME))
    }
}

impl KnownTriggers {
    /// The active triggers, in position order: remembered, or read on `db` and remembered.
    pub async fn active(&self, db: &impl ConnectionTrait) -> AppResult<Arc<Vec<Trigger>>> {
        self.0.get_or_read((), active(db)).await
    }

    /// Forget them on this instance.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Triggers changed in `db` (the change committed): forget them here and tell the other instances.
    pub async fn changed(&self, db: &Db) {
        self.0.changed(db, "trigger change").await;
    }

    /// What to do on [`CHANNEL`]: forget them.
    pub fn listener(&self) -> Listener {
        self.0.listener()
    }
}
