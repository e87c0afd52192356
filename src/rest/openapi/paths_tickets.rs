//! Operations of `/api/tickets/…` and the comment paths (both spellings). Documentation only: the
//! handlers live in `rest::tickets` and `rest::comments`; standard error responses are added in `errors`.
#![allow(dead_code)]
use super::schemas::*;
use super::schemas_comments::*;

/// List visible tickets, newest first.
#[utoipa::path(get, path = "/api/tickets/", tag = "tickets", operation_id = "listTickets",
    params(
        ("q" = Option<String>, Query, description = "Text in title or description, or a ticket number (`TKT-042`, `42`)."),
        ("status" = Option<String>, Query, description = "Status, or several separated by commas."),
        ("priority" = Option<String>, Query, description = "Priority, or several separated by commas."),
        ("assigned" = Option<String>, Query, description = "`me`, `any`, `none` or a user id."),
        ("page" = Option<u32>, Query, minimum = 1, description = "Page number (default 1)."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Page size (default 20)."),
    ),
    responses((status = 200, description = "One page of tickets", body = TicketPage)),
    security(("bearer" = [])))]
pub fn list_tickets() {}

/// Open a ticket.
#[utoipa::path(post, path = "/api/tickets/", tag = "tickets", operation_id = "createTicket",
    request_body = TicketCreate,
    responses((status = 201, description = "Created", body = TicketCreated)),
    security(("bearer" = [])))]
pub fn create_ticket() {}

/// A visible ticket in detail.
#[utoipa::path(get, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "getTicket",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The ticket", body = TicketDetail)),
    security(("bearer" = [])))]
pub fn get_ticket() {}

/// Change some fields of a ticket.
#[utoipa::path(patch, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "updateTicket",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = TicketPatch,
    responses((status = 200, description = "Updated", body = TicketUpdated)),
    security(("bearer" = [])))]
pub fn update_ticket() {}

/// Change some fields of a ticket (same as PATCH).
#[utoipa::path(put, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "replaceTicket",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = TicketPatch,
    responses((status = 200, description = "Updated", body = TicketUpdated)),
    security(("bearer" = [])))]
pub fn put_ticket() {}

/// Archive a ticket (team members only).
#[utoipa::path(delete, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "archiveTicket",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 204, description = "Archived")),
    security(("bearer" = [])))]
pub fn archive_ticket() {}

/// Declares list/create/edit/delete comment operations under one path prefix.
macro_rules! comment_paths {
    ($prefix:literal, $tag:literal, $suffix:literal, $list:ident, $create:ident, $edit:ident, $delete:ident) => {
        /// Comments of a visible ticket the caller may read, oldest first.
        #[utoipa::path(get, path = concat!($prefix, "/"), tag = $tag, operation_id = concat!("listComments", $suffix),
            params(("id" = i32, Path, description = "Ticket id")),
            responses((status = 200, description = "The comments", body = Vec<Comment>)),
            security(("bearer" = [])))]
        pub fn $list() {}

        /// Comment on a ticket.
        #[utoipa::path(post, path = concat!($prefix, "/"), tag = $tag, operation_id = concat!("createComment", $suffix),
            params(("id" = i32, Path, description = "Ticket id")),
            request_body = CommentCreate,
            responses((status = 201, description = "Created", body = CommentCreated)),
            security(("bearer" = [])))]
        pub fn $create() {}

        /// Edit a comment (its author, staff or admins).
        #[utoipa::path(patch, path = concat!($prefix, "/{comment_id}/"), tag = $tag, operation_id = concat!("editComment", $suffix),
            params(("id" = i32, Path, description = "Ticket id"), ("comment_id" = i32, Path, description = "Comment id")),
            request_body = CommentPatch,
            responses((status = 200, description = "Edited", body = CommentEdited)),
            security(("bearer" = [])))]
        pub fn $edit() {}

        /// Delete a comment (soft; its author, staff or admins).
        #[utoipa::path(delete, path = concat!($prefix, "/{comment_id}/"), tag = $tag, operation_id = concat!("deleteComment", $suffix),
            params(("id" = i32, Path, description = "Ticket id"), ("comment_id" = i32, Path, description = "Comment id")),
            responses((status = 204, description = "Deleted")),
            security(("bearer" = [])))]
        pub fn $delete() {}
    };
}

comment_paths!(
    "/api/tickets/{id}/comments",
    "comments",
    "",
    list_comments,
    create_comment,
    edit_comment,
    delete_comment
);
comment_paths!(
    "/tickets/{id}/comment",
    "comments (alternative paths)",
    "Alt",
    list_comments_alt,
    create_comment_alt,
    edit_comment_alt,
    delete_comment_alt
);
