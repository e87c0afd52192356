//! The client's address: the socket peer, or the `X-Forwarded-For` entry a trusted proxy vouches for; and
//! whether the client reached the service over TLS, as a trusted proxy's `X-Forwarded-Proto` says.
use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, Request};
use ipnet::IpNet;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

/// The address rate limits and logs attribute a request to.
pub fn client_ip<B>(req: &Request<B>, trusted: &[IpNet]) -> Option<IpAddr> {
    client_ip_of(req.extensions(), req.headers(), trusted)
}

/// Whether the request came over HTTPS to the trusted proxy in front of the service (the service itself
/// speaks plain HTTP). The first `X-Forwarded-Proto` value is the one the client-facing proxy set.
pub fn forwarded_https<B>(req: &Request<B>, trusted: &[IpNet]) -> bool {
    peer(req.extensions()).is_some_and(|peer| is_trusted(peer, trusted))
        && req
            .headers()
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
}

/// Whether the request comes from this host: its client address is loopback, and it was not relayed by a
/// proxy the service does not trust (a local proxy that is not in `DESKGRAPH_TRUSTED_PROXIES` connects
/// from loopback on behalf of remote clients; its `X-Forwarded-For` gives it away).
pub fn is_local<B>(req: &Request<B>, trusted: &[IpNet]) -> bool {
    let Some(peer) = peer(req.extensions()) else {
        return false;
    };
    let relayed =
        req.headers().contains_key("x-forwarded-for") || req.headers().contains_key("forwarded");
    client_ip(req, trusted).is_some_and(|ip| ip.to_canonical().is_loopback())
        && (!relayed || is_trusted(peer, trusted))
}

/// The client's address as a handler argument (`None` for a request that came over no socket).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddress(pub Option<IpAddr>);

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        Ok(ClientAddress(client_ip_of(
            &parts.extensions,
            &parts.headers,
            &state.config.trusted_proxies,
        )))
    }
}

fn peer(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
}

fn client_ip_of(extensions: &Extensions, headers: &HeaderMap, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = peer(extensions)?;
    if !is_trusted(peer, trusted) {
        return Some(peer);
    }
    // Walk X-Forwarded-For from the right: the first address not owned by a trusted proxy is the client.
    let forwarded: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|part| part.trim().parse().ok())
        .collect();
    Some(
        forwarded
            .into_iter()
            .rev()
            .find(|ip| !is_trusted(*ip, trusted))
            .unwrap_or(peer),
    )
}

fn is_trusted(ip: IpAddr, trusted: &[IpNet]) -> bool {
    trusted.iter().any(|net| net.contains(&ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap_or_else(|_| IpNet::default())];
        let with_proto = |peer: &str, proto: &str| {
            let mut req = request(peer, None);
            if let Ok(value) = proto.parse() {
                req.headers_mut().insert("x-forwarded-proto", value);
            }
            req
        };
        assert!(forwarded_https(
            &with_proto("10.0.0.2:1", "https"),
            &trusted
        ));
        assert!(forwarded_https(
            &with_proto("10.0.0.2:1", "HTTPS, http"),
            &trusted
        ));
        assert!(!forwarded_https(
            &with_proto("10.0.0.2:1", "http"),
            &trusted
        ));
        assert!(!forwarded_https(
            &with_proto("203.0.113.9:1", "https"),
            &trusted
        ));
        assert!(!forwarded_https(&request("10.0.0.2:1", None), &trusted));
    }

    fn request(peer: &str, xff: Option<&str>) -> Request<()> {
        let mut builder = Request::builder();
        if let Some(xff) = xff {
            builder = builder.header("x-forwarded-for", xff);
        }
        let mut req = builder.body(()).unwrap_or_default();
        if let Ok(addr) = peer.parse::<SocketAddr>() {
            req.extensions_mut().insert(ConnectInfo(addr));
        }
        req
    }

    #[test]
    fn forwarded_for_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap_or_else(|_| IpNet::default())];
        let direct = request("203.0.113.9:5000", Some("1.2.3.4"));
        assert_eq!(client_ip(&direct, &trusted), "203.0.113.9".parse().ok());
        let proxied = request("10.0.0.2:5000", Some("1.2.3.4, 10.0.0.7"));
        assert_eq!(client_ip(&proxied, &trusted), "1.2.3.4".parse().ok());
        let spoofed = request("10.0.0.2:5000", Some("6.6.6.6, 1.2.3.4"));
        assert_eq!(client_ip(&spoofed, &trusted), "1.2.3.4".parse().ok());
        assert_eq!(client_ip(&request("bad", None), &trusted), None);
    }
}
