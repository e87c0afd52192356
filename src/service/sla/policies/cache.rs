//! The policies of each priority, remembered per instance, so that creating or changing a ticket does not
//! read them in a statement of its own every time.
//!
//! As with credentials (`auth::cache`), a change invalidates: saving or deleting a policy forgets them on this
//! instance at once and, on PostgreSQL, on every other instance through `NOTIFY` on [`CHANNEL`]. A lost
//! notice is covered by the entries' lifetime ([`LIFETIME`]). A ticket clocked meanwhile with the policies it
//! was read with is no different from one clocked just before the change: the change's re-clocking
//! (`reclock`) brings open tickets in step.
use super::{for_priority, Policy};
use crate::db::listen::Listener;
use crate::db::remembered::Remembered;
use crate::db::Db;
use crate::domain::Priority;
use crate::error::AppResult;
use sea_orm::ConnectionTrait;
use std::sync::Arc;
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that policies changed.
pub const CHANNEL: &str = "deskgraph_sla_policies";

/// How long policies are remembered at most: what a change that no notice announced (SQL by hand) waits.
pub const LIFETIME: Duration = Duration::from_secs(10);

/// Policies by priority. Cheap to clone; clones share the entries.
#[derive(Clone, Debug)]
pub struct KnownPolicies(Remembered<Priority, Vec<Policy>>);

impl Default for KnownPolicies {
    fn default() -> Self {
        // One entry per priority.
        KnownPolicies(Remembered::new(CHANNEL, 16, LIFETIME))
    }
}

impl KnownPolicies {
    /// The policies for `priority`, oldest first: remembered, or read on `db` and remembered.
    pub async fn for_priority(
        &self,
        db: &impl ConnectionTrait,
        priority: Priority,
    ) -> AppResult<Arc<Vec<Policy>>> {
        self.0
            .get_or_read(priority, for_priority(db, priority))
            .await
    }

    /// Forget every policy on this instance.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Policies changed in `db` (the change committed): forget them here and tell the other instances.
    pub async fn changed(&self, db: &Db) {
        self.0.changed(db, "SLA policy change").await;
    }

    /// What to do on [`CHANNEL`]: another instance changed policies, or the connection dropped and such a
    /// change may have been missed. Either way, forget them.
    pub fn listener(&self) -> Listener {
        self.0.listener()
    }
}
