//! The active field definitions, remembered per instance, so that a ticket read or write that carries no
//! custom field reads nothing for them: a definition change forgets them everywhere (`db::remembered`).
use super::values::Defined;
use crate::db::remembered::{Kind, Remembered};
use crate::error::AppResult;
use sea_orm::ConnectionTrait;
use std::sync::Arc;

/// The active field definitions, as remembered.
pub struct Fields;

impl Kind for Fields {
    type Key = ();
    type Value = Defined;
    const CHANNEL: &'static str = "deskgraph_custom_fields";
    const CAPACITY: u64 = 1;
    const CHANGE: &'static str = "custom field change";
}

/// The active fields, remembered per instance.
pub type KnownFields = Remembered<Fields>;

impl Remembered<Fields> {
    /// The active fields, by position: remembered, or read on `db` and remembered.
    pub async fn active(&self, db: &impl ConnectionTrait) -> AppResult<Arc<Defined>> {
        self.get_or_read((), Defined::load(db)).await
    }
}
