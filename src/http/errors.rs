//! Errors raised by the shared layers (rate limit, body limit, timeout, unknown path or method), answered in
//! the error shape of the door the request came through (each route knows its own, `http::routes`):
//! GraphQL's `{"errors": [...]}`, the web interface's `{"success": false, "error"}`, or the REST body.
use crate::error::AppError;
use axum::response::{IntoResponse, Response};

/// The API a route belongs to, which decides the shape of its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// `/graphql`.
    GraphQl,
    /// The web interface: its JSON endpoints (`/accounts/login/`, `/tickets/<pk>/comments/…`) and pages.
    Web,
    /// The REST API (with the alternative comment paths `/tickets/<pk>/comment/…`), health and metrics.
    Rest,
}

impl Door {
    /// The door of a path no route matches (every route knows its own, [`crate::http::routes`]): GraphQL
    /// under `/graphql`, the web interface under `/accounts/` and `/tickets/`, REST elsewhere.
    pub fn of_unknown_path(path: &str) -> Door {
        if path == "/graphql" || path.starts_with("/graphql/") {
            Door::GraphQl
        } else if path.starts_with("/accounts/") || path.starts_with("/tickets/") {
            Door::Web
        } else {
            Door::Rest
        }
    }
}

/// `err` as `door` reports errors (with `Retry-After` when rate limited).
pub fn error_response(door: Door, err: AppError) -> Response {
    match door {
        Door::Rest => err.into_response(),
        Door::Web => err.into_web_response(),
        Door::GraphQl => err.into_graphql_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_paths() {
        assert_eq!(Door::of_unknown_path("/graphql/x"), Door::GraphQl);
        assert_eq!(Door::of_unknown_path("/graphqlx"), Door::Rest);
        assert_eq!(Door::of_unknown_path("/accounts/nothing/"), Door::Web);
        assert_eq!(Door::of_unknown_path("/tickets/3/nothing/"), Door::Web);
        assert_eq!(Door::of_unknown_path("/api/nothing/"), Door::Rest);
        assert_eq!(Door::of_unknown_path("/nowhere"), Door::Rest);
    }
}
