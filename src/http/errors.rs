//! Errors raised by the shared layers (rate limit, body limit, timeout, unknown path or method), answered in
//! the error shape of the door the request came through: GraphQL's `{"errors": [...]}` on `/graphql`, the web
//! interface's `{"success": false, "error"}` on its endpoints, and the REST body everywhere else.
use crate::error::AppError;
use axum::response::{IntoResponse, Response};

/// The API a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// `/graphql`.
    GraphQl,
    /// The web interface's endpoints and pages (`/accounts/…`, `/tickets/…` outside `/api/`, but for the
    /// alternative REST comment paths).
    Web,
    /// The REST API and everything else (health, metrics, unknown paths).
    Rest,
}

impl Door {
    /// The door of `path`.
    pub fn of(path: &str) -> Door {
        if path == "/graphql" || path.starts_with("/graphql/") {
            Door::GraphQl
        } else if path.starts_with("/accounts/")
            || (path.starts_with("/tickets/") && !is_alternative_comment_path(path))
        {
            Door::Web
        } else {
            Door::Rest
        }
    }
}

/// `/tickets/<pk>/comment/…` (singular): the REST comment paths without the `/api` prefix, which answer with
/// Bearer authentication and the REST bodies like their `/api/` twins.
fn is_alternative_comment_path(path: &str) -> bool {
    let mut parts = path.trim_start_matches('/').split('/');
    parts.next() == Some("tickets") && parts.next().is_some() && parts.next() == Some("comment")
}

/// `err` as the door of `path` reports errors (with `Retry-After` when rate limited).
pub fn error_response(path: &str, err: AppError) -> Response {
    match Door::of(path) {
        Door::Rest => err.into_response(),
        Door::Web => err.into_web_response(),
        Door::GraphQl => err.into_graphql_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doors() {
        assert_eq!(Door::of("/graphql"), Door::GraphQl);
        assert_eq!(Door::of("/graphqlx"), Door::Rest);
        assert_eq!(Door::of("/accounts/login/"), Door::Web);
        assert_eq!(Door::of("/tickets/3/comments/"), Door::Web);
        assert_eq!(Door::of("/tickets/3/"), Door::Web);
        assert_eq!(Door::of("/tickets/comments/4/edit/"), Door::Web);
        assert_eq!(Door::of("/tickets/3/comment/"), Door::Rest);
        assert_eq!(Door::of("/tickets/3/comment/4/"), Door::Rest);
        assert_eq!(Door::of("/api/tickets/"), Door::Rest);
        assert_eq!(Door::of("/nowhere"), Door::Rest);
    }
}
