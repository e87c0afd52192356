//! The client's address: the socket peer, or the `X-Forwarded-For` entry a trusted proxy vouches for.
use axum::extract::ConnectInfo;
use axum::http::Request;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// The address rate limits and logs attribute a request to.
pub fn client_ip<B>(req: &Request<B>, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())?;
    if !is_trusted(peer, trusted) {
        return Some(peer);
    }
    // Walk X-Forwarded-For from the right: the first address not owned by a trusted proxy is the client.
    let forwarded: Vec<IpAddr> = req
        .headers()
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
