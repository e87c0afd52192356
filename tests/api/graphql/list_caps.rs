//! Lists under an object (`Ticket.attachments`, `Ticket.assets`, `Asset.tickets`, `Comment.attachments`,
//! `Comment.edits`, `User.groups`) are cut to 100 per parent in the SQL: a parent with more children answers
//! exactly the first 100 of what the viewer may see, in the list's order, with the same statements as a
//! parent with one child.
use crate::db_test;
use crate::support::clients::actor;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::{add, world};
use chrono::{Duration, Utc};
use deskgraph::domain::{AssetType, CommentType};
use deskgraph::graphql::limits::cost::LIST_MAX;
use deskgraph::service::assets::{self, NewAsset};
use deskgraph::service::tickets::{self, NewTicket};
use deskgraph::service::{attachments, comments, users, Take};
use entity::{attachment, blob, comment_edit, ticket, ticket_asset, user_group};
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{json, Value};

const QUERY: &str = "query($id: Int) { ticket(databaseId: $id) { \
    requester { groups { name } } \
    attachments { filename } \
    assets { name tickets { databaseId } } \
    comments(first: 100) { nodes { databaseId attachments { filename } edits { previousBody } } } } }";

/// The bytes every attachment row here names (never read).
const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// An attachment row straight in the database (a bulk load); `deleted` ones are never shown.
async fn attachment_row(app: &TestApp, t: i32, on: Option<i32>, name: String, deleted: bool) {
    attachment::ActiveModel {
        ticket_id: Set(t),
        comment_id: Set(on),
        filename: Set(name),
        content_type: Set("text/plain".into()),
        size: Set(3),
        sha256: Set(SHA.into()),
        uploaded_by_id: Set(None),
        created_at: Set(Utc::now()),
        deleted_at: Set(deleted.then(Utc::now)),
        ..Default::default()
    }
    .insert(&app.state.db.conn)
    .await
    .unwrap();
}

async fn new_ticket(app: &TestApp, by: &TestUser, title: String) -> ticket::Model {
    let input = NewTicket {
        title,
        ..Default::default()
    };
    tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, by).await,
        input,
    )
    .await
    .unwrap()
}

async fn link(app: &TestApp, ticket_id: i32, asset_id: i32) {
    ticket_asset::ActiveModel {
        ticket_id: Set(ticket_id),
        asset_id: Set(asset_id),
        created_at: Set(Utc::now()),
    }
    .insert(&app.state.db.conn)
    .await
    .unwrap();
}

/// One of each list on ticket `t` of `owner` (`n` children each, of which some the owner may not see),
/// with `owner` in `n` groups; the public comment's id.
async fn fill(app: &TestApp, owner: &TestUser, other: &TestUser, t: i32, n: usize) -> i32 {
    let agent = app.agent(&format!("agent{}", owner.id)).await;
    let note = add(app, &agent, t, "note", CommentType::Internal).await;
    let public = add(app, &agent, t, "public", CommentType::Public).await;
    let blob = blob::ActiveModel {
        sha256: Set(SHA.into()),
        size: Set(3),
        created_at: Set(Utc::now()),
        state: Set(entity::values::BlobState::Stored),
        touched_at: Set(None),
    };
    blob::Entity::insert(blob)
        .on_conflict_do_nothing()
        .exec_without_returning(&app.state.db.conn)
        .await
        .unwrap();
    for i in 0..n * 2 {
        let (on, deleted) = match i % 4 {
            0 => (Some(note.id), false),
            1 => (Some(public.id), i % 8 == 5),
            2 => (Some(public.id), false),
            _ => (None, false),
        };
        attachment_row(app, t, on, format!("f{i:04}"), deleted).await;
    }
    // Edits, newest id oldest in time; every fourth was internal text, which the requester never reads.
    let base = Utc::now() - Duration::days(1);
    for i in 0..n + n / 2 {
        let kind = if i % 4 == 3 {
            CommentType::Internal
        } else {
            CommentType::Public
        };
        comment_edit::ActiveModel {
            comment_id: Set(public.id),
            edited_by_id: Set(Some(agent.id)),
            previous_body: Set(format!("v{i:04}")),
            previous_comment_type: Set(kind),
            edited_at: Set(base - Duration::seconds(i as i64)),
            ..Default::default()
        }
        .insert(&app.state.db.conn)
        .await
        .unwrap();
    }
    let team = actor(app, &agent).await;
    let mut first_asset = None;
    for i in 0..n + n / 3 {
        // Every fourth belongs to someone else, so the owner does not see it.
        let owner_id = if i % 4 == 1 { other.id } else { owner.id };
        let input = NewAsset {
            name: format!("Laptop {:04}", (n * 2 - i) % (n * 2)),
            asset_type: AssetType::Hardware,
            status: None,
            location: None,
            owner_id: Some(owner_id),
            description: None,
            serial_number: None,
        };
        let asset = assets::create(&app.state.db, &team, input).await.unwrap();
        link(app, t, asset.id).await;
        first_asset.get_or_insert(asset.id);
    }
    let asset = first_asset.unwrap();
    for i in 0..n + n / 2 {
        // Every third is someone else's ticket, so the owner does not see it.
        let by = if i % 3 == 0 { other } else { owner };
        let linked = new_ticket(app, by, format!("Linked {i}")).await;
        link(app, linked.id, asset).await;
    }
    for i in 0..n {
        let group = users::ensure_group(&app.state.db.conn, &format!("G{}-{:04}", owner.id, n - i))
            .await
            .unwrap();
        user_group::ActiveModel {
            user_id: Set(owner.id),
            group_id: Set(group.id),
        }
        .insert(&app.state.db.conn)
        .await
        .unwrap();
    }
    public.id
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|v| v[field].to_string())
        .collect()
}

