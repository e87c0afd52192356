//! Demo data for a first run: a small team, requesters, projects, tickets in every status, comments of
//! both kinds and assets. Seeded only into an empty database.
use crate::auth::{load_actor, Actor};
use crate::domain::Priority;
use crate::domain::{AssetStatus, AssetType};
use crate::service::users::{self, accounts, Admin};
use crate::service::{assets, projects, sla, tokens};
use crate::state::AppState;
use anyhow::Context;
use entity::user;
use sea_orm::{EntityTrait, PaginatorTrait};
use std::net::SocketAddr;

mod people;
mod tickets;
use people::{demo_password, USERS};

/// Seed when the database has no users, then print each login with a fresh API token.
pub async fn seed_and_print(state: &AppState, bind: SocketAddr) -> anyhow::Result<()> {
    let empty = user::Entity::find().count(&state.db.conn).await? == 0;
    if empty {
        seed(state)
            .await
            .map_err(|e| anyhow::anyhow!("seeding demo data failed: {e}"))?;
    }
    println!();
    println!("deskgraph demo: sign in at http://{bind}/ with a login below");
    println!("  GraphQL (GraphiQL in a browser): http://{bind}/graphql   REST: http://{bind}/api/");
    println!("{:<8} {:<14} {:<28} API token", "login", "password", "role");
    for demo in USERS {
        let Some(found) = users::find_by_username(&state.db.conn, demo.username)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
        else {
            continue;
        };
        tokens::revoke_by_name(&state.db, &state.auth_cache, found.id, "demo")
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let issued = tokens::create(&state.db, None, found.id, "demo", Some(30))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        println!(
            "{:<8} {:<14} {:<28} {}",
            demo.username,
            demo_password(demo.username),
            demo.role,
            issued.secret
        );
    }
    let token_hint = "<token from the table>";
    println!();
    println!("Try: curl -s -H 'Authorization: Bearer {token_hint}' http://{bind}/api/tickets/");
    println!("     curl -s -H 'Authorization: Bearer {token_hint}' -H 'Content-Type: application/json' \\");
    println!("          -d '{{\"query\":\"{{ me {{ username }} }}\"}}' http://{bind}/graphql");
    println!("Automation: a new ticket about VPN, Wi-Fi or the network goes to the Network Team (trigger),");
    println!("     agents have the macro \"Fixed by a restart\", and tickets resolved a week ago close (time rule)");
    println!("     (admin: http://{bind}/admin/triggers/ and http://{bind}/admin/time-rules/)");
    if !empty {
        println!("(database already had data: nothing seeded; demo tokens were re-issued)");
    }
    println!();
    Ok(())
}

async fn actor(state: &AppState, username: &str) -> anyhow::Result<Actor> {
    let found = users::find_by_username(&state.db.conn, username)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .with_context(|| format!("demo user {username} missing"))?;
    load_actor(&state.db.conn, found.id)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .context("demo user inactive")
}

