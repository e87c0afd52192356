//! Accounts and groups through GraphQL, REST and the command line's service calls: who may manage them,
//! the same answer for the same mistake at every door, and off-boarding that ends every credential at once.
use crate::db_test;
use crate::support::graphql::gid;
use crate::support::helpers::{assert_error, TestApp, TestUser};
use crate::support::login::{sign_in, Door, Outcome};
use crate::support::subscriptions::{serve, wait_for_subscribers, WsClient};
use crate::support::world::login;
use axum::http::StatusCode;
use entity::audit_event;
use sea_orm::EntityTrait;
use serde_json::{json, Value};

const CREATE_USER: &str =
    "mutation($input: CreateUserInput!) { createUser(input: $input) { user { id username email isActive } } }";
const DEACTIVATE: &str = "mutation($input: DeactivateUserInput!) { deactivateUser(input: $input) { user { isActive } openAssignmentCount } }";
const REACTIVATE: &str =
    "mutation($input: ReactivateUserInput!) { reactivateUser(input: $input) { user { isActive } } }";
const CREATE_GROUP: &str =
    "mutation($input: CreateGroupInput!) { createGroup(input: $input) { group { id name } } }";
const LOGIN: &str =
    "mutation($u: String!, $p: String!) { login(input: {username: $u, password: $p}) { token } }";

fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("")
}

/// The people of these tests: an administrator, a staff member, an agent and a requester.
struct Desk {
    admin: TestUser,
    staff: TestUser,
    agent: TestUser,
    requester: TestUser,
}

async fn desk(app: &TestApp) -> Desk {
    Desk {
        admin: app.admin("root").await,
        staff: app.user_with("stafford", &[], true, false).await,
        agent: app.agent("agnes").await,
        requester: app.user("rita").await,
    }
}

