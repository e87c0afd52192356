//! Failed sign-ins counted per account and per client address across every door, locked out with 429 and
//! `Retry-After` whatever the password, cleared by a success, shared by instances through Redis; and unknown
//! or inactive users taking as long as real ones.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::login::{sign_in, sign_in_via, Door, Outcome};
use crate::support::redis::redis_url;
use deskgraph::config::Config;
use sea_orm::EntityTrait;
use std::time::{Duration, Instant};

const DOORS: [Door; 4] = [Door::Rest, Door::GraphQl, Door::WebJson, Door::WebForm];

fn assert_locked(outcome: Outcome, window: u64) {
    let Outcome::Locked(seconds) = outcome else {
        panic!("not locked out: {outcome:?}");
    };
    // Until the end of the next window at most.
    assert!((1..=2 * window).contains(&seconds), "{seconds}");
}

async fn five_failures_through_any_doors_lock_every_door(app: &TestApp) {
    app.user("owner").await;
    app.user("other").await;
    for _ in 0..3 {
        let wrong = sign_in(app, Door::Rest, "owner", "guess").await;
        assert_eq!(wrong, Outcome::Refused);
    }
    // The name is looked up trimmed, and counted the same.
    for name in [" owner", "owner "] {
        let wrong = sign_in(app, Door::GraphQl, name, "guess").await;
        assert_eq!(wrong, Outcome::Refused);
    }
    // Locked: the right password is refused too, at every door, each in its own shape.
    for door in DOORS {
        assert_locked(sign_in(app, door, "owner", "owner-password").await, 900);
    }
    // Other accounts are not affected.
    for door in DOORS {
        let other = sign_in(app, door, "other", "other-password").await;
        assert_eq!(other, Outcome::SignedIn, "{door:?}");
    }
}
db_test!(five_failures_through_any_doors_lock_every_door);

async fn a_success_clears_the_count(app: &TestApp) {
    app.user("owner").await;
    for door in [Door::Rest, Door::WebForm, Door::GraphQl, Door::WebJson] {
        for _ in 0..4 {
            assert_eq!(sign_in(app, door, "owner", "guess").await, Outcome::Refused);
        }
        let right = sign_in(app, door, "owner", "owner-password").await;
        assert_eq!(right, Outcome::SignedIn, "{door:?}");
    }
    for _ in 0..5 {
        assert_eq!(
            sign_in(app, Door::WebJson, "owner", "guess").await,
            Outcome::Refused
        );
    }
    assert_locked(
        sign_in(app, Door::Rest, "owner", "owner-password").await,
        900,
    );
}
db_test!(a_success_clears_the_count);

async fn unknown_accounts_lock_like_real_ones(app: &TestApp) {
    for _ in 0..5 {
        let wrong = sign_in(app, Door::Rest, "nobody", "guess").await;
        assert_eq!(wrong, Outcome::Refused);
    }
    // The same answer a real account gets: a lock does not tell that the account is missing.
    assert_locked(sign_in(app, Door::Rest, "nobody", "guess").await, 900);
}
db_test!(unknown_accounts_lock_like_real_ones);

fn small_address_limit(config: &mut Config) {
    config.login_throttle.max_failures_per_address = 6;
    config.trusted_proxies = vec!["10.0.0.0/8".parse().unwrap()];
}

async fn an_address_is_locked_after_failures_on_any_accounts(app: &TestApp) {
    for name in ["ann", "bob", "cid", "dee"] {
        app.user(name).await;
    }
    let here = Some("203.0.113.5:4000");
    // Successes from an address are not failures: an office signing in many times is never locked.
    for _ in 0..8 {
        let ok = sign_in_via(app, None, Door::Rest, here, "dee", "dee-password").await;
        assert_eq!(ok, Outcome::SignedIn);
    }
    // Two failures each on three accounts, through three doors: no account is locked, the address is.
    for (name, door) in [
        ("ann", Door::Rest),
        ("bob", Door::GraphQl),
        ("cid", Door::WebJson),
    ] {
        for _ in 0..2 {
            let wrong = sign_in_via(app, None, door, here, name, "guess").await;
            assert_eq!(wrong, Outcome::Refused, "{door:?}");
        }
    }
    for door in DOORS {
        let port_changed = Some("203.0.113.5:4001");
        let locked = sign_in_via(app, None, door, port_changed, "dee", "dee-password").await;
        assert_locked(locked, 900);
    }
    // Another address, and a client behind a trusted proxy, still sign in to the same accounts.
    let elsewhere = sign_in_via(
        app,
        None,
        Door::WebForm,
        Some("203.0.113.6:4000"),
        "ann",
        "ann-password",
    )
    .await;
    assert_eq!(elsewhere, Outcome::SignedIn);
    let mut proxied = crate::support::login::sign_in_request(Door::Rest, "bob", "bob-password");
    proxied
        .headers_mut()
        .insert("x-forwarded-for", "198.51.100.7".parse().unwrap());
    let resp = app.send_from("10.0.0.2:443", proxied).await;
    assert_eq!(resp.status, 200, "{}", resp.text);
}
db_test!(
    an_address_is_locked_after_failures_on_any_accounts,
    small_address_limit
);