fn first<T>(all: Vec<T>) -> Vec<T> {
    assert!(all.len() > LIST_MAX as usize, "{} children", all.len());
    all.into_iter().take(LIST_MAX as usize).collect()
}

db_test!(lists_read_at_most_their_cap_per_parent);
async fn lists_read_at_most_their_cap_per_parent(app: &TestApp) {
    let w = world(app).await;
    let db = &app.state.db.conn;
    let big = w.ticket.clone();
    let public = fill(app, &w.owner, &w.other, big.id, 140).await;
    let viewer = actor(app, &w.owner).await;

    // Warm the credentials cache right before measuring: a slow fill may outlast it.
    app.graphql(Some(&w.owner.token), "{ me { username } }", json!({}))
        .await;
    let before = app.statements();
    let body = app
        .graphql(Some(&w.owner.token), QUERY, json!({ "id": big.id }))
        .await;
    let big_statements = app.statements() - before;
    assert!(body["errors"].is_null(), "{body}");
    let got = &body["data"]["ticket"];

    // Each list is the first hundred of everything the owner may see, in its order.
    let all = attachments::list_visible(db, &viewer, &big).await.unwrap();
    let want: Vec<String> = first(all.attachments)
        .iter()
        .map(|a| json!(a.filename).to_string())
        .collect();
    assert_eq!(names(&got["attachments"], "filename"), want);

    let nodes = got["comments"]["nodes"].as_array().unwrap();
    let on_public = nodes
        .iter()
        .find(|c| c["databaseId"] == public)
        .unwrap_or_else(|| panic!("{got}"));
    let all = attachments::readable_by_comment(db, &viewer, &[public], Take::All)
        .await
        .unwrap();
    let want: Vec<String> = first(all[&public].clone())
        .iter()
        .map(|a| json!(a.filename).to_string())
        .collect();
    assert_eq!(names(&on_public["attachments"], "filename"), want);

    let all = comments::readable_edits(db, &viewer, &[public], Take::All)
        .await
        .unwrap();
    let want: Vec<String> = first(all[&public].clone())
        .iter()
        .map(|e| json!(e.previous_body).to_string())
        .collect();
    assert_eq!(names(&on_public["edits"], "previousBody"), want);

    let all = assets::assets_of_tickets(db, &viewer, &[big.id], Take::All)
        .await
        .unwrap();
    let all_assets = all[&big.id].clone();
    let want: Vec<String> = first(all_assets.clone())
        .iter()
        .map(|a| json!(a.name).to_string())
        .collect();
    let got_assets = &got["assets"];
    assert_eq!(names(got_assets, "name"), want);
    let asset = all_assets
        .iter()
        .find(|a| json!(a.name) == got_assets[0]["name"])
        .unwrap();
    let all = assets::tickets_of_assets(db, &viewer, &[asset.id], Take::All)
        .await
        .unwrap();
    let want: Vec<String> = first(all[&asset.id].clone())
        .iter()
        .map(|t| t.id.to_string())
        .collect();
    let on_asset = got_assets
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["tickets"].as_array().is_some_and(|t| t.len() > 1))
        .unwrap_or_else(|| panic!("{got_assets}"));
    assert_eq!(names(&on_asset["tickets"], "databaseId"), want);

    let all = users::groups_of(db, &viewer, &[w.owner.id], Take::All)
        .await
        .unwrap();
    let want: Vec<String> = first(all[&w.owner.id].clone())
        .iter()
        .map(|g| json!(g.name).to_string())
        .collect();
    assert_eq!(names(&got["requester"]["groups"], "name"), want);

    // A parent with one child of each kind takes the same statements.
    let small_owner = app.user("small").await;
    let small_other = app.user("small_other").await;
    let small = new_ticket(app, &small_owner, "Small".into()).await;
    fill(app, &small_owner, &small_other, small.id, 1).await;
    app.graphql(Some(&small_owner.token), "{ me { username } }", json!({}))
        .await;
    let before = app.statements();
    let body = app
        .graphql(Some(&small_owner.token), QUERY, json!({ "id": small.id }))
        .await;
    assert!(body["errors"].is_null(), "{body}");
    assert_eq!(app.statements() - before, big_statements, "{body}");
}

db_test!(root_lists_answer_their_first_hundred);
async fn root_lists_answer_their_first_hundred(app: &TestApp) {
    let agent = app.agent("ava").await;
    for i in (0..LIST_MAX + 5).rev() {
        users::ensure_group(&app.state.db.conn, &format!("Team {i:03}"))
            .await
            .unwrap();
    }
    let all = users::list_groups(&app.state.db.conn, Take::All)
        .await
        .unwrap();
    let want: Vec<String> = first(all)
        .iter()
        .map(|g| json!(g.name).to_string())
        .collect();
    let body = app
        .graphql(Some(&agent.token), "{ groups { name } }", json!({}))
        .await;
    assert_eq!(names(&body["data"]["groups"], "name"), want, "{body}");
}
