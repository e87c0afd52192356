//! The active field definitions, remembered per instance, so that a ticket read or write that carries no
//! custom field reads nothing for them: a definition change forgets them everywhere (`db::remembered`).
use super::values::Defined;
use crate::db::listen::Listener;
use crate::db::remembered::Remembered;
use crate::db::Db;
use crate::error::AppResult;
use sea_orm::ConnectionTrait;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that field definitions changed.
pub const CHANNEL: &str = "deskgraph_custom_fields";

/// How long the definitions are remembered at most: what a change that no notice announced waits.
pub const LIFETIME: Duration = Duration::from_secs(10);

/// The active fields. Cheap to clone; clones share the entry.
#[derive(Clone, Debug)]
pub struct KnownFields(Remembered<(), Defined>);

impl Default for KnownFields {
    fn default() -> Self {
        KnownFields(Remembered::new(CHANNEL, 1, LIFETIME))
    }
}

impl KnownFields {
    /// The active fields, by position: remembered, or read on `db` and remembered.
    pub async fn active(&self, db: &impl ConnectionTrait) -> AppResult<Arc<Defined>> {
        self.0.get_or_read((), Defined::load(db)).await
    }

    /// Forget them on this instance.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Definitions changed in `db` (the change committed): forget them here and tell the other instances.
    pub async fn changed(&self, db: &Db) {
        self.0.changed(db, "custom field change").await;
    }

    /// What to do on [`CHANNEL`]: forget them.
    pub fn listener(&self) -> Listener {
        self.0.listener()
    }
}
