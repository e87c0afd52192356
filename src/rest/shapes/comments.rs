//! Comments as REST shows them: in lists, after a create and after an edit.
use super::{timestamp, UserRef};
use crate::rest::openapi::values;
use entity::{comment, comment_edit, user};
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

/// A comment in REST lists.
#[derive(Serialize, ToSchema)]
pub struct Comment {
    /// Comment id.
    id: i32,
    /// Ticket id.
    ticket: i32,
    /// Author, or null when the user is gone.
    #[schema(required = true)]
    author: Option<UserRef>,
    /// Sanitised HTML.
    content: String,
    #[schema(schema_with = values::comment_type)]
    comment_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
    /// Edits so far.
    edit_count: i32,
}

/// A comment in REST lists: the author as an object.
pub fn comment_item(c: &comment::Model, author: Option<&user::Model>) -> Comment {
    Comment {
        id: c.id,
        ticket: c.ticket_id,
        author: author.map(UserRef::of),
        content: c.body.clone(),
        comment_type: c.comment_type.to_string(),
        created_at: timestamp(&c.created_at),
        updated_at: timestamp(&c.updated_at),
        edit_count: c.edit_count,
    }
}

/// The 201 body of a REST comment create: the author as a user name.
#[derive(Serialize, ToSchema)]
pub struct CommentCreated {
    /// Comment id.
    id: i32,
    /// Ticket id.
    ticket: i32,
    /// Author's user name.
    author: String,
    /// Sanitised HTML.
    content: String,
    #[schema(schema_with = values::comment_type)]
    comment_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
}

/// The create response: the author as a user name.
pub fn comment_created(c: &comment::Model, author_username: &str) -> CommentCreated {
    CommentCreated {
        id: c.id,
        ticket: c.ticket_id,
        author: author_username.to_string(),
        content: c.body.clone(),
        comment_type: c.comment_type.to_string(),
        created_at: timestamp(&c.created_at),
    }
}

/// One earlier version of a comment.
#[derive(Serialize, ToSchema)]
pub struct CommentEdit {
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    edited_at: String,
    /// Editor's user name.
    #[schema(required = true)]
    edited_by: Option<String>,
    /// The text before this edit.
    previous_content: String,
}

/// The 200 body of a REST comment edit.
#[derive(Serialize, ToSchema)]
pub struct CommentEdited {
    /// Comment id.
    id: i32,
    /// Sanitised HTML.
    content: String,
    #[schema(schema_with = values::comment_type)]
    comment_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
    /// Edits so far.
    edit_count: i32,
    /// Oldest first.
    edit_history: Vec<CommentEdit>,
}

/// The edit response, with the history oldest first; `edited_by` is the editor's user name.
pub fn comment_edited(
    c: &comment::Model,
    history: &[comment_edit::Model],
    people: &HashMap<i32, user::Model>,
) -> CommentEdited {
    let edit_history = history
        .iter()
        .map(|e| CommentEdit {
            edited_at: timestamp(&e.edited_at),
            edited_by: e
                .edited_by_id
                .and_then(|id| people.get(&id))
                .map(|u| u.username.clone()),
            previous_content: e.previous_body.clone(),
        })
        .collect();
    CommentEdited {
        id: c.id,
        content: c.body.clone(),
        comment_type: c.comment_type.to_string(),
        updated_at: timestamp(&c.updated_at),
        edit_count: c.edit_count,
        edit_history,
    }
}
