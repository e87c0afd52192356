//! GraphiQL in headless Chromium with every outside host unresolvable: it loads from the service alone,
//! runs a query as the signed-in user without a pasted token, and a page of another site cannot use that
//! session to run a mutation. Skipped like `browser.rs` without a browser.
use crate::support::browser::{eventually, in_chromium, sign_in, wait_for};
use crate::support::helpers::TestApp;
use fantoccini::Client;
use serde_json::{json, Value};

/// Put `query` into GraphiQL's editor and press its run button.
async fn run(client: &Client, query: &str) {
    let script = "const editor = document.querySelector('.graphiql-query-editor .CodeMirror');\
                  editor.CodeMirror.setValue(arguments[0]);\
                  document.querySelector('.graphiql-execute-button').click();";
    client.execute(script, vec![json!(query)]).await.unwrap();
}

/// What GraphiQL's result pane shows.
async fn result(client: &Client) -> String {
    let text = client
        .execute(
            "const pane = document.querySelector('.graphiql-response .CodeMirror');\
             return pane ? pane.CodeMirror.getValue() : '';",
            vec![],
        )
        .await
        .unwrap();
    text.as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graphiql_works_offline_as_the_signed_in_user_in_chromium() {
    let app = TestApp::sqlite().await;
    let rita = app.user("rita").await;
    in_chromium(&app, |client, base| async move {
        sign_in(&client, &base, "rita").await;
        client.goto(&format!("{base}/graphql")).await.unwrap();
        wait_for(&client, ".graphiql-query-editor .CodeMirror").await;
        run(&client, "{ me { username } }").await;
        eventually("GraphiQL to show the answer", || async {
            result(&client).await.contains("\"username\": \"rita\"")
        })
        .await;
        // Everything the page loaded came from the service.
        let loaded: Value = client
            .execute(
                "return performance.getEntriesByType('resource').map(e => e.name);",
                vec![],
            )
            .await
            .unwrap();
        let loaded = loaded.as_array().unwrap();
        assert!(loaded.len() >= 5, "{loaded:?}");
        for url in loaded {
            let url = url.as_str().unwrap();
            assert!(
                url.starts_with(&base) || url.starts_with("data:"),
                "loaded from elsewhere: {url}"
            );
        }

        // A page of another site (localhost is another site than 127.0.0.1) tries the session: its
        // fetch cannot carry the CSRF header past CORS, and without it the cookie authenticates nothing.
        let other = base.replace("127.0.0.1", "localhost");
        client.goto(&format!("{other}/accounts/login/")).await.unwrap();
        let outcome = client
            .execute_async(
                "const done = arguments[arguments.length - 1];\
                 const target = arguments[0] + '/graphql';\
                 const create = JSON.stringify({query: 'mutation { createTicket(input: {title: \"forged\"}) { ticket { id } } }'});\
                 const tries = [\
                   fetch(target, {method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json', 'X-CSRFToken': 'guess'}, body: create}).then(r => 'json:' + r.status, e => 'json:blocked'),\
                   fetch(target, {method: 'POST', credentials: 'include', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: create}).then(r => 'plain:' + r.type, e => 'plain:blocked'),\
                 ];\
                 Promise.all(tries).then(done);",
                vec![json!(base)],
            )
            .await
            .unwrap();
        assert!(outcome.to_string().contains("json:blocked"), "{outcome}");
    })
    .await;
    let tickets = app.as_user(&rita).get("/api/tickets/").await;
    assert_eq!(tickets.json["count"], 0, "{}", tickets.text);
}
