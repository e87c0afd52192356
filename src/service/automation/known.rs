//! The active triggers, compiled once per instance, so that a ticket write is matched against them in memory
//! and reads nothing for it: saving, reordering or deleting a trigger forgets them everywhere
//! (`db::remembered`). And the macros each team member may use, so that the queue and the ticket page read no
//! statement for their macro menus.
use super::triggers::{active, Trigger};
use crate::db::remembered::{Kind, Remembered};
use crate::error::AppResult;
use sea_orm::ConnectionTrait;
use std::sync::Arc;

/// The active triggers in evaluation order, as remembered.
pub struct Triggers;

impl Kind for Triggers {
    type Key = ();
    type Value = Vec<Trigger>;
    const CHANNEL: &'static str = "deskgraph_triggers";
    const CAPACITY: u64 = 1;
    const CHANGE: &'static str = "trigger change";
}

/// The active triggers, remembered per instance.
pub type KnownTriggers = Remembered<Triggers>;

impl Remembered<Triggers> {
    /// The active triggers, in position order: remembered, or read on `db` and remembered.
    pub async fn active(&self, db: &impl ConnectionTrait) -> AppResult<Arc<Vec<Trigger>>> {
        self.get_or_read((), active(db)).await
    }
}

/// The macros a team member may use, as remembered: keyed by who sees which macros — the account, whether it
/// administers, and its groups (sorted). Two actors with the same key see the same list.
pub struct Macros;

impl Kind for Macros {
    type Key = (i32, bool, Vec<i32>);
    type Value = Vec<entity::ticket_macro::Model>;
    const CHANNEL: &'static str = "deskgraph_macros";
    const CAPACITY: u64 = 10_000;
    const CHANGE: &'static str = "macro change";
}

/// The macros each team member may use, remembered per instance: creating, changing or removing a macro
/// forgets them everywhere.
pub type KnownMacros = Remembered<Macros>;

impl Remembered<Macros> {
    /// The macros `actor` may use, as `read` lists them: remembered, or read and remembered.
    pub(super) async fn of(
        &self,
        actor: &crate::auth::Actor,
        read: impl std::future::Future<Output = AppResult<Vec<entity::ticket_macro::Model>>>,
    ) -> AppResult<Arc<Vec<entity::ticket_macro::Model>>> {
        let mut groups = actor.group_ids();
        groups.sort_unstable();
        self.get_or_read((actor.id(), actor.is_admin(), groups), read)
            .await
    }
}
