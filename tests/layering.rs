//! Imports run one way: doors (GraphQL, REST, web, HTTP layers) → services → database and entities, with
//! the application state as the composition root only doors and start-up see. Read from the source, so a
//! backward import fails here naming its file and line.
use std::path::{Path, PathBuf};

/// The layers below the doors, and what none of them may name.
const BELOW_DOORS: &[&str] = &[
    "src/service",
    "src/db",
    "src/net",
    "src/notify",
    "src/jobs",
    "src/auth",
    "src/storage",
    "src/counters",
    "src/domain.rs",
    "src/error",
    "src/config",
    "src/sanitize.rs",
];
const DOORS_AND_STATE: &[&str] = &[
    "crate::graphql",
    "crate::rest",
    "crate::web",
    "crate::http",
    "crate::app",
    "crate::state",
    "AppState",
];

/// Every `.rs` file at or under `path` (relative to the crate root).
fn sources(path: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(next) = pending.pop() {
        if next.is_dir() {
            let entries = std::fs::read_dir(&next).unwrap_or_else(|e| panic!("{next:?}: {e}"));
            pending.extend(entries.map(|e| e.unwrap_or_else(|e| panic!("{e}")).path()));
        } else if next.extension().is_some_and(|ext| ext == "rs") {
            found.push(next);
        }
    }
    assert!(!found.is_empty(), "no sources under {path}");
    found.sort();
    found
}

/// The code lines of `file` (comments left out: a doc link to a door is not an import), numbered from 1.
fn code_lines(file: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(i, line)| (i + 1, line.to_string()))
        .collect()
}

/// `file:line: text` for each line of the files under `paths` that names one of `forbidden`.
fn naming(paths: &[&str], forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut offences = Vec::new();
    for path in paths {
        for file in sources(path) {
            for (number, line) in code_lines(&file) {
                if forbidden.iter().any(|name| names(&line, name)) {
                    let shown = file.strip_prefix(root).unwrap_or(&file).display();
                    offences.push(format!("{shown}:{number}: {}", line.trim()));
                }
            }
        }
    }
    offences
}

/// Whether `line` names `name` as a whole path or word (`crate::web` is not `crate::webhooks`).
fn names(line: &str, name: &str) -> bool {
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

#[test]
fn nothing_below_the_doors_names_a_door_or_the_application_state() {
    let offences = naming(BELOW_DOORS, DOORS_AND_STATE);
    assert!(
        offences.is_empty(),
        "imports must run doors → service → db; these run backwards:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_database_layer_knows_no_service_and_no_ticket() {
    let offences = naming(
        &["src/db"],
        &[
            "crate::service",
            "crate::notify",
            "crate::auth",
            "ticket",
            "Ticket",
        ],
    );
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

#[test]
fn credentials_are_resolved_and_touched_in_auth_without_services() {
    let offences = naming(&["src/auth"], &["crate::service", "crate::notify"]);
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

#[test]
fn notify_only_delivers_and_knows_no_service() {
    let offences = naming(&["src/notify"], &["crate::service", "crate::jobs"]);
    assert!(
        offences.is_empty(),
        "events and outbox rows are built in the services; notify/ delivers them:\n{}",
        offences.join("\n")
    );
}

#[test]
fn one_listen_connection_in_the_database_layer() {
    let mut offences = naming(&["src"], &["PgListener"]);
    offences.retain(|line| !line.starts_with("src/db/listen.rs:"));
    assert!(
        offences.is_empty(),
        "LISTEN belongs to src/db/listen.rs, which others register with:\n{}",
        offences.join("\n")
    );
}

#[test]
fn error_bodies_are_rendered_in_the_error_module() {
    let mut offences = naming(&["src"], &["\"errors\":", "\"success\": false"]);
    offences.retain(|line| !line.starts_with("src/error/"));
    assert!(
        offences.is_empty(),
        "every door's error body comes from src/error/:\n{}",
        offences.join("\n")
    );
}

/// The top-level module of each `src/` file and the top-level modules its code names (`crate::x`).
fn module_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    for file in sources("src") {
        let relative = file.strip_prefix(&root).unwrap_or(&file);
        let Some(first) = relative.components().next() else {
            continue;
        };
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let entry = graph.entry(module.clone()).or_default();
        for (_, line) in code_lines(&file) {
            for (at, _) in line.match_indices("crate::") {
                let named: String = line[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !named.is_empty() && named != module {
                    entry.insert(named);
                }
            }
        }
    }
    graph
}

/// The groups of modules that reach each other (Tarjan's strongly connected components), each sorted.
fn cycles(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = std::collections::BTreeSet::new();
        let mut pending = vec![from.clone()];
        while let Some(next) = pending.pop() {
            for to in graph.get(&next).into_iter().flatten() {
                if seen.insert(to.clone()) {
                    pending.push(to.clone());
                }
            }
        }
        seen
    };
    let reached: std::collections::BTreeMap<_, _> =
        graph.keys().map(|m| (m.clone(), reach(m))).collect();
    let mut found: Vec<Vec<String>> = Vec::new();
    for module in graph.keys() {
        let group: Vec<String> = graph
            .keys()
            .filter(|other| {
                *other == module
                    || (reached[module].contains(*other) && reached[*other].contains(module))
            })
            .cloned()
            .collect();
        if group.len() > 1 && !found.contains(&group) {
            found.push(group);
        }
    }
    found
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let found = cycles(&module_graph());
    assert!(
        found.is_empty(),
        "modules that import each other, in a cycle: {found:?}"
    );
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let mut graph = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    let edge =
        |graph: &mut std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
         from: &str,
         to: &str| {
            graph.entry(from.into()).or_default().insert(to.into());
            graph.entry(to.into()).or_default();
        };
    edge(&mut graph, "state", "graphql");
    edge(&mut graph, "graphql", "service");
    edge(&mut graph, "graphql", "state");
    edge(&mut graph, "service", "db");
    assert_eq!(
        cycles(&graph),
        vec![vec!["graphql".to_string(), "state".to_string()]]
    );
}

#[test]
fn the_check_sees_a_backward_import() {
    assert!(names("use crate::state::AppState;", "crate::state"));
    assert!(names("fn f(state: &AppState) {}", "AppState"));
    assert!(!names("use crate::webhooks;", "crate::web"));
    assert!(!names("let app_state = 1;", "AppState"));
}
