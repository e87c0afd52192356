//! GraphQL over HTTP: POST and GET (queries only), GraphiQL for browsers, and error codes on every error.
use super::context::{RequestContext, SessionSecret};
use super::limits::Checked;
use crate::auth::middleware::{Auth, WebSession};
use crate::graphql::limits::multipart_cap::FrontCap;
use crate::http::client_ip::ClientAddress;
use crate::state::AppState;
use async_graphql::parser::types::{DocumentOperations, OperationType};
use async_graphql::{Executor, ParseRequestError};
use axum::extract::{Extension, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod answer;
use answer::{accepts, render, request_error};

/// `POST /graphql` with a JSON body, or a GraphQL multipart request (files as `Upload`s).
///
/// Multipart is a content type a cross-site HTML form may send without a preflight, so a multipart request
/// must also carry `apollo-require-preflight` or `x-apollo-operation-name` (as Apollo Server asks), headers a
/// form cannot set.
#[utoipa::path(post, path = "/graphql", tag = "graphql", operation_id = "graphqlPost",
    summary = "Run a GraphQL operation; see `schema.graphql`.",
    request_body = crate::rest::openapi::request_bodies::GraphqlRequest,
    responses(
        (status = 200, description = "GraphQL response (errors inside)", body = serde_json::Value),
        (status = 400, description = "A body that is not a GraphQL request, or a parse/validation failure under `application/graphql-response+json`", body = serde_json::Value),
        (status = 415, description = "A body that is not `application/json`", body = serde_json::Value),
        (status = 429, description = "Over the viewer's hourly GraphQL points (docs/graphql.md): `RATE_LIMITED` with `resetAt` and `retryAfter`, and `Retry-After`", body = serde_json::Value),
    ),
    security((), ("bearer" = [])))]
pub async fn graphql_post(
    Extension(schema): Extension<Checked>,
    Extension(auth): Extension<Auth>,
    session: Option<Extension<WebSession>>,
    State(state): State<AppState>,
    client: ClientAddress,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    let (auth, secret) = session_auth(auth, session.as_deref(), &headers);
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let media = content_type.split(';').next().unwrap_or_default().trim();
    let json_body = media.eq_ignore_ascii_case("application/json");
    let multipart = media.eq_ignore_ascii_case("multipart/form-data");
    if !json_body && !multipart {
        // GraphQL over HTTP: a POST body is JSON and says so (a browser's fetch would send text/plain).
        return request_error(
            &headers,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a POST to /graphql needs Content-Type: application/json (or multipart/form-data for uploads)",
        );
    }
    if multipart && !has_preflight_header(&headers) {
        return request_error(
            &headers,
            StatusCode::BAD_REQUEST,
            "a multipart request to /graphql needs an `apollo-require-preflight` or `x-apollo-operation-name` header",
        );
    }
    let options = async_graphql::http::MultipartOptions::default()
        .max_file_size(usize::try_from(state.config.max_upload_bytes).unwrap_or(usize::MAX))
        .max_num_files(crate::service::attachments::MAX_FILES_PER_POST);
    let tripped = Arc::new(AtomicBool::new(false));
    let mut cap = if multipart {
        FrontCap::new(content_type, state.config.max_body_bytes, tripped.clone())
    } else {
        None
    };
    let body = body.into_data_stream().map(move |piece| {
        let piece = piece.map_err(std::io::Error::other)?;
        match cap.as_mut() {
            Some(cap) => cap.feed(piece),
            None => Ok(piece),
        }
    });
    let reader = futures_util::TryStreamExt::into_async_read(body);
    let request = match async_graphql::http::receive_body(Some(content_type), reader, options).await
    {
        Ok(request) => request,
        Err(_) if tripped.load(Ordering::Relaxed) => {
            return request_error(
                &headers,
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                "the `operations` and `map` parts of a multipart request may take {} bytes at most",
                state.config.max_body_bytes
            ),
            )
        }
        Err(err) => return BadRequest(err).into_response(),
    };
    let mut request = request.data(client);
    if let Some(secret) = secret {
        request = request.data(secret);
    }
    execute(&schema, state, auth, &headers, request).await
}

/// The request's credentials: its bearer token, or its web session when it also sends the session's CSRF
/// token ([`Auth::or_session`]); in that case also the session, so that changing one's password keeps it.
fn session_auth(
    auth: Auth,
    session: Option<&WebSession>,
    headers: &HeaderMap,
) -> (Auth, Option<SessionSecret>) {
    let anonymous = matches!(auth, Auth::Anonymous);
    let auth = auth.or_session(session, headers);
    let secret = match (anonymous, &auth, session) {
        (true, Auth::Actor(_), Some(session)) => Some(SessionSecret(session.secret.clone())),
        _ => None,
    };
    (auth, secret)
}

fn has_preflight_header(headers: &HeaderMap) -> bool {
    ["apollo-require-preflight", "x-apollo-operation-name"]
        .iter()
        .any(|name| headers.get(*name).is_some_and(|v| !v.is_empty()))
}

/// A POST body that is not a GraphQL request, answered in the GraphQL error shape rather than as text.
pub struct BadRequest(ParseRequestError);

impl From<ParseRequestError> for BadRequest {
    fn from(err: ParseRequestError) -> Self {
        BadRequest(err)
    }
}

impl IntoResponse for BadRequest {
    fn into_response(self) -> Response {
        let status = match self.0 {
            ParseRequestError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        };
        request_error(
            &HeaderMap::new(),
            status,
            &format!("invalid GraphQL request: {}", self.0),
        )
    }
}