/// Seed the demo's people, projects, tickets, comments, assets, SLA policies and automation into an empty
/// database (the accessibility audit reads its pages on them too).
pub async fn seed(state: &AppState) -> anyhow::Result<()> {
    let db = &state.db.conn;
    // The demo's printed passwords are what they are whatever minimum this deployment sets.
    let deps = users::PeopleDeps {
        min_password_length: 1,
        ..state.people_deps()
    };
    for demo in USERS {
        let groups: Vec<String> = demo.groups.iter().map(|g| g.to_string()).collect();
        let group_ids = users::ensure_groups(db, &groups)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let account = accounts::NewAccount {
            username: demo.username.to_string(),
            password: Some(demo_password(demo.username)),
            full_name: demo.full_name.to_string(),
            email: Some(format!("{}@example.com", demo.username)),
            is_staff: demo.staff,
            is_superuser: demo.superuser,
            group_ids,
        };
        accounts::create(deps, &Admin::command_line(), account)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let admin = actor(state, "admin").await?;
    let alice = actor(state, "alice").await?;
    let bob = actor(state, "bob").await?;
    let carol = actor(state, "carol").await?;
    let dave = actor(state, "dave").await?;
    let mut project_ids = Vec::new();
    for (name, description) in [
        (
            "Office Move 2026",
            "Moving the Berlin office to the new building",
        ),
        ("Laptop Refresh", "Replacing laptops older than four years"),
        ("Email Migration", "Moving mailboxes to the new provider"),
    ] {
        let input = projects::NewProject {
            name: name.into(),
            description: Some(description.into()),
        };
        project_ids.push(
            projects::create(&state.db, &admin, input)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .id,
        );
    }
    // Service levels first, so the demo tickets' clocks run from their creation.
    for (name, priority, first, resolution) in [
        ("Critical: 30 min / 4 h", Priority::Critical, 30, 240),
        ("High: 1 h / 8 h", Priority::High, 60, 480),
        ("Medium: 4 h / 2 days", Priority::Medium, 240, 2 * 1440),
        ("Low: 1 day / 5 days", Priority::Low, 1440, 5 * 1440),
    ] {
        let input = sla::policies::NewPolicy {
            name: name.into(),
            priority: Some(priority),
            first_response_minutes: first,
            resolution_minutes: resolution,
            ..Default::default()
        };
        sla::policies::create(&state.db, &state.sla_policies, &admin, input)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let network_group = users::ensure_group(db, "Network Team")
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    tickets::open(
        state,
        &alice,
        &bob,
        &carol,
        &dave,
        &project_ids,
        network_group.id,
    )
    .await?;
    // After the demo tickets, so they stay as written: new ones show the rules at work.
    let words = ["vpn", "wifi", "network"]
        .map(|w| serde_json::json!({"field": "ticket.title", "operator": "contains", "value": w}));
    let route = crate::service::automation::NewTrigger {
        name: "Route network problems to the Network Team".into(),
        project_id: None,
        position: None,
        active: Some(true),
        conditions: serde_json::json!({
            "all": [{"field": "event", "operator": "is", "value": "created"}],
            "any": words,
        }),
        actions: serde_json::json!([
            {"set": "assigned_group", "value": network_group.id},
            {"assign": "least_loaded"},
            {"comment": "Thanks {{requester.full_name}}: {{ticket.number}} is with the Network Team."}
        ]),
    };
    crate::service::automation::triggers::create(&state.db, &state.triggers, &admin, route)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let restart = crate::service::automation::macros::NewMacro {
        name: "Fixed by a restart".into(),
        scope: crate::service::automation::macros::Scope::Everyone,
        actions: serde_json::json!([
            {"set": "status", "value": "resolved"},
            {"comment": "Hi {{requester.full_name}}, a restart fixed {{ticket.number}}. Reply if it comes back."}
        ]),
    };
    crate::service::automation::macros::create(&state.db, &state.macros, &admin, restart)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let close = crate::service::automation::time_rules::NewTimeRule {
        name: "Close tickets resolved a week ago".into(),
        project_id: None,
        active: Some(true),
        wait: serde_json::json!({"since": "resolved", "hours": 168}),
        conditions: serde_json::json!({
            "all": [{"field": "ticket.status", "operator": "is", "value": "resolved"}]
        }),
        actions: serde_json::json!([
            {"set": "status", "value": "closed"},
            {"comment": "{{ticket.number}} was resolved a week ago and is now closed. Open a new ticket if it comes back."}
        ]),
    };
    crate::service::automation::time_rules::create(&state.db, &admin, close)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for (name, kind, status, location, owner, serial) in [
        (
            "ThinkPad T14 #1042",
            "hardware",
            "in_use",
            "Berlin, desk 3.12",
            Some(carol.id()),
            "PF-3K2M9",
        ),
        (
            "MacBook Pro 14 #2201",
            "hardware",
            "in_stock",
            "IT store room",
            None,
            "C02FX1ZQ",
        ),
        (
            "Office 365 E3 licence",
            "license",
            "in_use",
            "",
            Some(dave.id()),
            "O365-E3-0042",
        ),
        (
            "Cisco Catalyst 9200 switch",
            "network",
            "in_use",
            "Server room rack 2",
            None,
            "FOC2231X0AB",
        ),
        (
            "Dell U2723QE monitor",
            "peripheral",
            "in_repair",
            "Vendor RMA",
            Some(carol.id()),
            "CN-0H0F-7412",
        ),
        (
            "iPhone 15 #77",
            "mobile",
            "lost",
            "",
            Some(dave.id()),
            "F2LZK9Q1N0",
        ),
    ] {
        let input = assets::NewAsset {
            name: name.into(),
            asset_type: AssetType::parse(kind).map_err(|e| anyhow::anyhow!("{e}"))?,
            status: Some(AssetStatus::parse(status).map_err(|e| anyhow::anyhow!("{e}"))?),
            location: Some(location.into()),
            owner_id: owner,
            description: None,
            serial_number: Some(serial.into()),
        };
        assets::create(&state.db, &admin, input)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(())
}
