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

/// The PostgreSQL channel on which instances tell each other that macros changed.
pub const MACROS_CHANNEL: &str = "deskgraph_macros";

/// Who sees which macros: the account, whether it administers, and its groups (sorted). Two actors with the
/// same key see the same list.
type MacroViewer = (i32, bool, Vec<i32>);

/// The macros each team member may use, remembered per instance, so that the queue and the ticket page read
/// no statement for their macro menus: creating, changing or removing a macro forgets them everywhere.
#[derive(Clone, Debug)]
pub struct KnownMacros(Remembered<MacroViewer, Vec<entity::ticket_macro::Model>>);

impl Default for KnownMacros {
    fn default() -> Self {
        KnownMacros(Remembered::new(MACROS_CHANNEL, 10_000, LIFETIME))
    }
}

impl KnownMacros {
    /// The macros `actor` may use, as `read` lists them: remembered, or read and remembered.
    pub(super) async fn of(
        &self,
        actor: &crate::auth::Actor,
        read: impl std::future::Future<Output = AppResult<Vec<entity::ticket_macro::Model>>>,
    ) -> AppResult<Arc<Vec<entity::ticket_macro::Model>>> {
        let mut groups = actor.group_ids();
        groups.sort_unstable();
        self.0
            .get_or_read((actor.id(), actor.is_admin(), groups), read)
            .await
    }

    /// Macros changed in `db` (the change committed): forget them here and tell the other instances.
    pub async fn changed(&self, db: &Db) {
        self.0.changed(db, "macro change").await;
    }

    /// What to do on [`MACROS_CHANNEL`]: forget them.
    pub fn listener(&self) -> Listener {
        self.0.listener()
    }
}
