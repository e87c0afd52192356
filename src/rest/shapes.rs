//! The legacy JSON shapes of the REST contract, in one place.
use chrono::{DateTime, Utc};

/// ISO 8601 UTC with a trailing Z, as REST clients expect.
pub fn timestamp(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// Like [`timestamp`], null when unset.
pub fn opt_timestamp(at: &Option<DateTime<Utc>>) -> serde_json::Value {
    at.as_ref()
        .map(|t| serde_json::Value::String(timestamp(t)))
        .unwrap_or(serde_json::Value::Null)
}

/// `{id, username, full_name}` of a user, null when the user is gone.
pub fn user_ref(user: Option<&entity::user::Model>) -> serde_json::Value {
    match user {
        Some(u) => {
            serde_json::json!({ "id": u.id, "username": u.username, "full_name": u.full_name })
        }
        None => serde_json::Value::Null,
    }
}

/// A comment in REST lists: the author as an object.
pub fn comment_item(
    c: &entity::comment::Model,
    author: Option<&entity::user::Model>,
) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "ticket": c.ticket_id,
        "author": user_ref(author),
        "content": c.body,
        "comment_type": c.comment_type,
        "created_at": timestamp(&c.created_at),
        "updated_at": timestamp(&c.updated_at),
        "edit_count": c.edit_count,
    })
}

/// The create response: the author as a user name.
pub fn comment_created(c: &entity::comment::Model, author_username: &str) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "ticket": c.ticket_id,
        "author": author_username,
        "content": c.body,
        "comment_type": c.comment_type,
        "created_at": timestamp(&c.created_at),
    })
}

/// The edit response, with the history oldest first; `edited_by` is the editor's user name.
pub fn comment_edited(
    c: &entity::comment::Model,
    history: &[entity::comment_edit::Model],
    people: &std::collections::HashMap<i32, entity::user::Model>,
) -> serde_json::Value {
    let history: Vec<serde_json::Value> = history
        .iter()
        .map(|e| {
            let editor = e
                .edited_by_id
                .and_then(|id| people.get(&id))
                .map(|u| u.username.clone());
            serde_json::json!({
                "edited_at": timestamp(&e.edited_at),
                "edited_by": editor,
                "previous_content": e.previous_body,
            })
        })
        .collect();
    serde_json::json!({
        "id": c.id,
        "content": c.body,
        "comment_type": c.comment_type,
        "updated_at": timestamp(&c.updated_at),
        "edit_count": c.edit_count,
        "edit_history": history,
    })
}
