//! Comment events from the comments service: `comment.created` webhooks for public comments and
//! emails to the people who may read the comment, never its author.
use crate::db_test;
use crate::support::events::*;
use crate::support::helpers::TestApp;
use deskgraph::domain::CommentType;
use deskgraph::jobs::worker;
use deskgraph::service::comments::{self, NewComment};
use deskgraph::service::tickets::NewTicket;
use deskgraph::service::users;
use deskgraph::state::AppState;

async fn comment(
    state: &AppState,
    who: &deskgraph::auth::Actor,
    ticket: i32,
    text: &str,
    kind: CommentType,
) -> i32 {
    comments::create(
        state.write_deps(deskgraph::domain::Channel::System),
        who,
        ticket,
        NewComment {
            body: text.into(),
            comment_type: kind,
        },
    )
    .await
    .unwrap()
    .id
}

db_test!(comments_send_webhooks_and_mail_those_who_may_read_them);
async fn comments_send_webhooks_and_mail_those_who_may_read_them(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let url = receiver.url.clone();
    let (state, mailer) = state_with(app, |c| {
        c.webhook_url = Some(url);
        c.webhook_secret = "s3cret".into();
    });
    let ann = app.user("ann").await;
    // A plain user as assignee: not on the team, but the rule lets the assignee read internal notes.
    let sam = app.user("sam").await;
    let bob = app.agent("bob").await;
    let facilities = users::ensure_group(&app.state.db.conn, "Facilities")
        .await
        .unwrap();
    let (ann_a, sam_a, bob_a) = (
        actor(app, &ann).await,
        actor(app, &sam).await,
        actor(app, &bob).await,
    );
    // Only the team assigns: bob opens it for ann.
    let t = create_ticket(
        &state,
        &bob_a,
        NewTicket {
            title: "Door stuck".into(),
            assignee_id: Some(sam.id),
            assigned_group_id: Some(facilities.id),
            requester_id: Some(ann.id),
            ..Default::default()
        },
    )
    .await;
    let deliver = async || {
        while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    };
    deliver().await;
    let (mut mails, mut hits) = (mailer.sent().len(), receiver.hits().len());
    let recipients = async |mails: &mut usize| {
        deliver().await;
        let sent = mailer.sent();
        let mut out: Vec<(String, String)> = sent[*mails..]
            .iter()
            .map(|e| (e.to.clone(), e.subject.clone()))
            .collect();
        *mails = sent.len();
        out.sort();
        out
    };

    // Bob's public reply: webhook with the comment id; mail to requester and assignee, not Bob.
    let public = comment(
        &state,
        &bob_a,
        t.id,
        "Technician on the way",
        CommentType::Public,
    )
    .await;
    let subject = "New Comment: Door stuck (TKT-001)".to_string();
    assert_eq!(
        recipients(&mut mails).await,
        [
            ("ann@example.com".to_string(), subject.clone()),
            ("sam@example.com".to_string(), subject.clone()),
        ]
    );
    let new_hits = receiver.hits()[hits..].to_vec();
    hits = receiver.hits().len();
    assert_eq!(new_hits.len(), 1);
    let body: serde_json::Value = serde_json::from_str(&new_hits[0].body).unwrap();
    assert_eq!(body["event"], "comment.created");
    assert_eq!(body["ticket_id"], t.id);
    assert_eq!(body["comment_id"], public);

    // Ann's own reply is mailed to the assignee only.
    comment(&state, &ann_a, t.id, "Thanks", CommentType::Public).await;
    assert_eq!(
        recipients(&mut mails).await,
        [("sam@example.com".to_string(), subject.clone())]
    );
    assert_eq!(
        receiver.hits().len(),
        hits + 1,
        "public comments send a webhook"
    );
    hits += 1;

    // Bob's internal note: no webhook; mail to the assignee only, never the requester.
    comment(
        &state,
        &bob_a,
        t.id,
        "SECRET: lock is broken",
        CommentType::Internal,
    )
    .await;
    assert_eq!(
        recipients(&mut mails).await,
        [(
            "sam@example.com".to_string(),
            "New Internal Note: Door stuck (TKT-001)".to_string()
        )]
    );
    assert_eq!(
        receiver.hits().len(),
        hits,
        "internal notes send no webhook"
    );
    // The assignee's own internal note reaches nobody (the author is never mailed).
    comment(
        &state,
        &sam_a,
        t.id,
        "SECRET: ordered a lock",
        CommentType::Internal,
    )
    .await;
    assert_eq!(recipients(&mut mails).await, []);
    assert!(mailer
        .sent()
        .iter()
        .all(|e| e.to != "ann@example.com" || !e.text.contains("SECRET")));
    assert!(receiver.hits().iter().all(|h| !h.body.contains("SECRET")));
}

db_test!(a_refused_comment_sends_nothing);
async fn a_refused_comment_sends_nothing(app: &TestApp) {
    let (state, _) = state_with(app, |c| {
        c.webhook_url = Some("http://127.0.0.1:9/hook".into())
    });
    let ann = app.user("ann").await;
    let ann_a = actor(app, &ann).await;
    let t = create_ticket(&state, &ann_a, titled("Door stuck")).await;
    let before = outbox_rows(app).await.len();
    let refused = comments::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &ann_a,
        t.id,
        NewComment {
            body: "note".into(),
            comment_type: CommentType::Internal,
        },
    )
    .await;
    assert!(refused.is_err());
    assert_eq!(outbox_rows(app).await.len(), before);
}
