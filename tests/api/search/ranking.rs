//! Ranking on a labelled corpus: for each query, the ticket a person would pick comes first.
use super::hits;
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::world::add;
use deskgraph::domain::CommentType;

/// Title and description of the corpus's tickets, numbered from 1 in the queries below.
const CORPUS: [(&str, &str); 24] = [
    (
        "VPN keeps dropping",
        "Since Monday the VPN client disconnects every ten minutes.",
    ),
    (
        "VPN access for new contractor",
        "Please grant VPN access to the contractor starting next week.",
    ),
    (
        "Printer jams on page two",
        "The third floor printer jams on every second page.",
    ),
    ("Order toner for the printer", "We are out of black toner."),
    (
        "Laptop battery swells",
        "The battery of my laptop is swollen and the case bends.",
    ),
    (
        "Outlook crashes when opening attachments",
        "Outlook closes itself whenever I open a PDF attachment.",
    ),
    (
        "Password reset for payroll system",
        "I forgot my password for the payroll system.",
    ),
    (
        "Wifi slow in meeting room B",
        "The wireless network in meeting room B is very slow in the afternoon.",
    ),
    (
        "Monitor flickers",
        "My second monitor flickers when the laptop is docked.",
    ),
    (
        "Keyboard missing keys",
        "The Q and W keys fell off my keyboard.",
    ),
    (
        "Cannot access shared drive",
        "Mapping the finance shared drive fails with access denied.",
    ),
    (
        "New hire onboarding: Maria Lopez",
        "Account, laptop and badge for Maria who starts on the first.",
    ),
    (
        "Projector in the boardroom shows no signal",
        "The HDMI cable seems fine but the projector shows no signal.",
    ),
    (
        "Phone extension forwarding",
        "Forward extension 2231 to my mobile while I travel.",
    ),
    (
        "Database backup failed overnight",
        "The nightly backup job of the CRM database failed with a disk full error.",
    ),
    (
        "Disk space low on file server",
        "The file server has less than 5% free disk space.",
    ),
    (
        "Two factor authentication token lost",
        "I lost my hardware token and cannot sign in.",
    ),
    (
        "Teams calls drop audio",
        "Audio drops out in Teams calls after a few minutes.",
    ),
    (
        "Request a second monitor",
        "I would like a second screen for my desk.",
    ),
    (
        "Badge does not open the garage",
        "My access badge no longer opens the garage door.",
    ),
    (
        "Excel macro error after update",
        "After the Office update, the budget macro fails with a runtime error.",
    ),
    (
        "Slow laptop after update",
        "Since the latest Windows update my laptop takes ages to boot.",
    ),
    (
        "Mouse double clicks",
        "The mouse registers a double click on every single click.",
    ),
    (
        "Email signature template",
        "Please update the company email signature with the new logo.",
    ),
];

/// A query and the corpus number of the ticket that must come first.
const FIRST: [(&str, usize); 30] = [
    ("vpn dropping", 1),
    ("vpn disconnects", 1),
    ("vpn access", 2),
    ("printer jammed", 3),
    ("printer", 3),
    ("toner", 4),
    ("swollen battery", 5),
    ("battery", 5),
    ("outlook attachment", 6),
    ("payroll password", 7),
    ("wifi meeting room", 8),
    ("flickering monitor", 9),
    ("monitor", 9),
    ("keyboard keys", 10),
    ("shared drive access denied", 11),
    ("onboarding maria", 12),
    ("projector no signal", 13),
    ("extension forwarding", 14),
    ("backup failed", 15),
    ("storage array", 15),
    ("disk space", 16),
    ("lost token", 17),
    ("teams audio", 18),
    ("headset firmware", 18),
    ("second monitor request", 19),
    ("garage badge", 20),
    ("macro runtime error", 21),
    ("slow laptop", 22),
    ("double click", 23),
    ("VPN KEEPS DROPPING", 1),
];

async fn the_expected_ticket_comes_first(app: &TestApp) {
    let agent = app.agent("adam").await;
    let requester = app.user("rita").await;
    let mut ids = Vec::new();
    for (title, description) in CORPUS {
        let t = app
            .as_user(&requester)
            .create_ticket(serde_json::json!({"title": title, "description": description}))
            .await;
        ids.push(t["id"].as_i64().unwrap());
    }
    let number = |n: usize| ids[n - 1];
    let said = "<p>The storage array was replaced.</p>";
    add(app, &agent, number(15) as i32, said, CommentType::Public).await;
    let said = "<p>Headset firmware updated.</p>";
    add(app, &agent, number(18) as i32, said, CommentType::Public).await;

    for (query, expected) in FIRST {
        let (found, _) = hits(app, &agent, query).await;
        assert_eq!(
            found.first(),
            Some(&number(expected)),
            "{query:?}: expected #{expected}, got {:?}",
            found
                .iter()
                .map(|id| ids.iter().position(|x| x == id).map(|i| i + 1))
                .collect::<Vec<_>>()
        );
        // The requester of every ticket finds the same, in the same order.
        assert_eq!(hits(app, &requester, query).await.0, found, "{query:?}");
    }
    // Phrases, alternatives and exclusions.
    assert_eq!(
        hits(app, &agent, "\"second page\"").await,
        (vec![number(3)], 1)
    );
    let (either, total) = hits(app, &agent, "toner or keyboard").await;
    assert_eq!(total, 2);
    let mut either = either;
    either.sort();
    assert_eq!(either, vec![number(4), number(10)]);
    let (updates, _) = hits(app, &agent, "update").await;
    assert!(updates.contains(&number(22)), "{updates:?}");
    let (updates, _) = hits(app, &agent, "update -laptop").await;
    assert!(updates.contains(&number(21)), "{updates:?}");
    assert!(!updates.contains(&number(22)), "{updates:?}");
    assert_eq!(hits(app, &agent, "-printer").await, (vec![], 0));
    assert_eq!(hits(app, &agent, "printer -printer").await, (vec![], 0));
}
db_test!(the_expected_ticket_comes_first);

async fn a_page_of_hits_reads_as_many_statements_for_few_as_for_many(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let query = "query { search(query: \"router\", first: 50) { totalCount nodes { score highlights
        ticket { title requester { username } assignee { username } commentsCount } } } }";
    let client = app.as_user(&rita);
    let make = |i: usize| {
        let body = serde_json::json!({"title": format!("Router {i} down"), "description": "The router blinks."});
        async move { client.create_ticket(body).await["id"].as_i64().unwrap() as i32 }
    };
    let mut made = Vec::new();
    for i in 0..3 {
        made.push(make(i).await);
    }
    add(
        app,
        &agent,
        made[0],
        "<p>Router replaced.</p>",
        CommentType::Public,
    )
    .await;
    app.graphql(
        Some(&agent.token),
        "{ me { username } }",
        serde_json::json!({}),
    )
    .await;
    let measure = || async {
        let before = app.statements();
        let body = app
            .graphql(Some(&agent.token), query, serde_json::json!({}))
            .await;
        let n = crate::support::graphql::data(&body)["search"]["nodes"]
            .as_array()
            .unwrap()
            .len();
        (app.statements() - before, n)
    };
    let (few, n) = measure().await;
    assert_eq!(n, 3);
    for i in 3..30 {
        let id = make(i).await;
        add(
            app,
            &agent,
            id,
            "<p>Router rebooted.</p>",
            CommentType::Internal,
        )
        .await;
    }
    let (many, n) = measure().await;
    assert_eq!(n, 30);
    assert_eq!(few, many, "statements for 3 hits against 30");
}
db_test!(a_page_of_hits_reads_as_many_statements_for_few_as_for_many);
