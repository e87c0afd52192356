//! Reading bad, partial and default environments.
use super::*;
use std::collections::HashMap;

#[test]
fn bad_values_name_the_variable() {
    let mut vars = HashMap::new();
    vars.insert("DESKGRAPH_LOG_FORMAT".to_string(), "xml".to_string());
    let err = Config::from_map(&vars)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("DESKGRAPH_LOG_FORMAT"), "{err}");
    let mut vars = HashMap::new();
    vars.insert("DESKGRAPH_DB_POOL_SIZE".to_string(), "lots".to_string());
    let err = Config::from_map(&vars)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("DESKGRAPH_DB_POOL_SIZE"), "{err}");
}

#[test]
fn a_webhook_url_needs_a_secret_and_an_allowed_target() {
    let error = |pairs: &[(&str, &str)]| {
        let vars: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_map(&vars).err().map(|e| e.to_string())
    };
    let unsigned = error(&[("DESKGRAPH_WEBHOOK_URL", "https://hooks.example.com/h")]);
    assert!(
        unsigned
            .as_deref()
            .is_some_and(|e| e.contains("DESKGRAPH_WEBHOOK_SECRET")),
        "{unsigned:?}"
    );
    let internal = [
        ("DESKGRAPH_WEBHOOK_URL", "http://169.254.169.254/latest"),
        ("DESKGRAPH_WEBHOOK_SECRET", "s3cret"),
    ];
    assert!(error(&internal).is_some_and(|e| e.contains("link-local")));
    let local = [
        ("DESKGRAPH_WEBHOOK_URL", "http://127.0.0.1:9000/h"),
        ("DESKGRAPH_WEBHOOK_SECRET", "s3cret"),
    ];
    assert!(error(&local).is_some());
    let mut allowed = local.to_vec();
    allowed.push(("DESKGRAPH_WEBHOOK_ALLOW_PRIVATE", "true"));
    assert_eq!(error(&allowed), None);
    let fine = [
        ("DESKGRAPH_WEBHOOK_URL", "https://hooks.example.com/h"),
        ("DESKGRAPH_WEBHOOK_SECRET", "s3cret"),
    ];
    assert_eq!(error(&fine), None);
}

#[test]
fn defaults() -> anyhow::Result<()> {
    let config = Config::from_map(&HashMap::new())?;
    assert_eq!(config.database_url, DEFAULT_DATABASE_URL);
    assert_eq!(config.ticket_prefix, "TKT");
    assert_eq!(config.login_throttle, LoginThrottle::default());
    assert_eq!(config.secure_cookies, SecureCookies::Auto);
    assert_eq!(config.hsts_seconds, 0);
    assert_eq!(config.statement_timeout_ms, 5000);
    assert_eq!(config.viewer, ViewerLimits::default());
    Ok(())
}

#[test]
fn a_viewers_share_is_a_quarter_of_the_pool_unless_set() -> anyhow::Result<()> {
    let share = |pairs: &[(&str, &str)]| -> anyhow::Result<usize> {
        let vars: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let config = Config::from_map(&vars)?;
        Ok(config.viewer.concurrency_for(config.db_pool_size))
    };
    assert_eq!(share(&[])?, 2);
    assert_eq!(share(&[("DESKGRAPH_DB_POOL_SIZE", "40")])?, 10);
    assert_eq!(share(&[("DESKGRAPH_DB_POOL_SIZE", "3")])?, 1);
    assert_eq!(share(&[("DESKGRAPH_VIEWER_CONCURRENCY", "3")])?, 3);
    let bad = Config::from_map(&HashMap::from([(
        "DESKGRAPH_STATEMENT_TIMEOUT_MS".to_string(),
        "0".to_string(),
    )]));
    assert!(bad.is_err_and(|e| e.to_string().contains("DESKGRAPH_STATEMENT_TIMEOUT_MS")));
    Ok(())
}
