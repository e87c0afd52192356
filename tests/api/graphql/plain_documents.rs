//! Every GraphQL document written in `tests/` goes through both paths: the string literals of the test
//! sources that parse as GraphQL documents are sent, as every kind of viewer, to an instance with plain
//! answers and to one without, and must give the same status and the same JSON. Not the same bytes:
//! where an object goes to the executor, async-graphql orders its keys as its fields finish (both
//! instances alike), so only documents whose objects are all plain have one byte order; those are
//! compared byte for byte in graphql_plain.rs. Mutations and subscriptions are left out
//! (running one twice is not the same request twice); their payload objects use the same definitions.
//! Documents assembled with `format!` around other values are not literals and are not scanned.
use crate::db_test;
use crate::support::graphql::ask;
use crate::support::graphql::{gid, project, ticket_as};
use crate::support::helpers::TestApp;
use crate::support::world::{add, world};
use async_graphql::parser::types::{BaseType, DocumentOperations, OperationType, Type};
use deskgraph::counters::{now, Window};
use deskgraph::domain::CommentType;
use deskgraph::service::tickets::NewTicket;
use serde_json::{json, Map, Value};

/// The string literals of a Rust source (plain and raw), unescaped enough for GraphQL text.
fn literals(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\'' if chars.get(i + 2) == Some(&'\'') => i += 3,
            '\'' if chars.get(i + 1) == Some(&'\\') => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            'r' if matches!(chars.get(i + 1), Some('#') | Some('"'))
                && (i == 0 || !chars[i - 1].is_alphanumeric() && chars[i - 1] != '_') =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                let open = i + 1 + hashes;
                if chars.get(open) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                let rest: String = chars[open + 1..].iter().collect();
                let end = rest.find(&close).unwrap_or(rest.len());
                found.push(rest[..end].to_owned());
                i = open + 1 + rest[..end].chars().count() + close.chars().count();
            }
            '"' => {
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                        match chars.get(i) {
                            Some('n') => text.push('\n'),
                            Some('\n') => {
                                while chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                                    i += 1;
                                }
                            }
                            Some(c) => text.push(*c),
                            None => {}
                        }
                    } else {
                        text.push(chars[i]);
                    }
                    i += 1;
                }
                found.push(text);
                i += 1;
            }
            _ => i += 1,
        }
    }
    found
}

/// Every query document in the test sources (a `format!` template without arguments counts, its doubled
/// braces undone), with its variable definitions.
fn query_documents() -> Vec<(String, Vec<(String, Type)>)> {
    let mut paths = Vec::new();
    let mut pending = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/api"
    ))];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let mut documents = Vec::new();
    for path in paths {
        let source = std::fs::read_to_string(&path).unwrap();
        for literal in literals(&source) {
            let text = literal.replace("{{", "{").replace("}}", "}");
            let Ok(doc) = async_graphql::parser::parse_query(&text) else {
                continue;
            };
            let operations: Vec<_> = match &doc.operations {
                DocumentOperations::Single(op) => vec![&op.node],
                DocumentOperations::Multiple(ops) => ops.values().map(|op| &op.node).collect(),
            };
            if operations.len() != 1 || operations[0].ty != OperationType::Query {
                continue;
            }
            let vars = operations[0]
                .variable_definitions
                .iter()
                .map(|v| (v.node.name.node.to_string(), v.node.var_type.node.clone()))
                .collect();
            if !documents.iter().any(|(d, _)| *d == text) {
                documents.push((text, vars));
            }
        }
    }
    documents
}

/// Ids of the records the documents may ask about.
struct Ids {
    ticket: i32,
    comment: i32,
    user: i32,
    project: i32,
}

/// A value for a variable, chosen by its type and name so that it names a record that exists.
fn value(name: &str, ty: &Type, ids: &Ids) -> Option<Value> {
    let name = name.to_lowercase();
    Some(match &ty.base {
        BaseType::List(inner) => json!([value(&name, inner, ids)?]),
        BaseType::Named(named) => match named.as_str() {
            "ID" if name.contains("comment") => json!(gid("Comment", ids.comment)),
            "ID" if name.contains("user") || name.contains("person") => {
                json!(gid("User", ids.user))
            }
            "ID" if name.contains("project") => json!(gid("Project", ids.project)),
            "ID" => json!(gid("Ticket", ids.ticket)),
            "Int" if name.contains("first") || name.contains("last") => json!(5),
            "Int" => json!(ids.ticket),
            "String" => json!("printer"),
            "Boolean" => json!(true),
            _ => return None,
        },
    })
}

async fn every_query_document_in_the_tests_answers_alike(app: &TestApp) {
    let documents = query_documents();
    assert!(documents.len() >= 60, "found {} documents", documents.len());
    let w = world(app).await;
    let (general_state, executor) = app
        .second_instance_with(|config| config.graphql_plain = false)
        .await;
    let hardware = project(app, "Hardware").await;
    let other = ticket_as(
        app,
        &w.agent,
        NewTicket {
            title: "Printer jam".into(),
            project_id: Some(hardware.id),
            assignee_id: Some(w.agent.id),
            requester_id: Some(w.other.id),
            ..Default::default()
        },
    )
    .await;
    let comment = add(app, &w.owner, w.ticket.id, "hello", CommentType::Public).await;
    add(app, &w.agent, w.ticket.id, "SECRET", CommentType::Internal).await;
    add(app, &w.other, other.id, "mine", CommentType::Public).await;
    let ids = Ids {
        ticket: w.ticket.id,
        comment: comment.id,
        user: w.other.id,
        project: hardware.id,
    };
    let viewers = [&w.owner, &w.other, &w.grouper, &w.agent, &w.admin];
    for (doc, vars) in &documents {
        let vars: Map<String, Value> = vars
            .iter()
            .filter_map(|(name, ty)| Some((name.clone(), value(name, ty, &ids)?)))
            .collect();
        let vars = Value::Object(vars);
        for viewer in viewers {
            // Each instance counts the viewer's points in its own memory: both start each pair from nothing,
            // and a pair that straddles the turn of an hour (a new budget window on one side only, which
            // `rateLimit` shows) is asked again.
            let (plain, general) = loop {
                let hour = Window::HOUR.reset(now());
                let key = format!("graphql:user:{}", viewer.id);
                for state in [&app.state, &general_state] {
                    state.counters.reset(&key, Window::HOUR, now()).await;
                }
                let plain = ask(app, &app.router, viewer, doc, &vars).await;
                let general = ask(app, &executor, viewer, doc, &vars).await;
                if Window::HOUR.reset(now()) == hour {
                    break (plain, general);
                }
            };
            let case = format!("{doc} with {vars} as {}", viewer.username);
            assert_eq!(plain.status, general.status, "{case}");
            assert_eq!(plain.json, general.json, "{case}");
        }
    }
}
db_test!(every_query_document_in_the_tests_answers_alike);
