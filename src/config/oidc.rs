//! Single sign-on with OpenID Connect (`DESKGRAPH_OIDC_*`): the provider, the client registered there, how
//! the provider's groups map to ours, and whether passwords still open the door.
use anyhow::{bail, Context};

/// The path the provider sends browsers back to, under `DESKGRAPH_PUBLIC_URL`.
pub const CALLBACK_PATH: &str = "/accounts/oidc/callback/";

/// An OpenID Connect provider the web sign-in page offers.
#[derive(Clone, PartialEq, Eq)]
pub struct OidcSettings {
    /// `DESKGRAPH_OIDC_ISSUER_URL`: the issuer, exactly as its ID tokens name it (discovery is read from
    /// `<issuer>/.well-known/openid-configuration`). HTTPS, or HTTP to a loopback address.
    pub issuer_url: String,
    /// `DESKGRAPH_OIDC_CLIENT_ID`: this service's client id at the provider.
    pub client_id: String,
    /// `DESKGRAPH_OIDC_CLIENT_SECRET`: its client secret.
    pub client_secret: String,
    /// `DESKGRAPH_OIDC_PROVIDER_NAME`: shown as "Sign in with <name>" (default `SSO`).
    pub provider_name: String,
    /// `DESKGRAPH_OIDC_SCOPES`: scopes asked for beside `openid` (default `email profile`).
    pub scopes: Vec<String>,
    /// `<DESKGRAPH_PUBLIC_URL>/accounts/oidc/callback/`: where the provider sends the browser back; register
    /// it at the provider.
    pub redirect_url: String,
    /// `DESKGRAPH_OIDC_GROUPS_CLAIM`: the ID-token claim listing the user's groups at the provider (default
    /// `groups`).
    pub groups_claim: String,
    /// `DESKGRAPH_OIDC_GROUP_MAP`: `provider-group:Our group` pairs, comma-separated.
    pub group_map: Vec<(String, String)>,
    /// `DESKGRAPH_OIDC_STAFF_GROUPS`: provider groups whose members are staff (empty: staff is left alone).
    pub staff_groups: Vec<String>,
    /// `DESKGRAPH_OIDC_ADMIN_GROUPS`: provider groups whose members are superusers (empty: left alone).
    pub admin_groups: Vec<String>,
    /// `DESKGRAPH_OIDC_SSO_ONLY`: passwords open no door, but for [`OidcSettings::break_glass_user`].
    pub sso_only: bool,
    /// `DESKGRAPH_OIDC_BREAK_GLASS_USER`: in SSO-only mode, the one user name still signing in with a password.
    pub break_glass_user: Option<String>,
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcSettings")
            .field("issuer_url", &self.issuer_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("provider_name", &self.provider_name)
            .field("group_map", &self.group_map)
            .field("sso_only", &self.sso_only)
            .finish_non_exhaustive()
    }
}

impl OidcSettings {
    /// Whether a password may open a door for `username` (always, unless SSO-only; then only the
    /// break-glass user, whatever the letter case).
    pub fn password_allowed(&self, username: &str) -> bool {
        !self.sso_only
            || self
                .break_glass_user
                .as_deref()
                .is_some_and(|b| b.eq_ignore_ascii_case(username.trim()))
    }
}

/// `provider-group:Our group,...`, split at each entry's last colon (provider groups may be URNs).
fn group_map(raw: Option<String>) -> anyhow::Result<Vec<(String, String)>> {
    super::env::list(raw)
        .into_iter()
        .map(|entry| {
            let Some((theirs, ours)) = entry.rsplit_once(':') else {
                bail!("DESKGRAPH_OIDC_GROUP_MAP: {entry:?} must be provider-group:Our group");
            };
            let (theirs, ours) = (theirs.trim(), ours.trim());
            if theirs.is_empty() || ours.is_empty() || ours.chars().count() > 150 {
                bail!("DESKGRAPH_OIDC_GROUP_MAP: {entry:?} must be provider-group:Our group (1-150 characters)");
            }
            Ok((theirs.to_string(), ours.to_string()))
        })
        .collect()
}

