//! GraphiQL, served whole by the binary: pinned production builds of React and GraphiQL 4 (vendored under
//! `static/graphiql/`, their licences beside them), a page with the pages' strict policy (nothing inline,
//! nothing from another host), so it works offline and no CDN can run script on this origin.
//!
//! A signed-in browser's queries ride its web session: `/graphql` accepts the session cookie only together
//! with the session's CSRF token in `X-CSRFToken`, which a page of another site can neither read nor send
//! (`graphql::http`, docs/web.md). Anyone else pastes a bearer token into the Headers tab.
use super::html;
use crate::i18n::Lang;
use askama::Template;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The vendored files and their media types, by the name they are served under.
const FILES: [(&str, &str, &str); 6] = [
    (
        "react.production.min.js",
        include_str!("../../../static/graphiql/react.production.min.js"),
        "text/javascript; charset=utf-8",
    ),
    (
        "react-dom.production.min.js",
        include_str!("../../../static/graphiql/react-dom.production.min.js"),
        "text/javascript; charset=utf-8",
    ),
    (
        "graphiql.min.js",
        include_str!("../../../static/graphiql/graphiql.min.js"),
        "text/javascript; charset=utf-8",
    ),
    (
        "graphiql.min.css",
        include_str!("../../../static/graphiql/graphiql.min.css"),
        "text/css; charset=utf-8",
    ),
    (
        "graphiql.js",
        include_str!("../../../static/graphiql/graphiql.js"),
        "text/javascript; charset=utf-8",
    ),
    (
        "graphiql.css",
        include_str!("../../../static/graphiql/graphiql.css"),
        "text/css; charset=utf-8",
    ),
];

/// The file served as `/static/graphiql/<name>`, with its media type.
pub fn file(name: &str) -> Option<(&'static str, &'static str)> {
    FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, body, kind)| (*body, *kind))
}

/// A short hash of the files, appended to their URLs as `?v=`.
fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut digest = Sha256::new();
        for (_, body, _) in FILES {
            digest.update(body);
        }
        hex::encode(&digest.finalize()[..6])
    })
}

#[derive(Template)]
#[template(path = "graphiql.html")]
struct GraphiqlPage {
    /// Display name of the signed-in user, when the request came with a live session.
    user: Option<String>,
    version: &'static str,
    /// The language the page is in.
    lang: Lang,
}

/// The pages' policy, plus fonts GraphiQL's stylesheet embeds as `data:` URLs (fonts run no code).
pub const GRAPHIQL_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; font-src 'self' data:; object-src 'none'; frame-ancestors 'none'";

/// The GraphiQL page for a browser, signed in as `user` (a display name) or not, its words in `lang`.
pub fn page(user: Option<String>, lang: Lang) -> Response {
    let mut response = html(
        StatusCode::OK,
        &GraphiqlPage {
            user,
            version: version(),
            lang,
        },
    );
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(GRAPHIQL_POLICY),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::pages::CONTENT_SECURITY_POLICY;

    #[test]
    fn graphiql_keeps_the_pages_policy_and_adds_only_data_fonts() {
        let pages = CONTENT_SECURITY_POLICY.replace("style-src 'self';", "");
        let graphiql = GRAPHIQL_POLICY
            .replace("style-src 'self';", "")
            .replace(" font-src 'self' data:;", "");
        assert_eq!(pages, graphiql);
    }
}
