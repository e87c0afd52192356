//! The router: GraphQL, REST, web and operational endpoints behind the shared layers.
use crate::error::AppError;
use crate::http::errors::{error_response, Door};
use crate::http::routes::Routes;
use crate::http::{health, layers, metrics};
use crate::state::AppState;
use axum::extract::Request;
use axum::http::HeaderName;
use axum::middleware;
use axum::response::Response;
use axum::Router;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Build the whole application router; fails when the GraphQL allow-list cannot be read.
pub fn router(state: AppState) -> anyhow::Result<Router> {
    router_with(state, Routes::new(Door::Rest))
}

/// [`router`] with `extra` routes beside the doors' own (a test makes one up to see it inherit its door's
/// behaviour).
pub fn router_with(state: AppState, extra: Routes) -> anyhow::Result<Router> {
    let _ = metrics::handle();
    let (routes, table) = health::router()
        .merge(crate::rest::router())
        .merge(crate::web::router())
        .merge(crate::graphql::router(state.clone())?)
        .merge(extra)
        .into_parts();
    let routes = routes
        .route_layer(middleware::from_fn(metrics::track))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    let mut app = routes.layer(middleware::from_fn_with_state(
        (state.clone(), table),
        layers::front,
    ));
    if let Some(cors) = layers::cors(&state.config) {
        app = app.layer(cors);
    }
    Ok(app
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request| {
            let id = req.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .with_state(state))
}

/// The door the front layer found for the request (`http::routes`).
fn door_of(req: &Request) -> Door {
    req.extensions()
        .get::<Door>()
        .copied()
        .unwrap_or_else(|| Door::of_unknown_path(req.uri().path()))
}

/// An unknown path: a browser asking for a page gets the HTML 404 page with the navigation; API clients,
/// and every path under `/api/` and `/graphql`, get their door's JSON body.
async fn not_found(
    axum::extract::State(state): axum::extract::State<AppState>,
    req: Request,
) -> Response {
    let err = AppError::NotFound("no such path".into());
    let path = req.uri().path();
    let api = path.starts_with("/api/") || path.starts_with("/graphql");
    if !api && crate::web::pages::wants_html(req.headers()) {
        return crate::web::pages::error_page(&state, req.headers(), err).await;
    }
    error_response(door_of(&req), err)
}

/// A known path with a method it does not answer: 405 with the error body and the usual `Allow` header.
async fn method_not_allowed(req: Request) -> Response {
    error_response(
        door_of(&req),
        AppError::MethodNotAllowed("method not allowed for this path".into()),
    )
}