async fn accounts_are_created_once_whatever_the_letter_case(app: &TestApp) {
    let d = desk(app).await;
    let ops = app
        .graphql(
            Some(&d.admin.token),
            CREATE_GROUP,
            json!({"input": {"name": "Ops"}}),
        )
        .await;
    let ops_id = ops["data"]["createGroup"]["group"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let input = json!({"input": {"username": "Dana", "password": "a-long-password", "fullName": "Dana Scully",
        "email": "Dana@Example.com", "groupIds": [ops_id]}});
    let made = app.graphql(Some(&d.admin.token), CREATE_USER, input).await;
    assert_eq!(
        made["data"]["createUser"]["user"]["username"], "Dana",
        "{made}"
    );
    assert_eq!(made["data"]["createUser"]["user"]["isActive"], true);

    // The same name or email in another case: 409 naming the field, through both doors.
    let rest = app
        .post(
            "/api/users/",
            Some(&d.admin.token),
            json!({"username": "dana", "password": "another-password"}),
        )
        .await;
    assert_error(&rest, StatusCode::CONFLICT, "conflict");
    assert!(rest.json["details"]["username"].is_array(), "{}", rest.text);
    let rest = app
        .post(
            "/api/users/",
            Some(&d.admin.token),
            json!({"username": "fox", "password": "another-password", "email": "DANA@example.COM"}),
        )
        .await;
    assert_error(&rest, StatusCode::CONFLICT, "conflict");
    assert!(rest.json["details"]["email"].is_array(), "{}", rest.text);
    let gql = app
        .graphql(
            Some(&d.admin.token),
            CREATE_USER,
            json!({"input": {"username": "DANA", "password": "another-password"}}),
        )
        .await;
    assert_eq!(code(&gql), "BAD_USER_INPUT", "{gql}");
    assert!(
        gql["errors"][0]["extensions"]["fields"]["username"].is_array(),
        "{gql}"
    );

    // Weak passwords, bad emails and unknown groups are 400s naming the field.
    for (body, field) in [
        (json!({"username": "fox", "password": "short"}), "password"),
        (
            json!({"username": "mulder", "password": "MULDER"}),
            "password",
        ),
        (
            json!({"username": "fox", "password": "long-enough-1", "email": "not-an-email"}),
            "email",
        ),
        (
            json!({"username": "fox", "password": "long-enough-1", "groups": [99999]}),
            "groups",
        ),
        (json!({"password": "long-enough-1"}), "username"),
        (
            json!({"username": "fox", "password": "long-enough-1", "is_staff": "yes"}),
            "is_staff",
        ),
    ] {
        let resp = app
            .post("/api/users/", Some(&d.admin.token), body.clone())
            .await;
        assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
        assert!(
            resp.json["details"][field].is_array(),
            "{body}: {}",
            resp.text
        );
    }

    // The new account signs in, and lists and filters find it; nobody else may list accounts.
    assert_eq!(
        sign_in(app, Door::Rest, "Dana", "a-long-password").await,
        Outcome::SignedIn
    );
    let listed = app
        .get(
            "/api/users/?q=scully&role=requester&active=true",
            Some(&d.admin.token),
        )
        .await;
    assert_eq!(listed.json["count"], 1, "{}", listed.text);
    assert_eq!(listed.json["results"][0]["groups"][0]["name"], "Ops");
    assert!(listed.json["results"][0].get("password_hash").is_none());
    for who in [&d.staff, &d.agent, &d.requester] {
        let refused = app.get("/api/users/", Some(&who.token)).await;
        assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    }
    // Audit records name the fields, never a password or its hash.
    let audit = audit_event::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let text =
        serde_json::to_string(&audit.iter().map(|a| &a.changes).collect::<Vec<_>>()).unwrap();
    assert!(text.contains("Dana Scully"), "{text}");
    assert!(
        !text.contains("a-long-password") && !text.contains("$argon2"),
        "{text}"
    );
}
db_test!(accounts_are_created_once_whatever_the_letter_case);

/// Every administration operation through GraphQL and REST, as each role: only administrators succeed,
/// the others get the documented 403 / FORBIDDEN and nothing changes.
async fn only_administrators_manage_people(app: &TestApp) {
    let d = desk(app).await;
    let target = app.user("target").await;
    let group = app
        .graphql(
            Some(&d.admin.token),
            CREATE_GROUP,
            json!({"input": {"name": "Network"}}),
        )
        .await;
    let group_gid = group["data"]["createGroup"]["group"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let group_id = deskgraph::graphql::ids::decode_any(&group_gid).unwrap().1;
    let user_gid = gid("User", target.id);
    let graphql_ops: Vec<(&str, Value)> = vec![
        (CREATE_USER, json!({"input": {"username": "newbie", "password": "a-long-password"}})),
        ("mutation($input: UpdateUserInput!) { updateUser(input: $input) { user { id } } }",
            json!({"input": {"id": user_gid, "fullName": "Renamed"}})),
        (DEACTIVATE, json!({"input": {"id": user_gid}})),
        (REACTIVATE, json!({"input": {"id": user_gid}})),
        ("mutation($input: SetUserPasswordInput!) { setUserPassword(input: $input) { user { id } } }",
            json!({"input": {"id": user_gid, "password": "a-long-password"}})),
        (CREATE_GROUP, json!({"input": {"name": "Other"}})),
        ("mutation($input: UpdateGroupInput!) { updateGroup(input: $input) { group { id } } }",
            json!({"input": {"id": group_gid, "name": "Net"}})),
        ("mutation($input: AddGroupMemberInput!) { addGroupMember(input: $input) { group { id } } }",
            json!({"input": {"groupId": group_gid, "userId": user_gid}})),
        ("mutation($input: RemoveGroupMemberInput!) { removeGroupMember(input: $input) { group { id } } }",
            json!({"input": {"groupId": group_gid, "userId": user_gid}})),
        ("mutation($input: DeleteGroupInput!) { deleteGroup(input: $input) { deletedGroupId } }",
            json!({"input": {"id": group_gid}})),
        ("query { users(filter: {active: false}) { totalCount } }", json!({})),
    ];
    let t = target.id;
    let rest_ops: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", "/api/users/".into(), None),
        (
            "POST",
            "/api/users/".into(),
            Some(json!({"username": "newbie", "password": "a-long-password"})),
        ),
        ("GET", format!("/api/users/{t}/"), None),
        (
            "PATCH",
            format!("/api/users/{t}/"),
            Some(json!({"full_name": "Renamed"})),
        ),
        (
            "POST",
            format!("/api/users/{t}/deactivate/"),
            Some(json!({})),
        ),
        (
            "POST",
            format!("/api/users/{t}/reactivate/"),
            Some(json!({})),
        ),
        (
            "POST",
            format!("/api/users/{t}/password/"),
            Some(json!({"password": "a-long-password"})),
        ),
        ("GET", "/api/groups/".into(), None),
        (
            "POST",
            "/api/groups/".into(),
            Some(json!({"name": "Other"})),
        ),
        ("GET", format!("/api/groups/{group_id}/"), None),
        (
            "PATCH",
            format!("/api/groups/{group_id}/"),
            Some(json!({"name": "Net"})),
        ),
        (
            "POST",
            format!("/api/groups/{group_id}/members/"),
            Some(json!({"user": t})),
        ),
        (
            "DELETE",
            format!("/api/groups/{group_id}/members/{t}/"),
            None,
        ),
        ("DELETE", format!("/api/groups/{group_id}/"), None),
    ];
    for who in [&d.requester, &d.agent, &d.staff] {
        for (query, variables) in &graphql_ops {
            let body = app
                .graphql(Some(&who.token), query, variables.clone())
                .await;
            assert_eq!(code(&body), "FORBIDDEN", "{} {query}: {body}", who.username);
        }
        for (method, path, body) in &rest_ops {
            let method = axum::http::Method::from_bytes(method.as_bytes()).unwrap();
            let resp = app
                .request(method.clone(), path, Some(&who.token), body.clone())
                .await;
            assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
        }
    }
    let unchanged = app
        .get(&format!("/api/users/{t}/"), Some(&d.admin.token))
        .await;
    assert_eq!(
        unchanged.json["full_name"], "Target Example",
        "{}",
        unchanged.text
    );
    assert_eq!(unchanged.json["is_active"], true);
    // The administrator may do each of them.
    for (query, variables) in &graphql_ops {
        let body = app
            .graphql(Some(&d.admin.token), query, variables.clone())
            .await;
        assert!(body["errors"].is_null(), "{query}: {body}");
    }
}
db_test!(only_administrators_manage_people);

/// Administrators cannot lock the desk out: not by deactivating themselves, nor the last administrator,
/// nor by demoting the last one; the team groups keep their names; a group with open tickets stays.
async fn the_desk_always_keeps_an_administrator(app: &TestApp) {
    let d = desk(app).await;
    let me = app
        .post(
            &format!("/api/users/{}/deactivate/", d.admin.id),
            Some(&d.admin.token),
            json!({}),
        )
        .await;
    assert_error(&me, StatusCode::BAD_REQUEST, "validation_error");
    let administrators =
        deskgraph::service::users::ensure_group(&app.state.db.conn, "Administrators")
            .await
            .unwrap();
    let demote = app
        .delete(
            &format!("/api/groups/{}/members/{}/", administrators.id, d.admin.id),
            Some(&d.admin.token),
        )
        .await;
    assert_error(&demote, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        demote.json["error"]
            .as_str()
            .unwrap()
            .contains("administrator"),
        "{}",
        demote.text
    );
    let rename = app
        .patch(
            &format!("/api/groups/{}/", administrators.id),
            Some(&d.admin.token),
            json!({"name": "Bosses"}),
        )
        .await;
    assert_error(&rename, StatusCode::BAD_REQUEST, "validation_error");

    let network = app
        .post(
            "/api/groups/",
            Some(&d.admin.token),
            json!({"name": "Network"}),
        )
        .await;
    assert_eq!(network.status, StatusCode::CREATED, "{}", network.text);
    let network_id = network.json["id"].as_i64().unwrap();
    let again = app
        .post(
            "/api/groups/",
            Some(&d.admin.token),
            json!({"name": "NETWORK"}),
        )
        .await;
    assert_error(&again, StatusCode::CONFLICT, "conflict");
    let ticket = app
        .post(
            "/api/tickets/",
            Some(&d.agent.token),
            json!({"title": "Switch down", "assigned_group": network_id}),
        )
        .await;
    assert_eq!(ticket.status, StatusCode::CREATED, "{}", ticket.text);
    let refused = app
        .delete(&format!("/api/groups/{network_id}/"), Some(&d.admin.token))
        .await;
    assert_error(&refused, StatusCode::CONFLICT, "conflict");
    assert!(
        refused.json["error"]
            .as_str()
            .unwrap()
            .starts_with("1 open ticket"),
        "{}",
        refused.text
    );
}
db_test!(the_desk_always_keeps_an_administrator);

/// Off-boarding: a leaver's web session, API token, JWT and live subscription all stop within two seconds
/// of one deactivation, on another instance too; sign-in is refused as for a wrong password; they can no
/// longer be assigned but keep their open assignments; reactivated, they sign in again but nothing old
/// comes back.
async fn a_leaver_is_shut_out_everywhere_at_once(app: &TestApp) {
    let d = desk(app).await;
    let leaver = app.agent("leaver").await;
    let jwt = app
        .graphql(None, LOGIN, json!({"u": "leaver", "p": "leaver-password"}))
        .await["data"]["login"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let browser = login(app, &leaver).await;
    let ticket = app
        .post(
            "/api/tickets/",
            Some(&d.agent.token),
            json!({"title": "Laptop", "assigned_to": leaver.id}),
        )
        .await;
    let ticket_id = ticket.json["id"].as_i64().unwrap();
    // On PostgreSQL the live subscription runs on a second instance, which hears of the change by NOTIFY
    // (SQLite serves one instance).
    let other = if app.is_postgres() {
        app.second_instance().await.0
    } else {
        app.state.clone()
    };
    let url = serve(other.clone()).await;
    let mut live = WsClient::connect(&url, &leaver.token).await;
    live.subscribe("s", None).await;
    wait_for_subscribers(&other, 1).await;
    // Prime both instances' credential caches.
    assert_eq!(
        app.get("/api/tickets/", Some(&leaver.token)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        app.get("/api/tickets/", Some(&jwt)).await.status,
        StatusCode::OK
    );

    let done = app
        .graphql(
            Some(&d.admin.token),
            DEACTIVATE,
            json!({"input": {"id": gid("User", leaver.id)}}),
        )
        .await;
    assert_eq!(
        done["data"]["deactivateUser"]["user"]["isActive"], false,
        "{done}"
    );
    assert_eq!(done["data"]["deactivateUser"]["openAssignmentCount"], 1);
    let started = std::time::Instant::now();
    let ended = live.expect_end("s").await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        ended["errors"][0]["extensions"]["code"], "UNAUTHENTICATED",
        "{ended}"
    );
    for token in [&leaver.token, &jwt] {
        let refused = app.get("/api/tickets/", Some(token)).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    }
    let web = browser
        .get(app, &format!("/tickets/{ticket_id}/comments/"))
        .await;
    assert_eq!(web.status, StatusCode::UNAUTHORIZED, "{}", web.text);
    // Right password or wrong, the answer is a wrong password's.
    assert_eq!(
        sign_in(app, Door::GraphQl, "leaver", "leaver-password").await,
        Outcome::Refused
    );
    assert_eq!(
        sign_in(app, Door::Rest, "leaver", "guess").await,
        Outcome::Refused
    );
    // Not assignable; the open assignment stays and the queue finds it.
    let assign = app
        .post(
            "/api/tickets/",
            Some(&d.agent.token),
            json!({"title": "Another", "assigned_to": leaver.id}),
        )
        .await;
    assert_error(&assign, StatusCode::BAD_REQUEST, "validation_error");
    let queue = app
        .get(
            &format!("/api/tickets/?assigned={}", leaver.id),
            Some(&d.agent.token),
        )
        .await;
    assert_eq!(queue.json["count"], 1, "{}", queue.text);

    let back = app
        .graphql(
            Some(&d.admin.token),
            REACTIVATE,
            json!({"input": {"id": gid("User", leaver.id)}}),
        )
        .await;
    assert_eq!(
        back["data"]["reactivateUser"]["user"]["isActive"], true,
        "{back}"
    );
    assert_eq!(
        sign_in(app, Door::Rest, "leaver", "leaver-password").await,
        Outcome::SignedIn
    );
    for token in [&leaver.token, &jwt] {
        let still = app.get("/api/tickets/", Some(token)).await;
        assert_eq!(still.status, StatusCode::UNAUTHORIZED, "{}", still.text);
    }
    let web = browser
        .get(app, &format!("/tickets/{ticket_id}/comments/"))
        .await;
    assert_eq!(web.status, StatusCode::UNAUTHORIZED, "{}", web.text);
    let actions: Vec<String> = audit_event::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.entity_type == "user" && a.entity_id == leaver.id)
        .map(|a| a.action)
        .collect();
    assert_eq!(actions, ["create", "deactivate", "reactivate"]);
}
db_test!(a_leaver_is_shut_out_everywhere_at_once);

/// Changing one's password needs the current one and ends earlier access tokens; a reset link is asked
/// for with the same answer for any address, works once, and the asking is limited.
async fn passwords_change_and_reset(app: &TestApp) {
    let ann = app.user("ann").await;
    let jwt = app
        .graphql(None, LOGIN, json!({"u": "ann", "p": "ann-password"}))
        .await["data"]["login"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let wrong = app
        .post(
            "/api/auth/password/",
            Some(&ann.token),
            json!({"current_password": "nope", "new_password": "brand-new-pass"}),
        )
        .await;
    assert_error(&wrong, StatusCode::BAD_REQUEST, "validation_error");
    assert!(wrong.json["details"]["current_password"].is_array());
    // The JWT issued moments before the change is refused after it.
    let changed = app
        .post(
            "/api/auth/password/",
            Some(&ann.token),
            json!({"current_password": "ann-password", "new_password": "brand-new-pass"}),
        )
        .await;
    assert_eq!(changed.status, StatusCode::NO_CONTENT, "{}", changed.text);
    assert_eq!(
        app.get("/api/tickets/", Some(&jwt)).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.get("/api/tickets/", Some(&ann.token)).await.status,
        StatusCode::OK,
        "API tokens stay"
    );
    assert_eq!(
        sign_in(app, Door::Rest, "ann", "brand-new-pass").await,
        Outcome::SignedIn
    );

    // Known and unknown addresses get the same answer.
    let known = app
        .post(
            "/api/auth/password-reset/",
            None,
            json!({"email": "ANN@example.com"}),
        )
        .await;
    let unknown = app
        .post(
            "/api/auth/password-reset/",
            None,
            json!({"email": "nobody@example.com"}),
        )
        .await;
    assert_eq!(known.status, StatusCode::ACCEPTED);
    assert_eq!(
        (known.status, known.text.clone()),
        (unknown.status, unknown.text.clone())
    );
    // The link arrives by email (the outbox), once.
    let link = crate::support::events::password_reset_token(app).await;
    let resets = entity::outbox::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(
        resets
            .iter()
            .filter(|r| r.event == "account.password_reset")
            .count(),
        1
    );
    let weak = app
        .post(
            "/api/auth/password-reset/confirm/",
            None,
            json!({"token": link, "new_password": "x"}),
        )
        .await;
    assert_error(&weak, StatusCode::BAD_REQUEST, "validation_error");
    let used = app
        .post(
            "/api/auth/password-reset/confirm/",
            None,
            json!({"token": link, "new_password": "third-password"}),
        )
        .await;
    assert_eq!(used.status, StatusCode::NO_CONTENT, "{}", used.text);
    assert_eq!(
        sign_in(app, Door::Rest, "ann", "third-password").await,
        Outcome::SignedIn
    );
    let again = app
        .post(
            "/api/auth/password-reset/confirm/",
            None,
            json!({"token": link, "new_password": "fourth-password"}),
        )
        .await;
    assert_error(&again, StatusCode::BAD_REQUEST, "validation_error");
    assert!(again.json["details"]["token"].is_array());
    // Asking is limited per address like failed sign-ins.
    let mut last = StatusCode::ACCEPTED;
    for _ in 0..6 {
        last = app
            .post(
                "/api/auth/password-reset/",
                None,
                json!({"email": "flood@example.com"}),
            )
            .await
            .status;
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS);
}
db_test!(passwords_change_and_reset);
