use crate::support::events::Receiver;
use crate::support::helpers::{TestApp, TestUser};
use chrono::{DateTime, Utc};
use deskgraph::jobs::worker;
use deskgraph::state::AppState;
use serde_json::{json, Value};

/// A policy open around the clock in UTC, so due times are plain arithmetic.
pub(crate) async fn around_the_clock(
    app: &TestApp,
    admin: &TestUser,
    name: &str,
    priority: &str,
    extra: Value,
) -> i32 {
    let mut input = json!({
        "name": name,
        "priority": priority,
        "firstResponseMinutes": 60,
        "resolutionMinutes": 240,
    });
    if let (Some(obj), Some(more)) = (input.as_object_mut(), extra.as_object()) {
        for (k, v) in more {
            obj.insert(k.clone(), v.clone());
        }
    }
    let created = create_policy(app, &admin.token, input).await;
    created["data"]["createSlaPolicy"]["slaPolicy"]["databaseId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{created}")) as i32
}

pub(crate) fn at(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("not a time: {v}")))
        .unwrap()
        .with_timezone(&Utc)
}

pub(crate) async fn sla_of(app: &TestApp, token: &str, id: i32) -> Value {
    let body = app
        .graphql(
            Some(token),
            "query($id: Int) { ticket(databaseId: $id) { createdAt sla { policy { name } \
             firstResponseDueAt resolutionDueAt firstResponseBreached resolutionBreached atRisk pausedSince } } }",
            json!({ "id": id }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
    body["data"]["ticket"].clone()
}

pub(crate) fn sla_hits(receiver: &Receiver) -> Vec<Value> {
    receiver
        .hits()
        .iter()
        .map(|h| serde_json::from_str::<Value>(&h.body).unwrap())
        .filter(|b| {
            b["event"]
                .as_str()
                .is_some_and(|e| e.starts_with("ticket.sla_"))
        })
        .collect()
}

pub(crate) async fn run_at(state: &AppState, now: DateTime<Utc>) {
    while worker::run_once_at(&state.delivery_deps(), now.timestamp_millis())
        .await
        .unwrap()
        > 0
    {}
}

pub const POLICY_FIELDS: &str =
    "id databaseId name priority projectId groupId firstResponseMinutes \
    resolutionMinutes calendar { timeZone hours { day open close } holidays } pauseStatuses";

pub async fn create_policy(app: &TestApp, token: &str, input: Value) -> Value {
    let query = format!(
        "mutation($input: CreateSlaPolicyInput!) {{ createSlaPolicy(input: $input) {{ slaPolicy {{ {POLICY_FIELDS} }} }} }}"
    );
    app.graphql(Some(token), &query, json!({ "input": input }))
        .await
}