/// Whether `url` may carry ID tokens: HTTPS, or HTTP to this machine.
fn transport_ok(url: &url::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// The OpenID Connect settings from the environment: `None` when `DESKGRAPH_OIDC_ISSUER_URL` is unset (and
/// then no other `DESKGRAPH_OIDC_*` variable may be set either). `public_url` is `DESKGRAPH_PUBLIC_URL`.
pub(super) fn read(
    get: &impl Fn(&str) -> Option<String>,
    sso_only: bool,
    public_url: Option<&str>,
) -> anyhow::Result<Option<OidcSettings>> {
    let Some(issuer_url) = get("DESKGRAPH_OIDC_ISSUER_URL") else {
        for key in [
            "DESKGRAPH_OIDC_CLIENT_ID",
            "DESKGRAPH_OIDC_CLIENT_SECRET",
            "DESKGRAPH_OIDC_GROUP_MAP",
            "DESKGRAPH_OIDC_STAFF_GROUPS",
            "DESKGRAPH_OIDC_ADMIN_GROUPS",
            "DESKGRAPH_OIDC_BREAK_GLASS_USER",
        ] {
            if get(key).is_some() {
                bail!("{key} is set but DESKGRAPH_OIDC_ISSUER_URL is not");
            }
        }
        if sso_only {
            bail!("DESKGRAPH_OIDC_SSO_ONLY needs DESKGRAPH_OIDC_ISSUER_URL: with no provider nobody could sign in");
        }
        return Ok(None);
    };
    let parsed = url::Url::parse(&issuer_url)
        .with_context(|| format!("DESKGRAPH_OIDC_ISSUER_URL is not a URL (got {issuer_url:?})"))?;
    if !transport_ok(&parsed) {
        bail!("DESKGRAPH_OIDC_ISSUER_URL must be https:// (http:// only to a loopback address)");
    }
    let Some(client_id) = get("DESKGRAPH_OIDC_CLIENT_ID") else {
        bail!("DESKGRAPH_OIDC_ISSUER_URL is set but DESKGRAPH_OIDC_CLIENT_ID is not");
    };
    let Some(client_secret) = get("DESKGRAPH_OIDC_CLIENT_SECRET") else {
        bail!("DESKGRAPH_OIDC_ISSUER_URL is set but DESKGRAPH_OIDC_CLIENT_SECRET is not");
    };
    let Some(public_url) = public_url else {
        bail!("DESKGRAPH_OIDC_ISSUER_URL needs DESKGRAPH_PUBLIC_URL: the provider sends browsers back to <DESKGRAPH_PUBLIC_URL>{CALLBACK_PATH}");
    };
    let provider_name = get("DESKGRAPH_OIDC_PROVIDER_NAME").unwrap_or_else(|| "SSO".into());
    if provider_name.chars().count() > 60 || provider_name.chars().any(char::is_control) {
        bail!("DESKGRAPH_OIDC_PROVIDER_NAME must be one line of at most 60 characters");
    }
    let scopes = get("DESKGRAPH_OIDC_SCOPES")
        .unwrap_or_else(|| "email profile".into())
        .split([' ', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "openid")
        .map(str::to_string)
        .collect();
    let break_glass_user = get("DESKGRAPH_OIDC_BREAK_GLASS_USER");
    if break_glass_user.is_some() && !sso_only {
        bail!("DESKGRAPH_OIDC_BREAK_GLASS_USER only matters with DESKGRAPH_OIDC_SSO_ONLY=true");
    }
    Ok(Some(OidcSettings {
        issuer_url,
        client_id,
        client_secret,
        provider_name,
        scopes,
        redirect_url: format!("{public_url}{CALLBACK_PATH}"),
        groups_claim: get("DESKGRAPH_OIDC_GROUPS_CLAIM").unwrap_or_else(|| "groups".into()),
        group_map: group_map(get("DESKGRAPH_OIDC_GROUP_MAP"))?,
        staff_groups: super::env::list(get("DESKGRAPH_OIDC_STAFF_GROUPS")),
        admin_groups: super::env::list(get("DESKGRAPH_OIDC_ADMIN_GROUPS")),
        sso_only,
        break_glass_user,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(pairs: &[(&str, &str)]) -> anyhow::Result<Option<OidcSettings>> {
        let vars: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let get = |key: &str| vars.get(key).cloned();
        let sso_only = get("DESKGRAPH_OIDC_SSO_ONLY").is_some();
        read(&get, sso_only, Some("https://desk.example.com"))
    }

    const BASE: [(&str, &str); 3] = [
        (
            "DESKGRAPH_OIDC_ISSUER_URL",
            "https://login.example.com/realms/it",
        ),
        ("DESKGRAPH_OIDC_CLIENT_ID", "deskgraph"),
        ("DESKGRAPH_OIDC_CLIENT_SECRET", "s3cret"),
    ];

    #[test]
    fn groups_map_at_the_last_colon() -> anyhow::Result<()> {
        let mut vars = BASE.to_vec();
        vars.push((
            "DESKGRAPH_OIDC_GROUP_MAP",
            "idp-net:Network, urn:idp:help : Agents,",
        ));
        let found = settings(&vars)?.map(|s| (s.group_map, s.redirect_url));
        let expected = vec![
            ("idp-net".to_string(), "Network".to_string()),
            ("urn:idp:help".to_string(), "Agents".to_string()),
        ];
        assert_eq!(
            found,
            Some((
                expected,
                "https://desk.example.com/accounts/oidc/callback/".into()
            ))
        );
        let mut bad = BASE.to_vec();
        bad.push(("DESKGRAPH_OIDC_GROUP_MAP", "Network"));
        assert!(settings(&bad).is_err());
        Ok(())
    }

    #[test]
    fn half_configurations_are_refused() {
        let err = |pairs: &[(&str, &str)]| settings(pairs).err().map(|e| e.to_string());
        assert!(err(&BASE[..2]).is_some_and(|e| e.contains("CLIENT_SECRET")));
        assert!(err(&[("DESKGRAPH_OIDC_CLIENT_ID", "x")]).is_some_and(|e| e.contains("ISSUER")));
        assert!(err(&[("DESKGRAPH_OIDC_SSO_ONLY", "true")]).is_some());
        let plain = [
            ("DESKGRAPH_OIDC_ISSUER_URL", "http://login.example.com"),
            BASE[1],
            BASE[2],
        ];
        assert!(err(&plain).is_some_and(|e| e.contains("https")));
        let local = [
            ("DESKGRAPH_OIDC_ISSUER_URL", "http://127.0.0.1:9400"),
            BASE[1],
            BASE[2],
        ];
        assert_eq!(err(&local), None);
    }

    #[test]
    fn sso_only_lets_the_break_glass_user_alone_use_a_password() -> anyhow::Result<()> {
        let mut vars = BASE.to_vec();
        vars.push(("DESKGRAPH_OIDC_SSO_ONLY", "true"));
        vars.push(("DESKGRAPH_OIDC_BREAK_GLASS_USER", "rescue"));
        let only = settings(&vars)?.ok_or_else(|| anyhow::anyhow!("configured"))?;
        assert!(only.password_allowed(" Rescue "));
        assert!(!only.password_allowed("alice"));
        let open = settings(&BASE)?.ok_or_else(|| anyhow::anyhow!("configured"))?;
        assert!(open.password_allowed("alice"));
        Ok(())
    }
}
