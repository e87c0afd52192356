//! Where a webhook may be sent: the one target policy, checked when an endpoint is saved (its URL) and
//! again at delivery on every address its name resolves to, so that a name rebound to an internal
//! address after it was saved reaches nothing.
//!
//! Always refused: unspecified, link-local (169.254.0.0/16 and fe80::/10, where cloud metadata lives),
//! multicast, broadcast and reserved addresses. Refused unless `DESKGRAPH_WEBHOOK_ALLOW_PRIVATE` is set
//! (on-premises receivers): loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7) and shared
//! (100.64/10) addresses. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is judged as its IPv4 address; every
//! other IPv6 form that carries or translates to an IPv4 address (translated, compatible, NAT64, Teredo,
//! 6to4) is refused.
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// How an address is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Reachable on the internet.
    Public,
    /// Inside a private network or this host: allowed only with `DESKGRAPH_WEBHOOK_ALLOW_PRIVATE`.
    Private(&'static str),
    /// Never a webhook target.
    Never(&'static str),
}

fn class_v4(ip: Ipv4Addr) -> Class {
    let [a, b, ..] = ip.octets();
    if a == 0 {
        Class::Never("an unspecified address")
    } else if ip.is_link_local() {
        Class::Never("a link-local address")
    } else if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Class::Never("a multicast or reserved address")
    } else if ip.is_loopback() {
        Class::Private("a loopback address")
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Class::Private("a private address")
    } else {
        Class::Public
    }
}

/// IPv6 prefixes that carry or translate to an IPv4 address, as (first groups, prefix length): the
/// IPv4-translated `::ffff:0:0:0/96`, the deprecated IPv4-compatible `::/96`, NAT64's `64:ff9b::/96` and
/// `64:ff9b:1::/48`, Teredo's `2001::/32` and 6to4's `2002::/16`. Which IPv4 host a gateway turns one into
/// is the gateway's business, so none of them is ever a target.
const TRANSLATED: [([u16; 6], u32); 6] = [
    ([0, 0, 0, 0, 0xffff, 0], 96),
    ([0, 0, 0, 0, 0, 0], 96),
    ([0x64, 0xff9b, 0, 0, 0, 0], 96),
    ([0x64, 0xff9b, 1, 0, 0, 0], 48),
    ([0x2001, 0, 0, 0, 0, 0], 32),
    ([0x2002, 0, 0, 0, 0, 0], 16),
];

fn translated(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    TRANSLATED.iter().any(|(groups, len)| {
        let mut prefix = [0u16; 8];
        prefix[..6].copy_from_slice(groups);
        let prefix = u128::from(Ipv6Addr::from(prefix));
        let mask = u128::MAX << (128 - len);
        bits & mask == prefix & mask
    })
}

fn class_v6(ip: Ipv6Addr) -> Class {
    let segments = ip.segments();
    // ::ffff:a.b.c.d is how a dual-stack socket spells an IPv4 address: judged as that address.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return class_v4(v4);
    }
    if ip.is_unspecified() {
        Class::Never("an unspecified address")
    } else if ip.is_loopback() {
        Class::Private("a loopback address")
    } else if translated(ip) {
        Class::Never("an IPv4-translated address")
    } else if (segments[0] & 0xffc0) == 0xfe80 || (segments[0] & 0xffc0) == 0xfec0 {
        Class::Never("a link-local address")
    } else if ip.is_multicast() {
        Class::Never("a multicast or reserved address")
    } else if (segments[0] & 0xfe00) == 0xfc00 {
        Class::Private("a private address")
    } else {
        Class::Public
    }
}

/// Why `ip` may not receive webhooks, or `None` when it may.
pub fn refusal(ip: IpAddr, allow_private: bool) -> Option<&'static str> {
    let class = match ip {
        IpAddr::V4(v4) => class_v4(v4),
        IpAddr::V6(v6) => class_v6(v6),
    };
    match class {
        Class::Public => None,
        Class::Private(_) if allow_private => None,
        Class::Private(why) | Class::Never(why) => Some(why),
    }
}

