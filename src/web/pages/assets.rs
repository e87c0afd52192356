//! The stylesheet and script, compiled into the binary and served with a year-long cache; pages link
//! them with a content hash so a new build is fetched at once.
use axum::extract::Path;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

const APP_CSS: &str = include_str!("../../../static/app.css");
const APP_JS: &str = include_str!("../../../static/app.js");

/// A short hash of both files, appended to their URLs as `?v=`.
pub fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let digest = Sha256::new()
            .chain_update(APP_CSS)
            .chain_update(APP_JS)
            .finalize();
        hex::encode(&digest[..6])
    })
}

/// `GET /static/<file>`: `app.css` or `app.js`.
#[utoipa::path(get, path = "/static/{file}", tag = "pages", operation_id = "staticFile",
    summary = "Stylesheet and script of the pages, compiled into the binary.",
    params(("file" = String, Path, description = "`app.css` or `app.js`")),
    responses((status = 200, description = "The file (cached for a year)", body = String)))]
pub async fn serve(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "app.css" => (APP_CSS, "text/css; charset=utf-8"),
        "app.js" => (APP_JS, "text/javascript; charset=utf-8"),
        _ => return crate::error::AppError::not_found("file").into_web_response(),
    };
    cached(body, kind)
}

/// `GET /static/graphiql/<file>`: the vendored GraphiQL and React builds, and the script that starts them.
#[utoipa::path(get, path = "/static/graphiql/{file}", tag = "pages", operation_id = "graphiqlFile",
    summary = "GraphiQL's scripts and styles, compiled into the binary (no outside host).",
    params(("file" = String, Path, description = "A file of `static/graphiql/`")),
    responses((status = 200, description = "The file (cached for a year)", body = String)))]
pub async fn serve_graphiql(Path(file): Path<String>) -> Response {
    match super::graphiql::file(&file) {
        Some((body, kind)) => cached(body, kind),
        None => crate::error::AppError::not_found("file").into_web_response(),
    }
}

/// `body` as `kind`, cached for a year (its URL carries a content hash).
fn cached(body: &'static str, kind: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    response
}
