//! Merging a duplicate into its original: what moves (comments with their authors and times, files, time,
//! tags, followers, links), what the merged ticket answers afterwards through REST, GraphQL and the web, who
//! may merge, the errors, replies and comments that reach a merged ticket, and merges racing comments and
//! each other.
use crate::db_test;
use crate::support::events::{hooked, outbox_rows, state_with, Mode, Receiver};
use crate::support::helpers::{assert_error, TestApp, TestUser};
use axum::http::StatusCode;
use serde_json::{json, Value};

async fn ticket(app: &TestApp, who: &TestUser, title: &str) -> i64 {
    app.as_user(who).ticket_titled(title).await["id"]
        .as_i64()
        .unwrap()
}

async fn merge(
    app: &TestApp,
    who: &TestUser,
    id: i64,
    into: Value,
) -> crate::support::helpers::TestResponse {
    app.as_user(who)
        .post(
            &format!("/api/tickets/{id}/merge/"),
            json!({ "into": into }),
        )
        .await
}

async fn comment(app: &TestApp, who: &TestUser, id: i64, body: &str, kind: &str) -> Value {
    let r = app
        .as_user(who)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": body, "comment_type": kind}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.json
}

/// The comments of ticket `id` as `who` reads them: (text, author user name, created_at).
async fn comments(app: &TestApp, who: &TestUser, id: i64) -> Vec<(String, String, String)> {
    let r = app
        .as_user(who)
        .get(&format!("/api/tickets/{id}/comments/"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let list = r.json.get("results").unwrap_or(&r.json).clone();
    list.as_array()
        .unwrap_or_else(|| panic!("no comments in {}", r.text))
        .iter()
        .map(|c| {
            (
                c["content"].as_str().unwrap().to_string(),
                c["author"]["username"].as_str().unwrap_or("").to_string(),
                c["created_at"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

db_test!(a_duplicate_is_merged_with_everything_it_holds);
async fn a_duplicate_is_merged_with_everything_it_holds(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let paul = app.user("paul").await;
    let original = ticket(app, &sam, "Printer jams").await;
    let duplicate = ticket(app, &rita, "Printer on 3 jams again").await;
    let blocker = ticket(app, &agent, "Toner order").await;
    let said = comment(app, &rita, duplicate, "<p>Third time today.</p>", "public").await;
    comment(
        app,
        &agent,
        duplicate,
        "<p>Probably the fuser.</p>",
        "internal",
    )
    .await;
    let as_agent = app.as_user(&agent);
    let tagged = as_agent
        .post(
            &format!("/api/tickets/{duplicate}/tags/"),
            json!({"tags": ["printer", "floor 3"]}),
        )
        .await;
    assert_eq!(tagged.status, StatusCode::OK, "{}", tagged.text);
    let cc = app
        .as_user(&rita)
        .post(
            &format!("/api/tickets/{duplicate}/followers/"),
            json!({"user": paul.id}),
        )
        .await;
    assert_eq!(cc.status, StatusCode::CREATED, "{}", cc.text);
    let logged = as_agent
        .post(
            &format!("/api/tickets/{duplicate}/time/"),
            json!({"minutes": 15}),
        )
        .await;
    assert_eq!(logged.status, StatusCode::CREATED, "{}", logged.text);
    let linked = as_agent
        .post(
            &format!("/api/tickets/{duplicate}/links/"),
            json!({"type": "blocked_by", "ticket": blocker}),
        )
        .await;
    assert_eq!(linked.status, StatusCode::CREATED, "{}", linked.text);
    let between = as_agent
        .post(
            &format!("/api/tickets/{duplicate}/links/"),
            json!({"type": "duplicate_of", "ticket": original}),
        )
        .await;
    assert_eq!(between.status, StatusCode::CREATED, "{}", between.text);

    // Who may not: the requester of either (403), someone who cannot see it (404).
    assert_error(
        &merge(app, &rita, duplicate, json!(original)).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_error(
        &merge(app, &sam, duplicate, json!(original)).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    let done = merge(app, &agent, duplicate, json!(original)).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.text);
    let agent_ref = &agent;
    let number = |id: i64| async move {
        app.as_user(agent_ref)
            .get(&format!("/api/tickets/{id}/"))
            .await
            .json["ticket_number"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (original_number, duplicate_number) = (number(original).await, number(duplicate).await);
    assert_eq!(
        done.json,
        json!({"id": duplicate, "ticket_number": duplicate_number, "status": "closed",
               "merged_into": {"id": original, "ticket_number": original_number}})
    );

    // The merged ticket: closed, pointing to the original, to its requester too.
    let seen = app
        .as_user(&rita)
        .get(&format!("/api/tickets/{duplicate}/"))
        .await;
    assert_eq!(seen.status, StatusCode::OK, "{}", seen.text);
    assert_eq!(seen.json["status"], "closed");
    assert_eq!(
        seen.json["merged_into"],
        json!({"id": original, "ticket_number": original_number})
    );
    assert_eq!(seen.json["comments_count"], 1, "{}", seen.text);
    // An unmerged ticket's detail is the contract's, without the key.
    let plain = as_agent.get(&format!("/api/tickets/{blocker}/")).await;
    assert!(plain.json.get("merged_into").is_none(), "{}", plain.text);
    assert_eq!(
        comments(app, &rita, duplicate).await,
        [(
            format!("<p>This ticket was merged into {original_number}.</p>"),
            "agnes".to_string(),
            comments(app, &rita, duplicate).await[0].2.clone()
        )]
    );

    // The original holds the comments, with their authors and times, and everything else.
    let moved = comments(app, &agent, original).await;
    let texts: Vec<(&str, &str)> = moved
        .iter()
        .map(|(t, a, _)| (t.as_str(), a.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("<p>Third time today.</p>", "rita"),
            ("<p>Probably the fuser.</p>", "agnes"),
            (
                format!("<p>{duplicate_number} was merged into this ticket.</p>").as_str(),
                "agnes"
            ),
        ]
    );
    assert_eq!(moved[0].2, said["created_at"].as_str().unwrap());
    let detail = as_agent.get(&format!("/api/tickets/{original}/")).await;
    assert_eq!(detail.json["comments_count"], 3, "{}", detail.text);
    let sams = app
        .as_user(&sam)
        .get(&format!("/api/tickets/{original}/"))
        .await;
    assert_eq!(sams.json["comments_count"], 2, "{}", sams.text);
    assert_eq!(
        as_agent
            .get(&format!("/api/tickets/{original}/tags/"))
            .await
            .json["tags"],
        json!(["floor 3", "printer"])
    );
    let followers = as_agent
        .get(&format!("/api/tickets/{original}/followers/"))
        .await;
    let mut names: Vec<&str> = followers
        .json
        .as_array()
        .unwrap_or_else(|| panic!("{}", followers.text))
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["paul", "rita"]);
    assert_eq!(
        as_agent
            .get(&format!("/api/tickets/{original}/time/"))
            .await
            .json["total_minutes"],
        15
    );
    let links = as_agent
        .get(&format!("/api/tickets/{original}/links/"))
        .await;
    let links: Vec<(&str, i64)> = links
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["type"].as_str().unwrap(),
                l["ticket"]["id"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        links,
        [("blocked_by", blocker)],
        "the link between the two went"
    );
    assert_eq!(
        as_agent
            .get(&format!("/api/tickets/{duplicate}/links/"))
            .await
            .json,
        json!([])
    );

    // The original's requester still cannot read the merged one's internal note; the merged one's requester
    // cannot see the original, but their comment on the merged ticket lands there.
    let later = comment(app, &rita, duplicate, "<p>Still jamming.</p>", "public").await;
    assert_eq!(later["ticket"], original, "{later}");
    assert_eq!(
        app.as_user(&rita)
            .get(&format!("/api/tickets/{original}/"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert!(comments(app, &agent, original)
        .await
        .iter()
        .any(|(t, a, _)| t == "<p>Still jamming.</p>" && a == "rita"));

    // Both histories tell of it.
    let history = |id: i64| async move {
        app.as_user(agent_ref)
            .graphql_data(
                "query($n: Int!) { ticket(databaseId: $n) { history(first: 50) { nodes { action changes } } } }",
                json!({ "n": id }),
            )
            .await["ticket"]["history"]["nodes"]
            .clone()
    };
    let merged_records = |h: Value, key: &str| {
        h.as_array()
            .unwrap()
            .iter()
            .filter(|n| n["action"] == "merge")
            .map(|n| n["changes"][key][1].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        merged_records(history(duplicate).await, "merged_into"),
        [json!(original_number)]
    );
    assert_eq!(
        merged_records(history(original).await, "merged_from"),
        [json!(duplicate_number)]
    );

    // Once merged: a second merge is a conflict, a change is refused, and nothing merges into it.
    let third = ticket(app, &agent, "Another").await;
    assert_error(
        &merge(app, &agent, duplicate, json!(third)).await,
        StatusCode::CONFLICT,
        "conflict",
    );
    let into_merged = merge(app, &agent, third, json!(duplicate)).await;
    assert_error(&into_merged, StatusCode::BAD_REQUEST, "validation_error");
    assert!(into_merged.json["details"]["into"][0]
        .as_str()
        .unwrap()
        .contains("merged"));
    let reopen = as_agent
        .patch(
            &format!("/api/tickets/{duplicate}/"),
            json!({"status": "open"}),
        )
        .await;
    assert_error(&reopen, StatusCode::CONFLICT, "conflict");
    for (into, why) in [(json!(third), "itself"), (json!(999_999), "does not exist")] {
        let refused = merge(app, &agent, third, into).await;
        assert_error(&refused, StatusCode::BAD_REQUEST, "validation_error");
        assert!(
            refused.json["details"]["into"][0]
                .as_str()
                .unwrap()
                .contains(why),
            "{}",
            refused.text
        );
    }
    for bad in [json!("x"), json!(null), json!(-1)] {
        assert_error(
            &merge(app, &agent, third, bad).await,
            StatusCode::BAD_REQUEST,
            "validation_error",
        );
    }
}

db_test!(graphql_merges_and_points_to_the_target);
async fn graphql_merges_and_points_to_the_target(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let original = ticket(app, &sam, "VPN down").await;
    let duplicate = ticket(app, &rita, "No VPN").await;
    let gid = |id: i64| deskgraph::graphql::ids::encode("Ticket", id as i32).to_string();
    let mutation = "mutation($id: ID!, $into: ID!) { mergeTicket(input: {id: $id, into: $into}) {
        ticket { databaseId status mergedInto { databaseId } } into { databaseId commentsCount } } }";
    let refused = app
        .as_user(&rita)
        .graphql(
            mutation,
            json!({"id": gid(duplicate), "into": gid(original)}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{}",
        refused
    );
    let done = app
        .as_user(&agent)
        .graphql_data(
            mutation,
            json!({"id": gid(duplicate), "into": gid(original)}),
        )
        .await;
    assert_eq!(
        done["mergeTicket"],
        json!({"ticket": {"databaseId": duplicate, "status": "CLOSED", "mergedInto": {"databaseId": original}},
               "into": {"databaseId": original, "commentsCount": 1}})
    );
    let again = app
        .as_user(&agent)
        .graphql(
            mutation,
            json!({"id": gid(duplicate), "into": gid(original)}),
        )
        .await;
    assert_eq!(
        again["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{}",
        again
    );
    // The merged ticket's requester sees their ticket but not the one it went into.
    let query = "query($n: Int!) { ticket(databaseId: $n) { status mergedInto { databaseId } } }";
    assert_eq!(
        app.as_user(&rita)
            .graphql_data(query, json!({"n": duplicate}))
            .await["ticket"],
        json!({"status": "CLOSED", "mergedInto": null})
    );
    assert_eq!(
        app.as_user(&agent)
            .graphql_data(query, json!({"n": duplicate}))
            .await["ticket"]["mergedInto"],
        json!({"databaseId": original})
    );
}

const MERGE_SEVERAL: &str = "mutation($s: [ID!]!, $t: ID!) { mergeTickets(input: {sourceIds: $s, targetId: $t}) {
    tickets { databaseId status mergedInto { databaseId } } target { databaseId commentsCount } } }";

async fn merge_several(app: &TestApp, who: &TestUser, vars: Value) -> Value {
    app.as_user(who).graphql(MERGE_SEVERAL, vars).await
}

db_test!(graphql_merges_several_into_one_all_or_none);
/// `mergeTickets(input: {sourceIds, targetId})`, as the names list has it: several duplicates in one request,
/// every one or none.
async fn graphql_merges_several_into_one_all_or_none(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let original = ticket(app, &rita, "Printer offline").await;
    let first = ticket(app, &rita, "Printer does not print").await;
    let second = ticket(app, &rita, "Cannot print").await;
    let early = ticket(app, &rita, "Printing broken").await;
    let gid = |id: i64| deskgraph::graphql::ids::encode("Ticket", id as i32).to_string();
    let vars = |sources: Vec<i64>, target: i64| json!({"s": sources.into_iter().map(gid).collect::<Vec<_>>(), "t": gid(target)});
    let field_error = |body: &Value, field: &str| {
        assert_eq!(
            body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
            "{body}"
        );
        assert!(
            body["errors"][0]["extensions"]["fields"][field].is_array(),
            "{body}"
        );
    };
    field_error(
        &merge_several(app, &agent, vars(vec![], original)).await,
        "sourceIds",
    );
    field_error(
        &merge_several(app, &agent, vars(vec![first, first], original)).await,
        "sourceIds",
    );
    field_error(
        &merge_several(app, &agent, vars(vec![first, original], original)).await,
        "targetId",
    );
    field_error(
        &merge_several(app, &agent, vars(vec![first], 999_999)).await,
        "targetId",
    );
    let refused = merge_several(app, &rita, vars(vec![first, second], original)).await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );
    // One source merged already: nothing of the request is merged.
    assert_eq!(
        merge(app, &agent, early, json!(original)).await.status,
        StatusCode::OK
    );
    let failed = merge_several(app, &agent, vars(vec![first, early], original)).await;
    assert!(failed["errors"].is_array(), "{failed}");
    let state = "query($n: Int!) { ticket(databaseId: $n) { status mergedInto { databaseId } } }";
    assert_eq!(
        app.as_user(&agent)
            .graphql_data(state, json!({"n": first}))
            .await["ticket"],
        json!({"status": "NEW", "mergedInto": null}),
        "all or none"
    );
    // Both, in the order asked.
    let done = app
        .as_user(&agent)
        .graphql_data(
            MERGE_SEVERAL,
            json!({"s": [gid(second), gid(first)], "t": gid(original)}),
        )
        .await;
    let merged = |id: i64| json!({"databaseId": id, "status": "CLOSED", "mergedInto": {"databaseId": original}});
    assert_eq!(
        done["mergeTickets"],
        json!({"tickets": [merged(second), merged(first)],
               "target": {"databaseId": original, "commentsCount": 3}})
    );
}

db_test!(a_merge_is_announced_by_webhook_and_to_each_requester);
async fn a_merge_is_announced_by_webhook_and_to_each_requester(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let agent = crate::support::clients::actor(app, &app.agent("agnes").await).await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let original = ticket(app, &sam, "One").await as i32;
    let duplicate = ticket(app, &rita, "Two").await as i32;
    let deps = state.write_deps(deskgraph::domain::Channel::Rest);
    let merged = deskgraph::service::tickets::merge(
        deps,
        &agent,
        duplicate,
        deskgraph::service::tickets::MergeTarget::Id(original),
    )
    .await
    .unwrap();
    assert_eq!(merged.source.merged_into_id, Some(original));
    let rows = outbox_rows(app).await;
    let hooks: Vec<Value> = rows
        .iter()
        .filter(|r| r.event == "ticket.merged")
        .map(|r| serde_json::from_str(&r.payload).unwrap())
        .collect();
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    assert_eq!(
        (&hooks[0]["ticket_id"], &hooks[0]["merged_into"]),
        (&json!(duplicate), &json!(original))
    );
    // Each requester hears of it by email, in a comment on their own ticket.
    let mailed: Vec<String> = rows
        .iter()
        .filter(|r| r.event == "comment.created" && r.kind == entity::values::JobKind::Email)
        .map(|r| r.payload.clone())
        .collect();
    for who in ["rita@example.com", "sam@example.com"] {
        assert!(
            mailed.iter().any(|p| p.contains(who)),
            "{who} not mailed: {mailed:?}"
        );
    }
}

db_test!(a_reply_to_a_merged_ticket_lands_on_the_one_it_went_into);
async fn a_reply_to_a_merged_ticket_lands_on_the_one_it_went_into(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let (state, _mailer) = state_with(app, |_| {});
    let original = ticket(app, &agent, "Outage").await;
    let duplicate = ticket(app, &rita, "Cannot log in").await;
    let number = app
        .as_user(&rita)
        .get(&format!("/api/tickets/{duplicate}/"))
        .await
        .json["ticket_number"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        merge(app, &agent, duplicate, json!(original)).await.status,
        StatusCode::OK
    );
    let raw = format!(
        "From: rita@example.com\r\nTo: help@example.com\r\nSubject: Re: [{number}] Cannot log in\r\n\
         Message-ID: <reply-1@mail.example.com>\r\n\r\nWorks again after a restart.\r\n"
    );
    let received = deskgraph::service::mail_in::receive(
        state.write_deps(deskgraph::domain::Channel::Email),
        state.people_deps(),
        state.storage.as_ref(),
        raw.as_bytes(),
        None,
    )
    .await
    .unwrap();
    match received {
        Ok(deskgraph::service::mail_in::Received::Comment { ticket, .. }) => {
            assert_eq!(i64::from(ticket), original)
        }
        other => panic!("not a comment: {other:?}"),
    }
    assert!(comments(app, &agent, original)
        .await
        .iter()
        .any(|(t, a, _)| t.contains("Works again") && a == "rita"));
}

db_test!(comments_racing_a_merge_all_end_on_the_target);
async fn comments_racing_a_merge_all_end_on_the_target(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let original = ticket(app, &agent, "Original").await;
    let duplicate = ticket(app, &rita, "Duplicate").await;
    let writers = (0..6).map(|i| {
        let rita = &rita;
        async move {
            app.as_user(rita)
                .post(
                    &format!("/api/tickets/{duplicate}/comments/"),
                    json!({"content": format!("<p>note {i}</p>")}),
                )
                .await
        }
    });
    let (written, merged) = tokio::join!(
        futures_util::future::join_all(writers),
        merge(app, &agent, duplicate, json!(original))
    );
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    for w in &written {
        assert_eq!(w.status, StatusCode::CREATED, "{}", w.text);
    }
    let on_target = comments(app, &agent, original).await;
    for i in 0..6 {
        let text = format!("<p>note {i}</p>");
        assert!(
            on_target.iter().any(|(t, _, _)| *t == text),
            "{text} is not on the target: {on_target:?}"
        );
    }
    let left = comments(app, &agent, duplicate).await;
    assert_eq!(left.len(), 1, "only the notice stays: {left:?}");
    let counted = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{original}/"))
        .await;
    assert_eq!(counted.json["comments_count"], 7, "{}", counted.text);
}

db_test!(two_merges_of_one_ticket_one_wins);
async fn two_merges_of_one_ticket_one_wins(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let a = ticket(app, &agent, "A").await;
    let b = ticket(app, &agent, "B").await;
    let c = ticket(app, &agent, "C").await;
    // The same ticket into two others, and two tickets into each other, at once.
    let (one, two, three) = tokio::join!(
        merge(app, &agent, a, json!(b)),
        merge(app, &agent, a, json!(c)),
        merge(app, &agent, b, json!(a)),
    );
    let statuses = [one.status, two.status, three.status];
    let won = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    assert!(won >= 1, "{statuses:?}");
    for r in [&one, &two, &three] {
        assert!(
            [
                StatusCode::OK,
                StatusCode::CONFLICT,
                StatusCode::BAD_REQUEST
            ]
            .contains(&r.status),
            "{} {}",
            r.status,
            r.text
        );
    }
    assert!(
        !(one.status == StatusCode::OK && two.status == StatusCode::OK),
        "one ticket was merged twice"
    );
    // Whatever won, no ticket points at one that points on, and none at itself.
    for id in [a, b, c] {
        let detail = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{id}/"))
            .await;
        if let Some(into) = detail.json["merged_into"]["id"].as_i64() {
            assert_ne!(into, id);
            let target = app
                .as_user(&agent)
                .get(&format!("/api/tickets/{into}/"))
                .await;
            assert!(target.json.get("merged_into").is_none(), "{}", target.text);
        }
    }
}

db_test!(an_agent_merges_from_the_ticket_page);
async fn an_agent_merges_from_the_ticket_page(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let original = app.as_user(&agent).ticket_titled("Original").await;
    let duplicate = ticket(app, &rita, "Duplicate").await;
    let oid = original["id"].as_i64().unwrap();
    let onumber = original["ticket_number"].as_str().unwrap();
    let requester = crate::support::world::login(app, &rita).await;
    let own = requester.page(app, &format!("/tickets/{duplicate}/")).await;
    assert!(!own.text.contains("merge-form"), "{}", own.text);
    let refused = requester
        .form(
            app,
            &format!("/tickets/{duplicate}/merge/"),
            &[("into", onumber)],
        )
        .await;
    assert_eq!(refused.status, 403, "{}", refused.text);

    let browser = crate::support::world::login(app, &agent).await;
    let page = browser.page(app, &format!("/tickets/{duplicate}/")).await;
    assert!(page.text.contains("merge-form"), "{}", page.text);
    let unknown = browser
        .form(
            app,
            &format!("/tickets/{duplicate}/merge/"),
            &[("into", "TKT-99999")],
        )
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.text);
    let merged = browser
        .form(
            app,
            &format!("/tickets/{duplicate}/merge/"),
            &[("into", onumber)],
        )
        .await;
    assert_eq!(
        merged.headers.get("location").and_then(|l| l.to_str().ok()),
        Some(format!("/tickets/{oid}/").as_str()),
        "{}",
        merged.text
    );
    let target = browser.page(app, &format!("/tickets/{oid}/")).await;
    assert!(
        target.text.contains("was merged into this ticket"),
        "{}",
        target.text
    );
    assert!(target.text.contains("merged"), "{}", target.text);
    let source = requester.page(app, &format!("/tickets/{duplicate}/")).await;
    assert!(
        source.text.contains("id=\"merged-into\""),
        "{}",
        source.text
    );
    assert!(source.text.contains(onumber), "{}", source.text);
    // A merged ticket takes no changes, so its page offers none.
    let agents_view = browser.page(app, &format!("/tickets/{duplicate}/")).await;
    for gone in [
        "edit-form",
        "merge-form",
        "split-form",
        "assign-to-me",
        "/status/",
    ] {
        assert!(
            !agents_view.text.contains(gone),
            "{gone}: {}",
            agents_view.text
        );
    }
}

db_test!(chosen_comments_are_split_off_into_a_new_ticket);
async fn chosen_comments_are_split_off_into_a_new_ticket(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let original = ticket(app, &rita, "Printer and scanner").await;
    let other = ticket(app, &rita, "Something else").await;
    let first = comment(app, &rita, original, "<p>The printer jams.</p>", "public").await;
    let second = comment(
        app,
        &rita,
        original,
        "<p>Also the scanner is slow.</p>",
        "public",
    )
    .await;
    let note = comment(
        app,
        &agent,
        original,
        "<p>Scanner driver is old.</p>",
        "internal",
    )
    .await;
    let elsewhere = comment(app, &rita, other, "<p>Unrelated.</p>", "public").await;
    let id = |c: &Value| c["id"].as_i64().unwrap();
    let split = |who: &TestUser, body: Value| {
        let who = who.clone();
        async move {
            app.as_user(&who)
                .post(&format!("/api/tickets/{original}/split/"), body)
                .await
        }
    };
    assert_error(
        &split(&rita, json!({"comments": [id(&second)]})).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    for bad in [
        json!({"comments": []}),
        json!({"comments": [id(&second), id(&elsewhere)]}),
        json!({"comments": "7"}),
        json!({}),
    ] {
        assert_error(
            &split(&agent, bad).await,
            StatusCode::BAD_REQUEST,
            "validation_error",
        );
    }
    let made = split(&agent, json!({"comments": [id(&second), id(&note)]})).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let new_id = made.json["id"].as_i64().unwrap();
    let number = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{original}/"))
        .await
        .json["ticket_number"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        made.json["title"],
        format!("Printer and scanner (split from {number})")
    );
    let detail = app
        .as_user(&rita)
        .get(&format!("/api/tickets/{new_id}/"))
        .await;
    assert_eq!(
        detail.status,
        StatusCode::OK,
        "the requester keeps their ticket"
    );
    assert_eq!(detail.json["requester"]["username"], "rita");
    assert_eq!(detail.json["comments_count"], 1, "{}", detail.text);
    let moved = comments(app, &agent, new_id).await;
    let texts: Vec<(&str, &str)> = moved
        .iter()
        .map(|(t, a, _)| (t.as_str(), a.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("<p>Also the scanner is slow.</p>", "rita"),
            ("<p>Scanner driver is old.</p>", "agnes")
        ]
    );
    assert_eq!(moved[0].2, second["created_at"].as_str().unwrap());
    let kept = comments(app, &agent, original).await;
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].0, first["content"].as_str().unwrap());
    let links = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{new_id}/links/"))
        .await;
    assert_eq!(links.json[0]["type"], "relates_to", "{}", links.text);
    assert_eq!(links.json[0]["ticket"]["id"], original);

    // GraphQL, by the comments' global ids; the web form, by ticked boxes.
    let gid = |kind: &str, id: i64| deskgraph::graphql::ids::encode(kind, id as i32).to_string();
    let done = app
        .as_user(&agent)
        .graphql_data(
            "mutation($id: ID!, $c: [ID!]!) { splitTicket(input: {id: $id, commentIds: $c, title: \"Jams\"}) {
               ticket { title commentsCount } original { commentsCount } } }",
            json!({"id": gid("Ticket", original), "c": [gid("Comment", id(&first))]}),
        )
        .await;
    assert_eq!(
        done["splitTicket"],
        json!({"ticket": {"title": "Jams", "commentsCount": 1}, "original": {"commentsCount": 0}})
    );
    let again = comment(app, &rita, other, "<p>More.</p>", "public").await;
    let browser = crate::support::world::login(app, &agent).await;
    let page = browser.page(app, &format!("/tickets/{other}/")).await;
    assert!(page.text.contains("split-form"), "{}", page.text);
    let box_name = format!("split_{}", id(&again));
    let posted = browser
        .form(
            app,
            &format!("/tickets/{other}/split/"),
            &[(box_name.as_str(), "on"), ("title", "More")],
        )
        .await;
    assert_eq!(posted.status, 303, "{}", posted.text);
    let to = posted
        .headers
        .get("location")
        .and_then(|l| l.to_str().ok())
        .unwrap()
        .to_string();
    let new_page = browser.page(app, &to).await;
    assert!(new_page.text.contains("More."), "{}", new_page.text);
    assert!(
        new_page.text.contains("split this off"),
        "{}",
        new_page.text
    );
}

db_test!(an_internal_note_mailed_to_a_merged_ticket_the_sender_cannot_work_on_is_refused_once);
async fn an_internal_note_mailed_to_a_merged_ticket_the_sender_cannot_work_on_is_refused_once(
    app: &TestApp,
) {
    let agent = app.agent("agnes").await;
    let wanda = app.user("wanda").await;
    let (state, _mailer) = state_with(app, |_| {});
    let original = ticket(app, &agent, "Outage").await;
    let duplicate = ticket(app, &agent, "Printer").await;
    let assigned = app
        .as_user(&agent)
        .patch(
            &format!("/api/tickets/{duplicate}/"),
            json!({"assigned_to": wanda.id}),
        )
        .await;
    assert_eq!(assigned.status, StatusCode::OK, "{}", assigned.text);
    let number = assigned.json["ticket_number"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("TKT-{duplicate:03}"));
    assert_eq!(
        merge(app, &agent, duplicate, json!(original)).await.status,
        StatusCode::OK
    );
    let raw = format!(
        "From: wanda@example.com\r\nTo: help@example.com\r\nSubject: Re: [{number}] Printer\r\n\
         Message-ID: <note-1@mail.example.com>\r\n\r\n#internal The fuser again.\r\n"
    );
    let received = deskgraph::service::mail_in::receive(
        state.write_deps(deskgraph::domain::Channel::Email),
        state.people_deps(),
        state.storage.as_ref(),
        raw.as_bytes(),
        None,
    )
    .await
    .expect("a refusal, not a failure to retry");
    assert!(
        matches!(
            received,
            Err(deskgraph::service::mail_in::Refused::Sender(_))
        ),
        "{received:?}"
    );
    assert!(!comments(app, &agent, original)
        .await
        .iter()
        .any(|(t, _, _)| t.contains("fuser")));
}
