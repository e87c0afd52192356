//! The queue's search box: words list the ranked hits, best first, with where each matched; a part of a
//! word falls back to the substring search and says so; nobody sees a passage they may not read.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::world::{add, login};
use deskgraph::domain::CommentType;
use serde_json::json;

async fn the_queue_lists_the_best_match_first(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let as_rita = app.as_user(&rita);
    let (mut ids, mut numbers) = (Vec::new(), Vec::new());
    for (title, description) in [
        ("VPN access for a contractor", "Grant VPN access please."),
        (
            "VPN keeps dropping",
            "The tunnel disconnects every ten minutes.",
        ),
        ("Printer jams", "Paper is stuck in tray 2."),
    ] {
        let t = as_rita
            .create_ticket(json!({"title": title, "description": description}))
            .await;
        ids.push(t["id"].as_i64().unwrap() as i32);
        numbers.push(t["ticket_number"].as_str().unwrap().to_string());
    }
    let note = "<p>Routed to the firewall team: zebracanary.</p>";
    add(app, &agent, ids[1], note, CommentType::Internal).await;
    let said = "<p>It dropped again after lunch.</p>";
    add(app, &agent, ids[1], said, CommentType::Public).await;

    let browser = login(app, &agent).await;
    let row = |id: i32| format!(r#"data-ticket-id="{id}""#);
    let resp = browser.page(app, "/tickets/?q=vpn+dropping").await;
    assert_eq!(resp.status, 200, "{}", resp.text);
    let text = &resp.text;
    assert!(text.contains("best match first"), "{text}");
    assert!(text.contains(&row(ids[1])), "{text}");
    assert!(
        !text.contains(&row(ids[0])),
        "both words are needed: {text}"
    );
    assert!(text.contains("<mark>dropped</mark> again"), "{text}");
    // Either word: the one with both comes first.
    let resp = browser.page(app, "/tickets/?q=vpn+or+dropped").await;
    let (first, second) = (resp.text.find(&row(ids[1])), resp.text.find(&row(ids[0])));
    assert!(
        first.is_some() && second.is_some() && first < second,
        "{}",
        resp.text
    );

    // A part of a word: the substring search, said as such.
    let resp = browser.page(app, "/tickets/?q=prin").await;
    assert!(resp.text.contains(&row(ids[2])), "{}", resp.text);
    assert!(
        resp.text.contains("No ticket has all of these words"),
        "{}",
        resp.text
    );
    // More than the word search takes (words, characters): still the substring search, said as such.
    let many = format!("/tickets/?q=Paper{}", "+is".repeat(40));
    let resp = browser.page(app, &many).await;
    assert_eq!(resp.status, 200, "{}", resp.text);
    assert!(
        resp.text.contains("Too much for a word search"),
        "{}",
        resp.text
    );
    let long = format!("/tickets/?q=Printer{}", "x".repeat(1200));
    let resp = browser.page(app, &long).await;
    assert_eq!(resp.status, 200, "{}", resp.text);
    assert!(
        resp.text.contains("Too much for a word search"),
        "{}",
        resp.text
    );
    assert!(!resp.text.contains(&row(ids[2])), "{}", resp.text);
    // A ticket number still finds its ticket.
    let number = format!("/tickets/?q={}", numbers[2]);
    let resp = browser.page(app, &number).await;
    assert!(resp.text.contains(&row(ids[2])), "{}", resp.text);

    // The team finds the ticket by its internal note; its requester does not, nor reads the note.
    let resp = browser.page(app, "/tickets/?q=zebracanary").await;
    assert!(resp.text.contains(&row(ids[1])), "{}", resp.text);
    assert!(
        resp.text.contains("<mark>zebracanary</mark>"),
        "{}",
        resp.text
    );
    let requester = login(app, &rita).await;
    let resp = requester.page(app, "/tickets/?q=zebracanary").await;
    assert!(!resp.text.contains(&row(ids[1])), "{}", resp.text);
    let resp = requester
        .page(app, "/tickets/?q=vpn+firewall+or+dropping")
        .await;
    assert!(resp.text.contains(&row(ids[1])), "{}", resp.text);
    assert!(!resp.text.contains("firewall team"), "{}", resp.text);
}
db_test!(the_queue_lists_the_best_match_first);
