//! Single sign-on with OpenID Connect against a real provider (`oidc_support`): signing in, provisioning,
//! groups following the provider, and every refusal a forged or stale answer gets; SSO-only mode at every
//! password door.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::login::{sign_in, Door, Outcome};
use crate::support::oidc::{set_user, settings, sso, sso_expiring, sso_other_keys};
use crate::support::oidc_browser::{browser, with_param, Answer};
use deskgraph::config::Config;
use deskgraph::service::users::{accounts, groups, Admin};
use entity::{audit_event, group, user, user_group, web_session};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;
use std::collections::BTreeSet;

async fn account(app: &TestApp, email: &str) -> Option<user::Model> {
    user::Entity::find()
        .filter(user::Column::Email.eq(email))
        .one(&app.state.db.conn)
        .await
        .unwrap()
}

async fn group_names(app: &TestApp, user_id: i32) -> BTreeSet<String> {
    let ids: Vec<i32> = user_group::Entity::find()
        .filter(user_group::Column::UserId.eq(user_id))
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.group_id)
        .collect();
    group::Entity::find()
        .filter(group::Column::Id.is_in(ids))
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.name)
        .collect()
}

async fn sessions_of(app: &TestApp, user_id: i32) -> u64 {
    web_session::Entity::find()
        .filter(web_session::Column::UserId.eq(user_id))
        .count(&app.state.db.conn)
        .await
        .unwrap()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The sign-in page shown instead of a session, with `status` and `says` in it.
fn refused(answer: &Answer, status: u16, says: &str) {
    assert_eq!(answer.status, status, "{answer:?}");
    assert!(answer.text.contains(says), "{}", answer.text);
    assert!(
        answer.text.contains("Sign in with Mock IdP"),
        "{}",
        answer.text
    );
    assert!(!answer.sets("sessionid"), "{:?}", answer.set_cookies);
    let cleared = answer
        .set_cookies
        .iter()
        .any(|c| c.starts_with("oidc_flow=;"));
    assert!(
        cleared,
        "the flow cookie is spent: {:?}",
        answer.set_cookies
    );
}

async fn signs_in_provisions_and_follows_the_providers_groups(app: &TestApp) {
    let Some(browser) = browser(app) else { return };
    app.admin("root").await;
    let tag = rand::random::<u32>();
    let sub = format!("newbie-{tag}");
    let email = format!("Newbie.{tag}@Example.com");
    let claims = |groups: serde_json::Value| json!({"email": email, "name": "New Bie", "preferred_username": format!("newbie{tag}"), "groups": groups});
    set_user(
        app,
        &sub,
        claims(json!(["idp-net", "idp-staff", "unmapped"])),
    )
    .await;
    let page = browser.get("/accounts/login/?next=/tickets/").await;
    assert!(page
        .text
        .contains(r#"href="/accounts/oidc/login/?next=%2Ftickets%2F""#));

    let answer = browser.sign_in(&sub, "/tickets/?status=open").await;
    assert_eq!(answer.status, 303, "{answer:?}");
    assert_eq!(answer.location.as_deref(), Some("/tickets/?status=open"));
    assert!(
        answer.sets("sessionid") && answer.sets("csrftoken"),
        "{answer:?}"
    );
    assert!(!browser.holds("oidc_flow"), "the flow cookie is spent");
    let queue = browser.get("/tickets/").await;
    assert_eq!(queue.status, 200);
    assert!(queue.text.contains("New Bie"), "{}", queue.text);

    let created = account(app, &email).await.expect("provisioned");
    assert_eq!(created.username, format!("newbie{tag}"));
    assert!(created.is_staff && !created.is_superuser && created.last_login_at.is_some());
    assert_eq!(group_names(app, created.id).await, names(&["Network"]));
    let records = audit_event::Entity::find()
        .filter(audit_event::Column::EntityType.is_in(["user", "group"]))
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let create = records
        .iter()
        .find(|r| r.action == "create" && r.entity_id == created.id && r.entity_type == "user")
        .expect("a create record");
    assert_eq!(create.actor_id, None);
    assert_eq!(create.changes["email"][1], email);
    assert!(records.iter().any(|r| r.action == "sso_sign_in"
        && r.entity_id == created.id
        && r.changes["subject"][1] == sub.as_str()));
    for record in &records {
        let text = record.changes.to_string();
        assert!(
            !text.contains("password") && !text.contains("client-secret"),
            "{text}"
        );
    }

    // An administrator adds a group the mapping does not name; the provider moves the person from
    // idp-net to idp-help and from staff to admin.
    let deps = app.state.people_deps();
    let cli = Admin::command_line();
    let facilities = groups::create(deps, &cli, "Facilities").await.unwrap();
    groups::add_member(deps, &cli, facilities.id, created.id)
        .await
        .unwrap();
    set_user(app, &sub, claims(json!(["idp-help", "idp-admins"]))).await;
    let again = browser.another();
    let answer = again.sign_in(&sub, "/admin/").await;
    assert_eq!(answer.status, 303, "{answer:?}");
    let followed = account(app, &email).await.unwrap();
    assert_eq!(followed.id, created.id, "the same account");
    assert!(!followed.is_staff && followed.is_superuser);
    assert_eq!(
        group_names(app, created.id).await,
        names(&["Agents", "Facilities"])
    );
    assert_eq!(
        again.get("/admin/users/").await.status,
        200,
        "an administrator now"
    );
    let update = audit_event::Entity::find()
        .filter(audit_event::Column::EntityId.eq(created.id))
        .filter(audit_event::Column::Action.eq("update"))
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .expect("an update record");
    for field in ["groups", "is_staff", "is_superuser"] {
        assert!(update.changes[field].is_array(), "{}", update.changes);
    }

    // An existing account is matched by its email, whatever the letter case.
    let carol = app.user("carol").await;
    let carol_sub = format!("carol-{tag}");
    set_user(app, &carol_sub, json!({"email": "CAROL@Example.COM"})).await;
    let answer = browser.another().sign_in(&carol_sub, "/tickets/").await;
    assert_eq!(answer.status, 303, "{answer:?}");
    assert_eq!(sessions_of(app, carol.id).await, 1);
    let carols = user::Entity::find()
        .filter(user::Column::Username.contains("carol"))
        .count(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(carols, 1, "no second account");
}
db_test!(signs_in_provisions_and_follows_the_providers_groups, sso);

async fn refuses_a_tampered_state_a_wrong_nonce_and_a_replay(app: &TestApp) {
    let Some(browser) = browser(app) else { return };
    let tag = rand::random::<u32>();
    let sub = format!("mallory-{tag}");
    let email = format!("mallory-{tag}@example.com");
    set_user(app, &sub, json!({"email": email})).await;

    let authorize = browser.start("/tickets/").await;
    let callback = browser.authorize(&authorize, &sub).await;
    let tampered = with_param(&callback, "state", "forged-state");
    refused(
        &browser.get(&tampered).await,
        400,
        "expired or was not started",
    );
    // The genuine answer comes too late: the attempt was spent.
    refused(
        &browser.get(&callback).await,
        400,
        "expired or was not started",
    );

    // A browser that did not start the sign-in cannot finish it.
    let authorize = browser.start("/tickets/").await;
    let callback = browser.authorize(&authorize, &sub).await;
    refused(
        &browser.another().get(&callback).await,
        400,
        "expired or was not started",
    );

    let authorize = browser.start("/tickets/").await;
    let forged = with_param(&authorize, "nonce", &format!("forged-{tag}"));
    let callback = browser.authorize(&forged, &sub).await;
    refused(&browser.get(&callback).await, 401, "could not be verified");
    assert!(
        account(app, &email).await.is_none(),
        "nobody was provisioned"
    );

    // The refusals were about the forgeries: the same person signs in when nothing is tampered with.
    assert_eq!(browser.sign_in(&sub, "/tickets/").await.status, 303);
}
db_test!(refuses_a_tampered_state_a_wrong_nonce_and_a_replay, sso);

async fn a_deactivated_account_stays_refused(app: &TestApp) {
    let Some(browser) = browser(app) else { return };
    app.admin("root").await;
    let dora = app.user("dora").await;
    accounts::deactivate(app.state.people_deps(), &Admin::command_line(), dora.id)
        .await
        .unwrap();
    let sub = format!("dora-{}", rand::random::<u32>());
    set_user(
        app,
        &sub,
        json!({"email": "dora@example.com", "groups": ["idp-help"]}),
    )
    .await;
    let answer = browser.sign_in(&sub, "/tickets/").await;
    refused(&answer, 403, "This account is deactivated");
    assert_eq!(sessions_of(app, dora.id).await, 0);
    assert!(
        group_names(app, dora.id).await.is_empty(),
        "nothing followed"
    );
}
db_test!(a_deactivated_account_stays_refused, sso);

async fn an_expired_id_token_is_refused(app: &TestApp) {
    let Some(browser) = browser(app) else { return };
    let sub = format!("late-{}", rand::random::<u32>());
    set_user(app, &sub, json!({"email": format!("{sub}@example.com")})).await;
    refused(
        &browser.sign_in(&sub, "/tickets/").await,
        401,
        "could not be verified",
    );
    assert!(account(app, &format!("{sub}@example.com")).await.is_none());
}
db_test!(an_expired_id_token_is_refused, sso_expiring);

async fn a_token_signed_by_an_unknown_key_is_refused(app: &TestApp) {
    let Some(browser) = browser(app) else { return };
    let sub = format!("forger-{}", rand::random::<u32>());
    set_user(app, &sub, json!({"email": format!("{sub}@example.com")})).await;
    refused(
        &browser.sign_in(&sub, "/tickets/").await,
        401,
        "could not be verified",
    );
    assert!(account(app, &format!("{sub}@example.com")).await.is_none());
}
db_test!(a_token_signed_by_an_unknown_key_is_refused, sso_other_keys);

/// SSO-only mode with `rescue` as the break-glass user; no provider is needed to refuse passwords.
fn sso_only(config: &mut Config) {
    let public_url = "http://desk.example.test";
    let mut oidc = settings("http://127.0.0.1:9", public_url);
    oidc.sso_only = true;
    oidc.break_glass_user = Some("rescue".into());
    config.oidc = Some(oidc);
    config.accounts.public_url = Some(public_url.into());
}

async fn sso_only_refuses_passwords_but_the_break_glass_users(app: &TestApp) {
    app.user("alice").await;
    app.admin("rescue").await;
    for door in [Door::Rest, Door::GraphQl, Door::WebJson, Door::WebForm] {
        let alice = sign_in(app, door, "alice", "alice-password").await;
        assert_eq!(alice, Outcome::PasswordsOff, "{door:?}");
        let wrong = sign_in(app, door, "alice", "not-her-password").await;
        assert_eq!(wrong, Outcome::PasswordsOff, "{door:?}");
        let rescue = sign_in(app, door, "rescue", "rescue-password").await;
        assert_eq!(rescue, Outcome::SignedIn, "{door:?}");
    }
    let page = app.get("/accounts/login/", None).await;
    assert!(page.text.contains("Sign in with Mock IdP"), "{}", page.text);
    assert!(page
        .text
        .contains("reserved for the emergency administrator"));
}
db_test!(
    sso_only_refuses_passwords_but_the_break_glass_users,
    sso_only
);

async fn without_a_provider_there_is_no_single_sign_on(app: &TestApp) {
    let page = app.get("/accounts/login/", None).await;
    assert!(
        !page.text.contains("/accounts/oidc/login/"),
        "{}",
        page.text
    );
    for path in [
        "/accounts/oidc/login/?next=/tickets/",
        "/accounts/oidc/callback/?code=x&state=y",
    ] {
        let resp = app.get(path, None).await;
        assert_eq!(resp.status.as_u16(), 404, "{path}");
        assert!(resp.headers.get("set-cookie").is_none(), "{path}");
    }
    assert_eq!(
        sign_in(app, Door::Rest, "nobody", "wrong-password").await,
        Outcome::Refused
    );
}
db_test!(without_a_provider_there_is_no_single_sign_on);