fn shared_redis(config: &mut Config) {
    config.redis_url = Some(redis_url());
    // These tests are about sharing, not about a slow Redis: a loaded test machine must not trip the
    // fail-fast deadline (the fault suite covers that).
    config.redis_deadline_ms = 5_000;
    config.redis_key_prefix = format!("deskgraph-test-{}", rand::random::<u64>());
}

async fn two_instances_share_the_count_in_redis(app: &TestApp) {
    app.user("owner").await;
    let (_, second) = app.second_instance().await;
    for _ in 0..3 {
        assert_eq!(
            sign_in(app, Door::Rest, "owner", "guess").await,
            Outcome::Refused
        );
    }
    for _ in 0..2 {
        let wrong = sign_in_via(app, Some(&second), Door::GraphQl, None, "owner", "guess").await;
        assert_eq!(wrong, Outcome::Refused);
    }
    assert_locked(
        sign_in(app, Door::WebForm, "owner", "owner-password").await,
        900,
    );
    let there = sign_in_via(
        app,
        Some(&second),
        Door::Rest,
        None,
        "owner",
        "owner-password",
    );
    assert_locked(there.await, 900);
}
/// Runs on both databases when Redis answers (see `skip_without_redis`).
mod two_instances_share_the_count_in_redis {
    use crate::support::redis::skip_without_redis;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        if skip_without_redis().await {
            return;
        }
        let app = crate::support::helpers::TestApp::sqlite_with(super::shared_redis).await;
        super::two_instances_share_the_count_in_redis(&app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        if skip_without_redis().await {
            return;
        }
        let Some(app) = crate::support::helpers::TestApp::postgres_with(super::shared_redis).await
        else {
            eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
            return;
        };
        super::two_instances_share_the_count_in_redis(&app).await;
        app.cleanup().await;
    }
}

fn no_lockout(config: &mut Config) {
    config.login_throttle.max_failures = 1000;
    config.login_throttle.max_failures_per_address = 1000;
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn timed(app: &TestApp, username: &str) -> Duration {
    let started = Instant::now();
    let outcome = sign_in(app, Door::Rest, username, "a wrong password").await;
    let took = started.elapsed();
    assert_eq!(outcome, Outcome::Refused);
    took
}

async fn unknown_and_inactive_users_take_as_long_as_real_ones(app: &TestApp) {
    use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
    app.user("real").await;
    let gone = app.user("gone").await;
    let mut inactive = entity::user::Entity::find_by_id(gone.id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap()
        .into_active_model();
    inactive.is_active = Set(false);
    inactive.update(&app.state.db.conn).await.unwrap();
    let (mut real, mut unknown, mut deactivated) = (Vec::new(), Vec::new(), Vec::new());
    // Interleaved, so that load from elsewhere on the machine falls on all three alike.
    for round in 0..8 {
        let r = timed(app, "real").await;
        let u = timed(app, "nobody-by-this-name").await;
        let d = timed(app, "gone").await;
        if round > 0 {
            real.push(r);
            unknown.push(u);
            deactivated.push(d);
        }
    }
    let (real, unknown, deactivated) = (median(real), median(unknown), median(deactivated));
    // A password check is most of a sign-in's time: without one, the others would take a small fraction.
    assert!(unknown * 2 >= real, "unknown {unknown:?}, real {real:?}");
    assert!(
        deactivated * 2 >= real,
        "inactive {deactivated:?}, real {real:?}"
    );
}
db_test!(
    unknown_and_inactive_users_take_as_long_as_real_ones,
    no_lockout
);

fn address_limit_of_twenty(config: &mut Config) {
    config.login_throttle.max_failures_per_address = 20;
    config.login_throttle.max_failures = 5;
}

/// 100 sign-ins at once from one address, each for another account: the address's count is taken before
/// any password is checked, so at most its limit are checked (refused as wrong) and the rest are locked out.
async fn a_burst_from_one_address_checks_at_most_its_limit(app: &TestApp) {
    let names: Vec<String> = (0..100).map(|i| format!("burst-{i}")).collect();
    let attempts = names.iter().map(|name| {
        sign_in_via(
            app,
            None,
            Door::Rest,
            Some("198.51.100.20:5000"),
            name,
            "guess",
        )
    });
    let outcomes = futures_util::future::join_all(attempts).await;
    let checked = outcomes.iter().filter(|o| **o == Outcome::Refused).count();
    let locked = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Locked(_)))
        .count();
    assert!(checked <= 20, "{checked} passwords checked: {outcomes:?}");
    assert!(checked >= 1, "{outcomes:?}");
    assert_eq!(checked + locked, 100, "{outcomes:?}");
}
db_test!(
    a_burst_from_one_address_checks_at_most_its_limit,
    address_limit_of_twenty
);

fn shared_redis_twenty(config: &mut Config) {
    shared_redis(config);
    address_limit_of_twenty(config);
}

/// The same burst, counted in Redis.
mod a_burst_from_one_address_checks_at_most_its_limit_in_redis {
    use crate::support::redis::skip_without_redis;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        if skip_without_redis().await {
            return;
        }
        let app = crate::support::helpers::TestApp::sqlite_with(super::shared_redis_twenty).await;
        super::a_burst_from_one_address_checks_at_most_its_limit(&app).await;
    }
}
