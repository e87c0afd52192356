//! Ranked full-text search (`search` in GraphQL): ranking on a labelled corpus, the query syntax and bad
//! input, what each viewer may match, and an index that follows every write.
mod index;
mod ranking;
mod syntax;
mod visibility;
mod web;

use crate::support::graphql::data;
use crate::support::helpers::{TestApp, TestUser};
use serde_json::{json, Value};

/// The search query every test sends.
pub const SEARCH: &str = "query($q: String!, $first: Int, $after: String) {
    search(query: $q, first: $first, after: $after) {
      totalCount pageInfo { hasNextPage endCursor }
      nodes { score highlights ticket { databaseId title } } } }";

/// The answer to `q` as `who`, errors and all.
pub async fn raw(app: &TestApp, who: &TestUser, q: &str) -> Value {
    app.graphql(Some(&who.token), SEARCH, json!({ "q": q }))
        .await
}

/// The hits of `q` as `who`: database ids, best first, and the total.
pub async fn hits(app: &TestApp, who: &TestUser, q: &str) -> (Vec<i64>, i64) {
    let body = raw(app, who, q).await;
    let found = &data(&body)["search"];
    let ids = found["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["ticket"]["databaseId"].as_i64().unwrap())
        .collect();
    (ids, found["totalCount"].as_i64().unwrap())
}

/// The hits of `q` as `who`, whole.
pub async fn nodes(app: &TestApp, who: &TestUser, q: &str) -> Vec<Value> {
    let body = raw(app, who, q).await;
    data(&body)["search"]["nodes"].as_array().unwrap().clone()
}
