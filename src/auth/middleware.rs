//! Resolves the bearer token once per request and hands the result to handlers.
use super::cache::AuthCache;
use super::jwt::JwtKeys;
use super::{authenticate_bearer, session, Actor};
use crate::db::Db;
use crate::error::AppError;
use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// What the Authorization header said.
#[derive(Clone, Debug)]
pub enum Auth {
    /// No Authorization header.
    Anonymous,
    /// A valid token.
    Actor(Arc<Actor>),
    /// A token was sent but is unknown, expired, revoked or malformed.
    Invalid(String),
}

impl Auth {
    /// The actor, if authenticated.
    pub fn actor(&self) -> Option<Arc<Actor>> {
        match self {
            Auth::Actor(actor) => Some(actor.clone()),
            _ => None,
        }
    }

    /// The actor, or the 401 that explains why there is none.
    pub fn require(&self) -> Result<Arc<Actor>, AppError> {
        match self {
            Auth::Actor(actor) => Ok(actor.clone()),
            Auth::Anonymous => Err(AppError::Unauthenticated(
                "authentication credentials were not provided".into(),
            )),
            Auth::Invalid(reason) => Err(AppError::Unauthenticated(reason.clone())),
        }
    }
}

impl Auth {
    /// For doors that also serve a signed-in browser (GraphQL, from GraphiQL): a request without an
    /// Authorization header is its web session's user when it also sends that session's CSRF token in
    /// `X-CSRFToken`, a header a page of another site can neither read nor set. The cookie alone stays
    /// anonymous; a wrong token is refused rather than ignored.
    pub fn or_session(self, session: Option<&WebSession>, headers: &HeaderMap) -> Auth {
        let (Auth::Anonymous, Some(session)) = (&self, session) else {
            return self;
        };
        let Some(sent) = headers.get(session::CSRF_HEADER) else {
            return self;
        };
        let sent = sent.to_str().unwrap_or_default();
        let expected = &session.record.csrf_token;
        if !expected.is_empty() && super::tokens::constant_time_eq(sent, expected) {
            Auth::Actor(session.actor.clone())
        } else {
            Auth::Invalid("CSRF token missing or incorrect".into())
        }
    }
}

/// A live web session sent as the session cookie, on a request without an Authorization header.
///
/// It authenticates nothing by itself: REST and GraphQL still see [`Auth::Anonymous`] (a cookie must not
/// authenticate requests that have no CSRF check), and the web endpoints' extractor still checks the CSRF
/// token. It lets the rate limit count a signed-in browser as its user rather than as its address, and
/// saves the web extractor a lookup.
#[derive(Clone, Debug)]
pub struct WebSession {
    /// The signed-in user.
    pub actor: Arc<Actor>,
    /// The stored session (with its CSRF token).
    pub record: entity::web_session::Model,
    /// The cookie's secret.
    pub secret: String,
}

/// The live session named by the request's session cookie, if any.
async fn web_session(db: &Db, auth_cache: &AuthCache, headers: &HeaderMap) -> Option<WebSession> {
    let secret = session::cookie(headers, session::SESSION_COOKIE)?;
    match session::signed_in(&db.conn, auth_cache, &secret).await {
        Ok(found) => found.map(|(record, actor)| WebSession {
            actor,
            record,
            secret,
        }),
        Err(err) => {
            // The web endpoints look again and report the failure in their own shape.
            tracing::warn!(error = %err, "web session lookup failed");
            None
        }
    }
}

/// The bearer token of a request: `None` without an Authorization header, `Err` when it is not `Bearer <token>`.
pub fn bearer_token(headers: &HeaderMap) -> Option<Result<&str, ()>> {
    let value = headers.get(header::AUTHORIZATION)?;
    let parsed = value
        .to_str()
        .ok()
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty())
        .ok_or(());
    Some(parsed)
}

/// Put an [`Auth`] (and a live [`WebSession`]) into the request's extensions; `Err` is the response to send
/// instead (the credentials could not be checked). Bearer tokens are resolved as [`authenticate_bearer`] does.
pub async fn resolve_auth(
    db: &Db,
    auth_cache: &AuthCache,
    jwt: &JwtKeys,
    req: &mut Request,
) -> Result<(), Response> {
    let auth = match bearer_token(req.headers()) {
        None => {
            if let Some(web) = web_session(db, auth_cache, req.headers()).await {
                req.extensions_mut().insert(web);
            }
            Auth::Anonymous
        }
        Some(Err(())) => {
            Auth::Invalid("malformed Authorization header: expected `Bearer <token>`".into())
        }
        Some(Ok(token)) => match authenticate_bearer(db, auth_cache, jwt, token).await {
            Ok(actor) => Auth::Actor(actor),
            Err(AppError::Unauthenticated(reason)) => Auth::Invalid(reason),
            Err(other) => return Err(other.into_response()),
        },
    };
    req.extensions_mut().insert(auth);
    Ok(())
}

/// Extractor for handlers that require an authenticated actor (401 otherwise).
pub struct CurrentActor(pub Arc<Actor>);

impl<S: Send + Sync> FromRequestParts<S> for CurrentActor {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Auth>()
            .cloned()
            .unwrap_or(Auth::Anonymous)
            .require()
            .map(CurrentActor)
    }
}
