//! The policies of each priority, remembered per instance, so that creating or changing a ticket does not
//! read them in a statement of its own every time.
//!
//! As with credentials (`auth::cache`), a change invalidates: saving or deleting a policy forgets them on this
//! instance at once and, on PostgreSQL, on every other instance through `NOTIFY` on [`CHANNEL`]. A lost
//! notice is covered by the entries' lifetime ([`LIFETIME`]). A ticket clocked meanwhile with the policies it
//! was read with is no different from one clocked just before the change: the change's re-clocking
//! (`reclock`) brings open tickets in step.
use super::{for_priority, Policy};
use crate::db::generation::Generation;
use crate::db::listen::{Heard, Listener};
use crate::db::Db;
use crate::domain::Priority;
use crate::error::AppResult;
use moka::sync::Cache;
use sea_orm::ConnectionTrait;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that policies changed.
pub const CHANNEL: &str = "deskgraph_sla_policies";

/// How long policies are remembered at most: what a change that no notice announced (SQL by hand) waits.
pub const LIFETIME: Duration = Duration::from_secs(10);

/// Policies by priority. Cheap to clone; clones share the entries.
///
/// A reader that read policies while they changed must not store what it read after the change cleared
/// the entries: the generation is taken before the read, and an entry read in an older one is dropped.
#[derive(Clone, Debug)]
pub struct KnownPolicies {
    by_priority: Cache<Priority, Arc<Vec<Policy>>>,
    generation: Generation,
}

impl Default for KnownPolicies {
    fn default() -> Self {
        KnownPolicies {
            // One entry per priority.
            by_priority: Cache::builder()
                .max_capacity(16)
                .time_to_live(LIFETIME)
                .build(),
            generation: Generation::default(),
        }
    }
}

impl KnownPolicies {
    /// The policies for `priority`, oldest first: remembered, or read on `db` and remembered.
    pub async fn for_priority(
        &self,
        db: &impl ConnectionTrait,
        priority: Priority,
    ) -> AppResult<Arc<Vec<Policy>>> {
        if let Some(known) = self.by_priority.get(&priority) {
            return Ok(known);
        }
        let seen = self.generation.now();
        let read = Arc::new(for_priority(db, priority).await?);
        self.generation
            .put(&self.by_priority, seen, priority, read.clone());
        Ok(read)
    }

    /// Forget every policy on this instance.
    pub fn clear(&self) {
        self.generation.advance();
        self.by_priority.invalidate_all();
    }

    /// Policies changed in `db` (the change committed): forget them here and tell the other instances.
    pub async fn changed(&self, db: &Db) {
        self.clear();
        crate::db::listen::notify(db, CHANNEL, "SLA policy change").await;
    }

    /// What to do on [`CHANNEL`]: another instance changed policies, or the connection dropped and such a
    /// change may have been missed. Either way, forget them.
    pub fn listener(&self) -> Listener {
        let known = self.clone();
        Listener {
            channel: CHANNEL,
            on_heard: Arc::new(move |_: Heard<'_>| known.clear()),
        }
    }
}
