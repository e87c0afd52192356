//! The policies of each priority, remembered per instance, so that creating or changing a ticket does not
//! read them in a statement of its own every time.
//!
//! As with credentials (`auth::cache`), a change invalidates: saving or deleting a policy forgets them on this
//! instance at once and, on PostgreSQL, on every other instance through `NOTIFY` on its channel. A lost
//! notice is covered by the entries' lifetime. A ticket clocked meanwhile with the policies it
//! was read with is no different from one clocked just before the change: the change's re-clocking
//! (`reclock`) brings open tickets in step.
use super::{for_priority, Policy};
use crate::db::remembered::{Kind, Remembered};
use crate::domain::Priority;
use crate::error::AppResult;
use sea_orm::ConnectionTrait;
use std::sync::Arc;

/// The policies of each priority, as remembered.
pub struct Policies;

impl Kind for Policies {
    type Key = Priority;
    type Value = Vec<Policy>;
    const CHANNEL: &'static str = "deskgraph_sla_policies";
    // One entry per priority.
    const CAPACITY: u64 = 16;
    const CHANGE: &'static str = "SLA policy change";
}

/// Policies by priority, remembered per instance.
pub type KnownPolicies = Remembered<Policies>;

impl Remembered<Policies> {
    /// The policies for `priority`, oldest first: remembered, or read on `db` and remembered.
    pub async fn for_priority(
        &self,
        db: &impl ConnectionTrait,
        priority: Priority,
    ) -> AppResult<Arc<Vec<Policy>>> {
        self.get_or_read(priority, for_priority(db, priority)).await
    }
}
