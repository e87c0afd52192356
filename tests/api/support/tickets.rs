use crate::support::helpers::{TestApp, TestUser};
use serde_json::Value;

/// Sorted keys of a JSON object.
pub fn keys(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    out.sort();
    out
}

/// Create a ticket over REST as `user`; panics unless 201. Returns the create body.
pub async fn create_ticket(app: &TestApp, user: &TestUser, body: Value) -> Value {
    app.as_user(user).create_ticket(body).await
}

/// The ticket path for an id in a JSON body.
pub fn path_of(ticket: &Value) -> String {
    format!("/api/tickets/{}/", ticket["id"])
}

/// The ids of a REST list page's results, in order.
pub fn result_ids(list: &Value) -> Vec<i64> {
    list["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect()
}
