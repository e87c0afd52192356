//! The service's front layer (timeout, credentials, rate limit, body size limit, the viewer's share of the
//! database, security headers) and CORS.
use crate::auth::middleware::resolve_auth;
use crate::config::Config;
use crate::error::{AppError, LoggedCause};
use crate::http::errors::{error_response, Door};
use crate::http::routes::{BodyKind, RouteKind, RouteTable, MAIL_SECRET_HEADER};
use crate::http::{admitted, ratelimit, transport};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::{BodyExt, Limited};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Read the whole body, refusing bodies over the configured size with 413 and the error body, whether or
/// not they declare a length.
async fn limit_body(state: &AppState, kind: RouteKind, req: Request) -> Result<Request, Response> {
    let door = kind.door;
    let max = match kind.body {
        BodyKind::Uploads if is_multipart_post(&req) => {
            return limit_upload(state, req).map_err(|err| error_response(door, err));
        }
        BodyKind::Mail => crate::service::mail_in::MAX_BYTES,
        BodyKind::Plain | BodyKind::Uploads => state.config.max_body_bytes,
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > max as u64) {
        return Err(too_large(door, max));
    }
    let (parts, body) = req.into_parts();
    match Limited::new(body, max).collect().await {
        Ok(collected) => Ok(Request::from_parts(parts, Body::from(collected.to_bytes()))),
        Err(err)
            if err
                .downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(too_large(door, max))
        }
        Err(_) => Err(error_response(
            door,
            AppError::bad_request("could not read the request body"),
        )),
    }
}

/// The gate of the route a mail server hands messages to ([`BodyKind::Mail`]), passed before any of the body
/// is read: closed (404) unless `DESKGRAPH_MAIL_IN_SECRET` is set; 401 unless the request shows that secret.
fn mail_gate(config: &Config, req: &Request) -> Result<(), AppError> {
    let Some(secret) = &config.mail_in_secret else {
        return Err(AppError::NotFound(
            "this service takes no mail over HTTP: DESKGRAPH_MAIL_IN_SECRET is not set".into(),
        ));
    };
    let sent = req
        .headers()
        .get(MAIL_SECRET_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if crate::auth::tokens::constant_time_eq(sent, secret) {
        Ok(())
    } else {
        Err(AppError::Unauthenticated(format!(
            "the {MAIL_SECRET_HEADER} header is missing or wrong"
        )))
    }
}

/// Room beside the file in a multipart upload for its boundaries, part headers and small fields.
const MULTIPART_OVERHEAD: u64 = 64 * 1024;

/// Whether `req` is a multipart POST: on a route that takes files ([`RouteKind::uploads`]), an upload.
fn is_multipart_post(req: &Request) -> bool {
    req.method() == Method::POST
        && req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("multipart/form-data")
            })
}

/// An upload's body is streamed to its handler, not read here: bounded by the upload limit plus room for
/// the multipart framing (the handler counts the file's own bytes against the limit exactly).
fn limit_upload(state: &AppState, req: Request) -> Result<Request, AppError> {
    let max = state
        .config
        .max_upload_bytes
        .saturating_add(MULTIPART_OVERHEAD);
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > max) {
        return Err(crate::service::attachments::too_large(
            state.config.max_upload_bytes,
        ));
    }
    let (parts, body) = req.into_parts();
    let limited = Limited::new(body, usize::try_from(max).unwrap_or(usize::MAX));
    Ok(Request::from_parts(parts, Body::new(limited)))
}

fn too_large(door: Door, max: usize) -> Response {
    error_response(
        door,
        AppError::PayloadTooLarge(format!("request body exceeds {max} bytes")),
    )
}

/// The service's own layer in front of every route, its steps in one (each layer of its own cost a boxed
/// future, a clone of the inner service and a state clone per request: a fifth of a ticket detail):
/// - give up on a request that takes longer than the configured timeout: 503 with the error body of its door
///   (the timeout only stops waiting: a read is dropped, a write runs on to its commit or rollback, see
///   [`admitted`]);
/// - resolve the credentials ([`resolve_auth`]);
/// - count the request against its rate limit (per user once authenticated) and refuse past it, with the
///   `X-RateLimit-*` headers on every counted answer, a 413 included;
/// - read the body within the size limit;
/// - wait for a turn of the viewer's share of the database, and run writes to their end ([`admitted`]);
/// - log the hidden cause of every 500, in one place;
/// - add the headers that make browsers safer to every response, and `Secure` to its cookies when the client
///   came over HTTPS ([`transport`]).
pub async fn front(
    State((state, routes)): State<(AppState, RouteTable)>,
    mut req: Request,
    next: Next,
) -> Response {
    let limit = std::time::Duration::from_secs(state.config.request_timeout_seconds);
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let kind = routes.kind_of(&req);
    // The handlers that answer for the router itself (unknown method) answer in the route's door.
    req.extensions_mut().insert(kind.door);
    let secure_cookies = transport::secure_cookies(&state.config, &req);
    let handled = async {
        let mut req = req;
        if let Err(response) =
            resolve_auth(&state.db, &state.auth_cache, &state.jwt, &mut req).await
        {
            return response;
        }
        // A mail server that shows the secret is paced per sender of mail (`service::mail_in`), not per
        // request; a guess at the secret counts as any anonymous request.
        let gate = (kind.body == BodyKind::Mail).then(|| mail_gate(&state.config, &req));
        let budget = match gate {
            Some(Ok(())) => None,
            _ => ratelimit::budget(&state, &req),
        };
        let decision = ratelimit::check(&state, budget).await;
        let mut response = match (&decision, gate) {
            (Some(decision), _) if !decision.allowed => ratelimit::refused(kind.door, decision),
            (_, Some(Err(err))) => error_response(kind.door, err),
            _ => match limit_body(&state, kind, req).await {
                Ok(req) => admitted::run(&state, kind.door, req, next).await,
                Err(response) => response,
            },
        };
        if let Some(decision) = &decision {
            ratelimit::set_headers(response.headers_mut(), decision);
        }
        response
    };
    let mut response = match tokio::time::timeout(limit, handled).await {
        Ok(response) => response,
        Err(_) => error_response(kind.door, AppError::Timeout),
    };
    if let Some(LoggedCause(cause)) = response.extensions().get::<LoggedCause>() {
        tracing::error!(%method, %path, error = %cause, "internal error");
    }
    security_headers(&mut response);
    transport::harden(&mut response, secure_cookies, state.config.hsts_seconds);
    response
}

/// Headers that make browsers safer.
fn security_headers(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // JSON needs no scripts, styles or frames; HTML pages (GraphiQL's too) set their own policy.
    let is_html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    // A download brings its own, stricter policy.
    if !is_html && !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"),
        );
    }
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
}

/// CORS for the configured front-end origins (none: no CORS headers at all).
pub fn cors(config: &Config) -> Option<CorsLayer> {
    if config.cors_origins.is_empty() {
        return None;
    }
    let origins: Vec<HeaderValue> = config
        .cors_origins
        .iter()
        .filter_map(|o| o.parse().ok())
        .collect();
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins))
            .allow_methods([
                Method::GET,
                Method::POST,
                Method::PATCH,
                Method::PUT,
                Method::DELETE,
                Method::OPTIONS,
            ])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::HeaderName::from_static("x-csrftoken"),
            ])
            .allow_credentials(true)
            .max_age(std::time::Duration::from_secs(600)),
    )
}
