//! Saved views of the queue: a user names the queue's filters, opens them from the views bar, replaces and
//! removes them; nobody else sees or removes them; a bad name is answered next to the field, keeping what was
//! typed.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::location;
use crate::support::world::{actor, login};
use axum::http::StatusCode;
use deskgraph::domain::Priority;
use deskgraph::service::{saved_views, tickets};
use sea_orm::{EntityTrait, PaginatorTrait};

async fn views_kept(app: &TestApp) -> u64 {
    entity::saved_view::Entity::find()
        .count(&app.state.db.conn)
        .await
        .unwrap()
}

db_test!(a_user_saves_opens_replaces_and_removes_a_view);
async fn a_user_saves_opens_replaces_and_removes_a_view(app: &TestApp) {
    let owner = app.user("owner").await;
    let agent = app.agent("agent").await;
    let other = app.agent("other").await;
    let owner_actor = actor(app, &owner).await;
    for (title, priority) in [
        ("VPN down", Priority::High),
        ("Printer jams", Priority::Low),
    ] {
        let input = tickets::NewTicket {
            title: title.into(),
            priority: Some(priority),
            ..Default::default()
        };
        app.open_for(&owner_actor, input).await;
    }
    let browser = login(app, &agent).await;
    // Paging and unknown parameters are not kept.
    let resp = browser
        .form(
            app,
            "/tickets/views/",
            &[
                ("name", "High ones"),
                ("query", "priority=high&page=2&bogus=1"),
            ],
        )
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    assert_eq!(location(&resp), "/tickets/?priority=high");
    let queue = browser.page(app, "/tickets/?priority=high").await;
    assert!(
        queue.text.contains(
            r#"<a href="/tickets/?priority=high" class="view current" aria-current="page">High ones</a>"#
        ),
        "{}",
        queue.text
    );
    assert!(queue.text.contains("VPN down") && !queue.text.contains("Printer jams"));
    // The save form carries the page's filters.
    assert!(queue
        .text
        .contains(r#"<input type="hidden" name="query" value="priority=high">"#));
    let queue = browser.page(app, "/tickets/").await;
    assert!(
        queue
            .text
            .contains(r#"<a href="/tickets/?priority=high" class="view">High ones</a>"#),
        "{}",
        queue.text
    );

    // The same name in another case replaces the view's filters.
    let resp = browser
        .form(
            app,
            "/tickets/views/",
            &[("name", "high ONES"), ("query", "priority=low")],
        )
        .await;
    assert_eq!(location(&resp), "/tickets/?priority=low");
    assert_eq!(views_kept(app).await, 1);
    let queue = browser.page(app, "/tickets/").await;
    assert!(queue.text.contains(">high ONES</a>") && !queue.text.contains(">High ones</a>"));

    // Another user neither sees nor removes it.
    let view = entity::saved_view::Entity::find()
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let theirs = login(app, &other).await;
    assert!(!theirs
        .page(app, "/tickets/")
        .await
        .text
        .contains("high ONES"));
    let remove = format!("/tickets/views/{}/remove/", view.id);
    assert_eq!(
        theirs.form(app, &remove, &[]).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(views_kept(app).await, 1);
    // Without the CSRF token nothing is saved or removed.
    let forged = browser
        .forged(app, "/tickets/views/", &[("name", "Forged"), ("query", "")])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert_eq!(
        browser.forged(app, &remove, &[]).await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(views_kept(app).await, 1);

    // Bad names: the queue answers with the message next to the field and what was typed.
    let long = "x".repeat(81);
    for (name, said) in [
        ("   ", "give the view a name"),
        (long.as_str(), "at most 80 characters"),
        ("tab\there", "must not hold control characters"),
    ] {
        let resp = browser
            .form(
                app,
                "/tickets/views/",
                &[("name", name), ("query", "priority=high")],
            )
            .await;
        assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{name:?}");
        assert!(
            resp.text.contains(&format!(
                r#"<p class="field-error" id="view-name-error">{said}</p>"#
            )),
            "{}",
            resp.text
        );
        assert!(resp.text.contains(r#"aria-invalid="true""#));
        assert!(
            resp.text.contains("VPN down"),
            "the queue keeps its filters"
        );
    }
    let resp = browser
        .form(app, "/tickets/views/", &[("name", &long), ("query", "")])
        .await;
    assert!(resp.text.contains(&format!(r#"value="{long}""#)));
    assert_eq!(views_kept(app).await, 1);

    // Removed by its owner.
    let resp = browser.form(app, &remove, &[]).await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER);
    assert_eq!(views_kept(app).await, 0);
    assert!(!browser
        .page(app, "/tickets/")
        .await
        .text
        .contains("high ONES"));
    assert_eq!(
        browser.form(app, &remove, &[]).await.status,
        StatusCode::NOT_FOUND
    );
}

db_test!(a_user_keeps_a_bounded_number_of_views);
async fn a_user_keeps_a_bounded_number_of_views(app: &TestApp) {
    let carol = app.user("carol").await;
    let carol_actor = actor(app, &carol).await;
    for n in 0..saved_views::MOST_PER_USER {
        saved_views::save(
            &app.state.db,
            &app.state.saved_views,
            &carol_actor,
            &format!("View {n}"),
            "status=new",
        )
        .await
        .unwrap();
    }
    // A requester saves views too; one more is refused, replacing one is not.
    let browser = login(app, &carol).await;
    let resp = browser
        .form(
            app,
            "/tickets/views/",
            &[("name", "One more"), ("query", "")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert!(
        resp.text
            .contains("you keep 50 saved views already; remove one first"),
        "{}",
        resp.text
    );
    let resp = browser
        .form(
            app,
            "/tickets/views/",
            &[("name", "view 7"), ("query", "status=open")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&resp), "/tickets/?status=open");
    assert_eq!(views_kept(app).await, saved_views::MOST_PER_USER);
}

db_test!(views_saved_on_one_instance_are_listed_by_another);
/// Each instance remembers a user's views; one saved or removed on one instance is listed so by the others at
/// once on PostgreSQL (on SQLite within the remembered lifetime, not waited for here).
async fn views_saved_on_one_instance_are_listed_by_another(app: &TestApp) {
    use axum::body::Body;
    use axum::http::{header, Request};
    let agent = app.agent("agnes").await;
    let browser = login(app, &agent).await;
    let cookies = browser.cookies();
    let (_, second) = app.second_instance().await;
    let on_second = || async {
        let request = Request::builder()
            .uri("/tickets/")
            .header(header::COOKIE, &cookies)
            .body(Body::empty())
            .unwrap();
        app.send_to(&second, request).await.text
    };
    // Both instances have read (and remember) the empty list.
    assert!(!on_second().await.contains("Urgent ones"));
    assert!(!browser
        .page(app, "/tickets/")
        .await
        .text
        .contains("Urgent ones"));
    let resp = browser
        .form(
            app,
            "/tickets/views/",
            &[("name", "Urgent ones"), ("query", "priority=critical")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    // Here at once.
    assert!(browser
        .page(app, "/tickets/")
        .await
        .text
        .contains("Urgent ones"));
    if !app.is_postgres() {
        return;
    }
    let seen = |wanted: bool| async move {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while on_second().await.contains("Urgent ones") != wanted {
            assert!(
                std::time::Instant::now() < deadline,
                "the second instance did not follow (wanted listed: {wanted})"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    seen(true).await;
    let id = entity::saved_view::Entity::find()
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap()
        .id;
    let resp = browser
        .form(app, &format!("/tickets/views/{id}/remove/"), &[])
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    assert!(!browser
        .page(app, "/tickets/")
        .await
        .text
        .contains("Urgent ones"));
    seen(false).await;
}
