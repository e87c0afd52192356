//! What a viewer may match is what they may read: internal notes count for the team, the assignee and the
//! assigned group only — for the hit, the count, the rank and the highlights alike.
use super::{hits, nodes};
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::world::{add, world};
use deskgraph::domain::CommentType;
use deskgraph::service::tickets::{self, NewTicket};

const CANARY: &str = "zebracanary";

async fn internal_notes_are_matched_only_by_those_who_may_read_them(app: &TestApp) {
    let w = world(app).await;
    let note = format!("<p>Vendor escalation {CANARY}, printer firmware is broken.</p>");
    add(app, &w.agent, w.ticket.id, &note, CommentType::Internal).await;
    let said = "<p>The printer was switched off and on.</p>";
    add(app, &w.agent, w.ticket.id, said, CommentType::Public).await;
    let id = i64::from(w.ticket.id);

    // The owner: no hit, no count.
    assert_eq!(hits(app, &w.owner, CANARY).await, (vec![], 0));
    assert_eq!(
        hits(app, &w.owner, &format!("printer {CANARY}")).await,
        (vec![], 0)
    );
    assert_eq!(
        hits(app, &w.owner, &format!("\"{CANARY}\" or printer")).await,
        (vec![id], 1)
    );
    // Those who may read the note find the ticket by it: the team, the assignee, the assigned group.
    for who in [&w.agent, &w.staff, &w.admin, &w.assignee, &w.grouper] {
        assert_eq!(
            hits(app, who, CANARY).await,
            (vec![id], 1),
            "{}",
            who.username
        );
    }
    // Another requester sees nothing of the ticket.
    assert_eq!(hits(app, &w.other, "printer").await, (vec![], 0));

    // Highlights come from what the viewer may read.
    let owner = nodes(app, &w.owner, "printer firmware or printer").await;
    assert_eq!(owner.len(), 1);
    let shown = owner[0]["highlights"].to_string();
    assert!(shown.contains("<mark>Printer</mark> on fire"), "{shown}");
    assert!(shown.contains("switched off"), "{shown}");
    for secret in [CANARY, "escalation", "Vendor"] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    let agent = nodes(app, &w.agent, CANARY).await;
    let shown = agent[0]["highlights"].to_string();
    assert!(shown.contains(&format!("<mark>{CANARY}</mark>")), "{shown}");
}
db_test!(internal_notes_are_matched_only_by_those_who_may_read_them);

async fn internal_notes_move_no_rank_for_those_who_may_not_read_them(app: &TestApp) {
    let w = world(app).await;
    let deps = || app.state.write_deps(deskgraph::domain::Channel::System);
    let agent = crate::support::world::actor(app, &w.agent).await;
    let mut made = Vec::new();
    for _ in 0..2 {
        let t = tickets::create(
            deps(),
            &agent,
            NewTicket {
                title: "Scanner offline".into(),
                description: Some("<p>The scanner shows offline.</p>".into()),
                requester_id: Some(w.owner.id),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        made.push(t.id);
    }
    // Unrelated tickets, so that the words are rare enough to weigh (bm25 gives no weight to a word in
    // half of the documents).
    for i in 0..6 {
        let title = format!("Unrelated request {i}");
        crate::support::graphql::simple_ticket(app, &w.agent, &title).await;
    }
    let noted = "<p>scanner scanner scanner offline offline</p>";
    add(app, &w.agent, made[0], noted, CommentType::Internal).await;
    let score = |list: &[serde_json::Value], id: i32| {
        list.iter()
            .find(|n| n["ticket"]["databaseId"] == id)
            .and_then(|n| n["score"].as_f64())
            .unwrap()
    };
    let owner = nodes(app, &w.owner, "scanner offline").await;
    let (noted, plain) = (score(&owner, made[0]), score(&owner, made[1]));
    assert!(
        ((noted - plain) / plain).abs() < 1e-6,
        "the owner's scores differ: {noted} against {plain}"
    );
    // For the team the note is part of the ticket, and its scores differ (which way is the engine's
    // weighing of more matches against a longer text).
    let team = nodes(app, &w.agent, "scanner offline").await;
    let (noted, plain) = (score(&team, made[0]), score(&team, made[1]));
    assert!(
        ((noted - plain) / plain).abs() > 1e-3,
        "the team's scores are the same: {noted} against {plain}"
    );
}
db_test!(internal_notes_move_no_rank_for_those_who_may_not_read_them);