/// Check the host of a webhook URL as written: an address literal by the policy, and `localhost` names
/// (always this host). Other names are checked when they are resolved, at delivery.
pub fn check_url(url: &url::Url, allow_private: bool) -> Result<(), String> {
    let ip = match url.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if name == "localhost" || name.ends_with(".localhost") {
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            } else {
                return Ok(());
            }
        }
        None => return Err("the URL has no host".to_string()),
    };
    match refusal(ip, allow_private) {
        None => Ok(()),
        Some(why) => Err(explain(&ip.to_string(), why, allow_private)),
    }
}

fn explain(host: &str, why: &str, allow_private: bool) -> String {
    let hint = if allow_private {
        ""
    } else {
        " (DESKGRAPH_WEBHOOK_ALLOW_PRIVATE allows private and loopback targets)"
    };
    format!("{host} is {why}; webhooks may not be sent there{hint}")
}

/// A delivery refused by the policy (found in the error chain of a failed request).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The webhook client's resolver: resolves a name and hands the connector its addresses only when every
/// one of them passes the policy, so the connection can only go to a checked address.
#[derive(Clone, Copy, Debug)]
pub struct CheckedResolver {
    /// `DESKGRAPH_WEBHOOK_ALLOW_PRIVATE`.
    pub allow_private: bool,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            // One internal address refuses the whole name: a rebinding name mixes both kinds.
            for addr in &addrs {
                if let Some(why) = refusal(addr.ip(), allow_private) {
                    let reason = explain(&format!("{host} ({})", addr.ip()), why, allow_private);
                    return Err(
                        Box::new(Refused(reason)) as Box<dyn std::error::Error + Send + Sync>
                    );
                }
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The policy's refusal inside a failed request's error chain, if that is why it failed.
pub fn refused_in(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(refused) = e.downcast_ref::<Refused>() {
            return Some(refused.0.clone());
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str, allow_private: bool) -> bool {
        refusal(
            ip.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
            allow_private,
        )
        .is_some()
    }

    #[test]
    fn internal_addresses_are_refused_and_public_ones_pass() {
        for ip in [
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::808:808",
            "64:ff9b:1::a00:1",
            "::ffff:0:7f00:1",
            "::ffff:0:808:808",
            "::808:808",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2002:a00:1::",
            "2002:808:808::1",
        ] {
            assert!(refused(ip, false), "{ip} passed");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
        ] {
            assert!(!refused(ip, false), "{ip} refused");
        }
    }

    #[test]
    fn allowing_private_targets_keeps_link_local_and_multicast_refused() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.10",
            "::1",
            "fd00::5",
            "::ffff:10.0.0.1",
        ] {
            assert!(!refused(ip, true), "{ip} refused");
        }
        for ip in [
            "169.254.169.254",
            "fe80::1",
            "0.0.0.0",
            "::",
            "224.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(refused(ip, true), "{ip} passed");
        }
    }

    #[test]
    fn urls_are_judged_by_their_literal_host() {
        let check = |u: &str| url::Url::parse(u).map(|u| check_url(&u, false));
        assert!(matches!(check("http://127.0.0.1:8080/h"), Ok(Err(_))));
        assert!(matches!(check("http://[::ffff:7f00:1]/h"), Ok(Err(_))));
        assert!(matches!(check("http://[::ffff:0:7f00:1]/h"), Ok(Err(_))));
        assert!(matches!(check("http://[64:ff9b::7f00:1]/h"), Ok(Err(_))));
        assert!(matches!(check("http://0x7f000001/h"), Ok(Err(_))));
        assert!(matches!(check("http://2130706433/h"), Ok(Err(_))));
        assert!(matches!(check("http://LOCALHOST./h"), Ok(Err(_))));
        assert!(matches!(check("http://api.localhost/h"), Ok(Err(_))));
        assert!(matches!(check("https://hooks.example.com/h"), Ok(Ok(()))));
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_internal_addresses() {
        let Ok(name) = "localhost".parse::<Name>() else {
            panic!("localhost is a name");
        };
        let refused = CheckedResolver {
            allow_private: false,
        }
        .resolve(name)
        .await;
        let Err(error) = refused else {
            panic!("localhost resolved");
        };
        assert!(refused_in(error.as_ref()).is_some(), "{error}");
        let Ok(name) = "localhost".parse::<Name>() else {
            panic!("localhost is a name");
        };
        let allowed = CheckedResolver {
            allow_private: true,
        }
        .resolve(name)
        .await;
        assert!(allowed.is_ok_and(|mut a| a.next().is_some()));
    }
}
