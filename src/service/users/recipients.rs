//! Who a notification reaches or names: active users' addresses and names, read for the outbox only.
//! An email carries only its own recipient's address and name; a webhook names the assignee by user
//! name, as the webhook contract says.
use super::find_by_id;
use crate::error::AppResult;
use crate::i18n::Lang;
use entity::user;
use sea_orm::ConnectionTrait;
use std::collections::HashMap;

/// An active user as notifications need them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipient {
    /// User id.
    pub id: i32,
    /// Login name (webhook bodies name people by it).
    pub username: String,
    /// The name to greet them by: the full name, or the user name when there is none.
    pub name: String,
    /// Where their email goes, when they have an address.
    pub address: Option<String>,
    /// The language their emails are written in: the one they chose, else English.
    pub lang: Lang,
}

impl From<user::Model> for Recipient {
    fn from(u: user::Model) -> Self {
        let name = if u.full_name.trim().is_empty() {
            u.username.clone()
        } else {
            u.full_name.clone()
        };
        Recipient {
            id: u.id,
            address: u
                .email
                .as_deref()
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_string),
            lang: u
                .language
                .as_deref()
                .and_then(Lang::from_tag)
                .unwrap_or_default(),
            username: u.username,
            name,
        }
    }
}

/// The active users among `ids`, by id (unknown and inactive ids are absent).
pub async fn recipients(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, Recipient>> {
    Ok(find_by_id(db, ids, true)
        .await?
        .into_iter()
        .map(|(id, u)| (id, Recipient::from(u)))
        .collect())
}

/// The users among `ids`, active or not, by id, for a message that names them (a chat message names the
/// requester and the assignee whoever they are; it reaches none of them).
pub async fn named(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, Recipient>> {
    Ok(find_by_id(db, ids, false)
        .await?
        .into_iter()
        .map(|(id, u)| (id, Recipient::from(u)))
        .collect())
}
