//! Transport security: `Secure` on every cookie the service sets when the client reached it over HTTPS
//! (`DESKGRAPH_SECURE_COOKIES`), and `Strict-Transport-Security` when configured (`DESKGRAPH_HSTS_SECONDS`).
//! Applied once, in the front layer, to every response: no handler that sets a cookie can forget it.
use super::client_ip::forwarded_https;
use crate::config::{Config, SecureCookies};
use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::response::Response;

/// Whether the cookies set in answer to `req` carry `Secure`.
pub fn secure_cookies(config: &Config, req: &Request) -> bool {
    match config.secure_cookies {
        SecureCookies::Always => true,
        SecureCookies::Never => false,
        SecureCookies::Auto => forwarded_https(req, &config.trusted_proxies),
    }
}

/// Mark the response's cookies `Secure` (when `secure`) and add HSTS (when configured).
pub fn harden(response: &mut Response, secure: bool, hsts_seconds: u64) {
    let headers = response.headers_mut();
    if secure {
        let cookies: Vec<HeaderValue> = headers
            .get_all(header::SET_COOKIE)
            .iter()
            .cloned()
            .collect();
        if !cookies.is_empty() {
            headers.remove(header::SET_COOKIE);
            for cookie in cookies {
                headers.append(header::SET_COOKIE, with_secure(cookie));
            }
        }
    }
    if hsts_seconds > 0 {
        if let Ok(value) = HeaderValue::from_str(&format!("max-age={hsts_seconds}")) {
            headers.insert(header::STRICT_TRANSPORT_SECURITY, value);
        }
    }
}

fn with_secure(cookie: HeaderValue) -> HeaderValue {
    let Ok(text) = cookie.to_str() else {
        return cookie;
    };
    let already = text
        .split(';')
        .any(|attribute| attribute.trim().eq_ignore_ascii_case("secure"));
    if already {
        return cookie;
    }
    HeaderValue::from_str(&format!("{text}; Secure")).unwrap_or(cookie)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_become_secure_once() {
        let mut response = Response::new(axum::body::Body::empty());
        for cookie in ["a=1; Path=/; HttpOnly", "b=2; Secure; Path=/"] {
            response
                .headers_mut()
                .append(header::SET_COOKIE, HeaderValue::from_static(cookie));
        }
        harden(&mut response, true, 31_536_000);
        let set: Vec<&str> = response
            .headers()
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        assert_eq!(
            set,
            ["a=1; Path=/; HttpOnly; Secure", "b=2; Secure; Path=/"]
        );
        assert_eq!(
            response.headers()[header::STRICT_TRANSPORT_SECURITY],
            "max-age=31536000"
        );
        let mut plain = Response::new(axum::body::Body::empty());
        plain
            .headers_mut()
            .append(header::SET_COOKIE, HeaderValue::from_static("a=1"));
        harden(&mut plain, false, 0);
        assert_eq!(plain.headers()[header::SET_COOKIE], "a=1");
        assert!(!plain
            .headers()
            .contains_key(header::STRICT_TRANSPORT_SECURITY));
    }
}
