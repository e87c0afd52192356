//! The web interface: its JSON endpoints (session login/logout and the comment endpoints, with CSRF;
//! every failure there answers `{"success": false, "error": "<message>"}`) and its pages (`pages`).
pub mod comments;
pub mod login_csrf;
pub mod pages;
pub mod session;
pub mod shapes;

use crate::error::AppError;
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::json::JsonObject;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use serde_json::{Map, Value};

/// Every web route.
pub fn router() -> Routes {
    Routes::new(Door::Web)
        .route(
            "/accounts/login/",
            get(pages::login::page).post(session::login),
        )
        .route("/accounts/logout/", post(session::logout))
        // `{id}` is the ticket id here: matching segments must share one name across the router.
        .route("/tickets/{id}/comments/", get(comments::list))
        .route("/tickets/{id}/comments/add/", post(comments::add))
        .route(
            "/tickets/comments/{comment_id}/edit/",
            patch(comments::edit),
        )
        .route(
            "/tickets/comments/{comment_id}/delete/",
            delete(comments::delete).post(pages::thread::delete),
        )
        .merge(pages::router())
}

/// An [`AppError`] in the web interface's failure shape.
#[derive(Debug)]
pub struct WebError(pub AppError);

impl From<AppError> for WebError {
    fn from(err: AppError) -> Self {
        WebError(err)
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        self.0.into_web_response()
    }
}

/// Result of a web handler.
pub type WebResult<T> = Result<T, WebError>;

/// A JSON object body whose rejections come back in the web failure shape.
pub struct WebJson(pub Map<String, Value>);

impl<S: Send + Sync> FromRequest<S> for WebJson {
    type Rejection = WebError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonObject(map) = JsonObject::from_request(req, state).await?;
        Ok(WebJson(map))
    }
}
