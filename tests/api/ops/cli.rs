//! The operator's `deskgraph user …` commands, run as the real binary against the test's database: an
//! account made at the command line follows the same rules as one an administrator makes through a door
//! (one login per name whatever its letter case, the password minimum, groups, an audit record).
use crate::db_test;
use crate::support::graphql::data;
use crate::support::helpers::TestApp;
use entity::audit_event;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::process::Output;

fn deskgraph(app: &TestApp, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_deskgraph"))
        .args(args)
        .env("DATABASE_URL", &app.state.config.database_url)
        .env_remove("DESKGRAPH_REDIS_URL")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

async fn user_create_follows_the_account_rules(app: &TestApp) {
    let made = deskgraph(
        app,
        &[
            "user",
            "create",
            "Quinn",
            "--password",
            "quinn-password",
            "--full-name",
            "Quinn Example",
            "--email",
            "quinn@example.com",
            "--staff",
            "--group",
            "Night Shift",
        ],
    );
    assert!(made.status.success(), "{}", said(&made));
    assert!(
        said(&made).contains("created user Quinn"),
        "{}",
        said(&made)
    );

    // The same name in other letters, or the same address, is another login for the same person: refused.
    for (name, email) in [
        ("quinn", "other@example.com"),
        ("quinn2", "QUINN@example.com"),
    ] {
        let again = deskgraph(
            app,
            &[
                "user",
                "create",
                name,
                "--password",
                "another-password",
                "--email",
                email,
            ],
        );
        assert!(!again.status.success(), "{name}: {}", said(&again));
        assert!(said(&again).contains("already"), "{name}: {}", said(&again));
    }
    let weak = deskgraph(app, &["user", "create", "shorty", "--password", "short"]);
    assert!(!weak.status.success(), "{}", said(&weak));
    assert!(
        said(&weak).contains("at least 8 characters"),
        "{}",
        said(&weak)
    );

    // The new agent signs in with that password, and is in the group the command made.
    let signed_in = app
        .graphql(
            None,
            "mutation($u: String!, $p: String!) { login(input: {username: $u, password: $p}) { token } }",
            json!({"u": "Quinn", "p": "quinn-password"}),
        )
        .await;
    assert!(
        data(&signed_in)["login"]["token"].is_string(),
        "{signed_in}"
    );
    let admin = app.admin("root").await;
    let seen = app
        .graphql(
            Some(&admin.token),
            "{ users(query: \"quinn\", first: 50) { nodes { username isStaff groups { name } } } }",
            json!({}),
        )
        .await;
    let quinn = data(&seen)["users"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["username"] == "Quinn")
        .cloned()
        .unwrap_or_else(|| panic!("{seen}"));
    assert_eq!(quinn["isStaff"], true);
    assert_eq!(quinn["groups"], json!([{"name": "Night Shift"}]));
    let names: Vec<&Value> = data(&seen)["users"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| &u["username"])
        .collect();
    assert_eq!(names, [&json!("Quinn")], "only Quinn was made");

    // Recorded like an administrator's create, with no administrator named and no password.
    let records = audit_event::Entity::find()
        .filter(audit_event::Column::EntityType.eq("user"))
        .filter(audit_event::Column::Action.eq("create"))
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let record = records
        .iter()
        .find(|r| r.changes["username"][1] == "Quinn")
        .expect("a create record for Quinn");
    assert_eq!(record.actor_id, None);
    assert_eq!(record.changes["email"][1], "quinn@example.com");
    assert!(!record.changes.to_string().contains("quinn-password"));
}
db_test!(user_create_follows_the_account_rules);
