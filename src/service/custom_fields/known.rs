//! The active field definitions, remembered per instance, so that a ticket read or write that carries no
//! custom field reads nothing for them.
//!
//! As with triggers (`automation::KnownTriggers`): a definition change forgets them on this instance at once
//! and, on PostgreSQL, on every other instance through `NOTIFY` on [`CHANNEL`]. A lost notice is covered by
//! the entry's lifetime ([`LIFETIME`]).
use super::values::Defined;
use crate::db::generation::Generation;
use crate::db::listen::{Heard, Listener};
use crate::db::Db;
use crate::error::AppResult;
use moka::sync::Cache;
use sea_orm::ConnectionTrait;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that field definitions changed.
pub const CHANNEL: &str = "deskgraph_custom_fields";

/// How long the definitions are remembered at most: what a change that no notice announced waits.
pub const LIFETIME: Duration = Duration::from_secs(10);

/// The active fields. Cheap to clone; clones share the entry.
#[derive(Clone, Debug)]
pub struct KnownFields {
    active: Cache<(), Arc<Defined>>,
    generation: Generation,
}

impl Default for KnownFields {
    fn default() -> Self {
        KnownFields {
            active: Cache::builder()
                .max_capacity(1)
                .time_to_live(LIFETIME)
                .build(),
            generation: Generation::default(),
        }
    }
}

impl KnownFields {
    /// The active fields, by position: remembered, or read on `db` and remembered.
    pub async fn active(&self, db: &impl ConnectionTrait) -> AppResult<Arc<Defined>> {
        if let Some(known) = self.active.get(&()) {
            return Ok(known);
        }
        let seen = self.generation.now();
        let read = Arc::new(Defined::load(db).await?);
        self.generation.put(&self.active, seen, (), read.clone());
        Ok(read)
    }

    /// Forget them on this instance.
    pub fn clear(&self) {
        self.generation.advance();
        self.active.invalidate_all();
    }

    /// Definitions changed in `db` (the change committed): forget them here and tell the other instances.
    pub async fn changed(&self, db: &Db) {
        self.clear();
        crate::db::listen::notify(db, CHANNEL, "custom field change").await;
    }

    /// What to do on [`CHANNEL`]: forget them.
    pub fn listener(&self) -> Listener {
        let known = self.clone();
        Listener {
            channel: CHANNEL,
            on_heard: Arc::new(move |_: Heard<'_>| known.clear()),
        }
    }
}
