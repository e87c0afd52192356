//! Login CSRF on the JSON branch of `POST /accounts/login/`: another site must not be able to sign a
//! visitor's browser in to an account of the attacker's choosing.
//!
//! The form branch uses a double-submit token (see `pages::login`). The JSON branch serves clients that
//! never load the sign-in page (scripts, front-end apps), so it is protected by what browsers say about a
//! request instead, which a page on another site cannot forge:
//! - the body must be declared `application/json`: an HTML form can only send form encodings or
//!   `text/plain` (a `text/plain` body can still be valid JSON), and a script on another site cannot send
//!   `application/json` without a CORS preflight, which the service grants only to `DESKGRAPH_CORS_ORIGINS`;
//! - a browser's own word on where the request comes from must be this site: `Sec-Fetch-Site:
//!   same-origin` when the browser sends that header, else an `Origin` equal to the request's host. An origin
//!   in `DESKGRAPH_CORS_ORIGINS` is trusted like this site. Clients that send neither header (not browsers)
//!   are not asked.
use crate::config::Config;
use axum::http::{header, HeaderMap, Uri};

/// Whether the body is declared as JSON (`application/json`, parameters such as `charset` allowed).
pub fn declares_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// Whether a browser says the request was sent by a page of another site.
pub fn cross_site(headers: &HeaderMap, uri: &Uri, config: &Config) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let origin = text("origin");
    if origin.is_some_and(|o| config.cors_origins.iter().any(|allowed| allowed == o)) {
        return false;
    }
    if let Some(site) = text("sec-fetch-site") {
        return !site.eq_ignore_ascii_case("same-origin");
    }
    let Some(origin) = origin else {
        return false;
    };
    // `null` (a sandboxed page, or a referrer policy that hides the origin) has no host and never matches.
    let origin_host = origin
        .split_once("://")
        .map(|(_, rest)| rest.trim_end_matches('/'));
    let host = text(header::HOST.as_str()).or_else(|| uri.authority().map(|a| a.as_str()));
    match (origin_host, host) {
        (Some(origin_host), Some(host)) => !origin_host.eq_ignore_ascii_case(host),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, axum::http::HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_json_is_json() {
        assert!(declares_json(&headers(&[(
            "content-type",
            "application/json"
        )])));
        assert!(declares_json(&headers(&[(
            "content-type",
            "Application/JSON; charset=utf-8"
        )])));
        for other in [
            "text/plain",
            "application/json-patch+json",
            "multipart/form-data",
        ] {
            assert!(
                !declares_json(&headers(&[("content-type", other)])),
                "{other}"
            );
        }
        assert!(!declares_json(&headers(&[])));
    }

    #[test]
    fn browsers_must_say_this_site() {
        let mut config = Config::for_database("sqlite::memory:");
        let uri = Uri::from_static("/accounts/login/");
        let host = ("host", "desk.example");
        let cross = |pairs: &[(&'static str, &'static str)], config: &Config| {
            cross_site(&headers(pairs), &uri, config)
        };
        assert!(!cross(&[host], &config), "not a browser");
        assert!(!cross(&[host, ("origin", "https://desk.example")], &config));
        assert!(cross(&[host, ("origin", "https://evil.example")], &config));
        assert!(cross(
            &[host, ("origin", "https://desk.example.evil")],
            &config
        ));
        assert!(cross(&[host, ("origin", "null")], &config));
        assert!(
            cross(&[("origin", "https://desk.example")], &config),
            "no host"
        );
        assert!(!cross(&[host, ("sec-fetch-site", "same-origin")], &config));
        for site in ["cross-site", "same-site", "none"] {
            let pairs = [
                host,
                ("origin", "https://desk.example"),
                ("sec-fetch-site", site),
            ];
            assert!(cross(&pairs, &config), "{site}");
        }
        config.cors_origins = vec!["https://app.example".into()];
        let pairs = [
            host,
            ("origin", "https://app.example"),
            ("sec-fetch-site", "cross-site"),
        ];
        assert!(!cross(&pairs, &config));
    }
}
