//! The index follows every write, whichever door made it: titles and descriptions changed, comments edited,
//! made internal, deleted or moved by a merge, tickets deleted and restored.
use super::hits;
use crate::db_test;
use crate::support::graphql::{data, gid};
use crate::support::helpers::TestApp;
use axum::http::StatusCode;
use serde_json::json;

async fn the_index_follows_every_write(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let as_rita = app.as_user(&rita);
    let staff = app.user_with("sam", &[], true, false).await;
    let as_agent = app.as_user(&agent);
    let as_staff = app.as_user(&staff);
    let id = as_rita
        .create_ticket(json!({"title": "Laptop will not boot", "description": "Black screen."}))
        .await["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/tickets/{id}/");
    assert_eq!(hits(app, &rita, "laptop").await, (vec![id], 1));

    // A changed title and description: the new words find it, the old ones do not.
    let r = as_agent
        .patch(
            &path,
            json!({"title": "Desktop will not boot", "description": "<p>Blue screen.</p>"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(hits(app, &rita, "laptop").await.1, 0);
    assert_eq!(hits(app, &rita, "desktop blue").await, (vec![id], 1));

    // A comment: found, then found by its new text only once edited.
    let r = as_rita
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "<p>Fan is noisy.</p>"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let comment = format!("/api/tickets/{id}/comments/{}/", r.json["id"]);
    assert_eq!(hits(app, &rita, "noisy fan").await.1, 1);
    let r = as_rita
        .patch(&comment, json!({"content": "<p>Fan is rattling.</p>"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(hits(app, &rita, "noisy").await.1, 0);
    assert_eq!(hits(app, &rita, "rattling").await.1, 1);

    // Made internal: the requester no longer finds it by the comment, the team still does.
    let r = as_staff
        .patch(&comment, json!({"comment_type": "internal"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(hits(app, &rita, "rattling").await.1, 0);
    assert_eq!(hits(app, &agent, "rattling").await.1, 1);

    // Deleted: nobody finds it by the comment.
    let r = as_staff.delete(&comment).await;
    assert!(r.status.is_success(), "{}", r.text);
    assert_eq!(hits(app, &agent, "rattling").await.1, 0);

    // Merged: the duplicate's comments are found on the ticket they moved to.
    let duplicate = as_rita
        .create_ticket(json!({"title": "Desktop again"}))
        .await["id"]
        .as_i64()
        .unwrap();
    let r = as_rita
        .post(
            &format!("/api/tickets/{duplicate}/comments/"),
            json!({"content": "<p>Smells of smoke.</p>"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(hits(app, &rita, "smoke").await, (vec![duplicate], 1));
    let r = as_agent
        .post(
            &format!("/api/tickets/{duplicate}/merge/"),
            json!({"into": id}),
        )
        .await;
    assert!(r.status.is_success(), "{}", r.text);
    assert_eq!(hits(app, &rita, "smoke").await, (vec![id], 1));

    // Deleted tickets are not found; restored ones are again.
    let r = as_agent.delete(&path).await;
    assert!(r.status.is_success(), "{}", r.text);
    assert_eq!(
        hits(app, &agent, "desktop").await.1,
        1,
        "the merged duplicate only"
    );
    let restore = "mutation($id: ID!) { restoreTicket(input: {id: $id}) { ticket { id } } }";
    let ticket = gid("Ticket", id as i32);
    let body = app
        .graphql(Some(&agent.token), restore, json!({"id": ticket}))
        .await;
    data(&body);
    assert_eq!(hits(app, &agent, "desktop blue").await, (vec![id], 1));
}
db_test!(the_index_follows_every_write);

/// The documents a new ticket is given on insert are those a full refresh (from its row and its comments)
/// writes: on PostgreSQL compared as vectors, on SQLite by the column each word is found in.
async fn a_new_ticket_is_indexed_as_a_refresh_would_index_it(app: &TestApp) {
    use sea_orm::{ConnectionTrait, DbBackend, Statement};
    let rita = app.user("rita").await;
    let id = app
        .as_user(&rita)
        .create_ticket(
            json!({"title": "Printer jams", "description": "<p>Paper stuck in tray 2.</p>"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let conn = &app.state.db.conn;
    let backend = conn.get_database_backend();
    let strings = |sql: String| async move {
        let rows = conn
            .query_all_raw(Statement::from_string(backend, sql))
            .await
            .unwrap();
        rows.iter()
            .map(|r| {
                r.try_get_by_index::<String>(0).unwrap() + &r.try_get_by_index::<String>(1).unwrap()
            })
            .collect::<Vec<_>>()
    };
    if backend == DbBackend::Postgres {
        let read = format!(
            "SELECT public_doc::text, all_doc::text FROM ticket_search WHERE ticket_id = {id}"
        );
        let inserted = strings(read.clone()).await;
        assert!(inserted[0].contains("'printer':1A"), "{inserted:?}");
        assert!(inserted[0].contains("'paper':3B"), "{inserted:?}");
        conn.execute_unprepared(&format!("SELECT deskgraph_search_refresh({id})"))
            .await
            .unwrap();
        assert_eq!(strings(read).await, inserted);
    } else {
        for (table, column, word, found) in [
            ("ticket_search_all", "title", "printer", true),
            ("ticket_search_all", "description", "paper", true),
            ("ticket_search_all", "description", "printer", false),
            ("ticket_search_all", "comments", "paper", false),
            ("ticket_search_all", "internal", "paper", false),
            ("ticket_search_public", "title", "jams", true),
            ("ticket_search_public", "description", "tray", true),
            ("ticket_search_public", "comments", "tray", false),
        ] {
            let sql = format!(
                "SELECT CAST(rowid AS TEXT), '' FROM {table} WHERE {table} MATCH '{column} : {word}'"
            );
            let rows = strings(sql).await;
            assert_eq!(
                rows == [id.to_string()],
                found,
                "{table}.{column} {word}: {rows:?}"
            );
        }
    }
    assert_eq!(hits(app, &rita, "printer tray").await, (vec![id], 1));
}
db_test!(a_new_ticket_is_indexed_as_a_refresh_would_index_it);