/// `GET /graphql?query=…`: queries only; a browser without a query gets GraphiQL.
#[utoipa::path(get, path = "/graphql", tag = "graphql", operation_id = "graphqlGet",
    summary = "Run a GraphQL query (or serve GraphiQL to browsers); see `schema.graphql`.",
    params(
        ("query" = Option<String>, Query, description = "The document (queries only)."),
        ("variables" = Option<String>, Query, description = "Variables as JSON."),
        ("operationName" = Option<String>, Query, description = "Operation to run."),
    ),
    responses(
        (status = 200, description = "GraphQL response (errors inside), or GraphiQL for `Accept: text/html`", body = serde_json::Value),
        (status = 400, description = "A request that is not valid GraphQL over HTTP (bad variables, or a parse/validation failure under `application/graphql-response+json`)", body = serde_json::Value),
        (status = 405, description = "A mutation over GET", body = serde_json::Value),
        (status = 429, description = "Over the viewer's hourly GraphQL points (docs/graphql.md): `RATE_LIMITED` with `resetAt` and `retryAfter`, and `Retry-After`", body = serde_json::Value),
    ),
    security((), ("bearer" = [])))]
pub async fn graphql_get(
    Extension(schema): Extension<Checked>,
    Extension(auth): Extension<Auth>,
    session: Option<Extension<WebSession>>,
    State(state): State<AppState>,
    client: ClientAddress,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let raw = raw.unwrap_or_default();
    if raw.is_empty() && accepts(&headers, "text/html") {
        let user = session.as_ref().map(|s| {
            let user = &s.actor.user;
            if user.full_name.trim().is_empty() {
                user.username.clone()
            } else {
                user.full_name.clone()
            }
        });
        let chosen = session.as_ref().and_then(|s| s.actor.user.language.clone());
        let lang = crate::web::pages::page_lang(chosen.as_deref(), &headers);
        return crate::web::pages::graphiql::page(user, lang);
    }
    let (auth, secret) = session_auth(auth, session.as_deref(), &headers);
    let mut request = match async_graphql::http::parse_query_string(&raw) {
        Ok(request) => match secret {
            Some(secret) => request.data(client).data(secret),
            None => request.data(client),
        },
        Err(err) => return request_error(&headers, StatusCode::BAD_REQUEST, &err.to_string()),
    };
    if let Err(error) = schema.parse(&mut request) {
        return render(
            &state,
            &headers,
            async_graphql::Response::from_errors(vec![error]),
        );
    }
    if is_mutation(&mut request) {
        let mut response = request_error(
            &headers,
            StatusCode::METHOD_NOT_ALLOWED,
            "mutations must be sent with POST",
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    run(&schema, state, auth, &headers, request).await
}

/// Parse a POSTed request ([`Checked::parse`]) and run it.
async fn execute(
    schema: &Checked,
    state: AppState,
    auth: Auth,
    headers: &HeaderMap,
    mut request: async_graphql::Request,
) -> Response {
    if let Err(error) = schema.parse(&mut request) {
        return render(
            &state,
            headers,
            async_graphql::Response::from_errors(vec![error]),
        );
    }
    run(schema, state, auth, headers, request).await
}

/// Run a request both handlers have given its parsed document ([`Checked::parse`], once each).
async fn run(
    schema: &Checked,
    state: AppState,
    auth: Auth,
    headers: &HeaderMap,
    request: async_graphql::Request,
) -> Response {
    let mut request = request;
    crate::http::metrics::graphql_operation(operation_name(&mut request).as_deref());
    if !state.config.anonymous_introspection && auth.actor().is_none() {
        // Refused with a clear error before execution (see `limits`).
        request = request.disable_introspection();
    }
    let ctx = RequestContext::new(state.clone(), auth);
    let batches = ctx.batches.clone();
    let response = batches.drive(schema.execute(request.data(ctx))).await;
    render(&state, headers, response)
}

/// The name metrics count an operation under: the requested operation name, or the name of the document's
/// only operation (`None`: unnamed; `metrics::graphql_operation` bounds the label set).
///
/// The document was parsed by [`Checked::parse`] and stays in the request for the executor.
fn operation_name(request: &mut async_graphql::Request) -> Option<String> {
    if let Some(name) = &request.operation_name {
        return Some(name.clone());
    }
    match &request.parsed_query().ok()?.operations {
        DocumentOperations::Single(_) => None,
        DocumentOperations::Multiple(ops) if ops.len() == 1 => {
            ops.keys().next().map(|n| n.to_string())
        }
        DocumentOperations::Multiple(_) => None,
    }
}

/// Whether the operation the request would run is a mutation (unparsable documents are left to the executor).
fn is_mutation(request: &mut async_graphql::Request) -> bool {
    operation_type(request) == Some(OperationType::Mutation)
}

/// The type of the operation the request would run (`None`: the document does not parse, or names no such
/// operation; left to the executor).
pub(crate) fn operation_type(request: &mut async_graphql::Request) -> Option<OperationType> {
    let operation_name = request.operation_name.clone();
    let document = request.parsed_query().ok()?;
    match &document.operations {
        DocumentOperations::Single(op) => Some(op.node.ty),
        DocumentOperations::Multiple(ops) => match operation_name.as_deref() {
            Some(name) => ops.get(name).map(|op| op.node.ty),
            None if ops.len() == 1 => ops.values().next().map(|op| op.node.ty),
            None => None,
        },
    }
}
