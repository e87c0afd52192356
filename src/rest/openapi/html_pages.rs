//! The web interface's HTML pages and its static files (documentation only; handlers in `web::pages`).
//! Pages answer HTML; signed-out visitors are redirected (303) to the sign-in page, and form posts need
//! the session's CSRF token in the `csrfmiddlewaretoken` field.
#![allow(dead_code)]

/// Sign-in page (also sets the pre-session `csrftoken` cookie used by the form).
#[utoipa::path(get, path = "/accounts/login/", tag = "pages", operation_id = "pageLogin",
    params(("next" = Option<String>, Query, description = "Local path to return to after signing in")),
    responses((status = 200, description = "HTML form", content_type = "text/html", body = String)))]
pub fn page_login() {}

/// Ticket queue with the REST list's filters and paging.
#[utoipa::path(get, path = "/tickets/", tag = "pages", operation_id = "pageQueue",
    params(
        ("q" = Option<String>, Query, description = "Search"),
        ("status" = Option<String>, Query, description = "Status"),
        ("priority" = Option<String>, Query, description = "Priority"),
        ("assigned" = Option<String>, Query, description = "`me`, `any`, `none` or a user id"),
        ("page" = Option<u64>, Query, description = "Page, from 1"),
    ),
    responses(
        (status = 200, description = "HTML page", content_type = "text/html", body = String),
        (status = 303, description = "Not signed in: redirect to the sign-in page"),
    ),
    security(("session" = [])))]
pub fn page_queue() {}

/// New-ticket form.
#[utoipa::path(get, path = "/tickets/new/", tag = "pages", operation_id = "pageNewTicket",
    responses((status = 200, description = "HTML form", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub fn page_new_ticket() {}

/// Create a ticket from the form; redirects to it, or re-renders the form with field errors.
#[utoipa::path(post, path = "/tickets/new/", tag = "pages", operation_id = "pageCreateTicket",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Created: redirect to the ticket page"),
        (status = 400, description = "The form again, with errors next to the fields", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub fn page_create_ticket() {}

/// Ticket page: fields, allowed status moves and the comment thread.
#[utoipa::path(get, path = "/tickets/{id}/", tag = "pages", operation_id = "pageTicket",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub fn page_ticket() {}

/// Change a ticket's status from its page.
#[utoipa::path(post, path = "/tickets/{id}/status/", tag = "pages", operation_id = "pageChangeStatus",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub fn page_change_status() {}

/// Change a ticket's fields from its page (any of title, description, priority, due date, project, assignee,
/// group; "Assign to me" sends only the assignee). Only fields that differ are changed, under the REST rules.
#[utoipa::path(post, path = "/tickets/{id}/edit/", tag = "pages", operation_id = "pageEditTicket",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "A bad value: error page", content_type = "text/html", body = String),
        (status = 403, description = "A field the user may not change, or no CSRF token: error page", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub fn page_edit_ticket() {}

/// Add a comment from the ticket page without JavaScript.
#[utoipa::path(post, path = "/tickets/{id}/comments/new/", tag = "pages", operation_id = "pageAddComment",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub fn page_add_comment() {}

/// Delete a comment from the ticket page without JavaScript.
#[utoipa::path(post, path = "/tickets/comments/{comment_id}/delete/", tag = "pages", operation_id = "pageDeleteComment",
    params(("comment_id" = i32, Path, description = "Comment id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub fn page_delete_comment() {}

/// Stylesheet and script of the pages, compiled into the binary.
#[utoipa::path(get, path = "/static/{file}", tag = "pages", operation_id = "staticFile",
    params(("file" = String, Path, description = "`app.css` or `app.js`")),
    responses((status = 200, description = "The file (cached for a year)", body = String)))]
pub fn static_file() {}
