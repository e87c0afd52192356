//! Property test (proptest) of the document pipeline the server runs every GraphQL request through
//! (`graphql::checked`: bound, parse, price, check, validate): generated documents with random fragment
//! graphs (cycles and fan-out included), nesting, aliases, directives, arguments and variables, and floods
//! of each, never panic, are answered within a bounded time, and are refused when over a bound.
//!
//! Cases: 64 by default, `PROPTEST_CASES` for more (`PROPTEST_CASES=5000 cargo test --test api
//! fuzz::documents`). Failures are kept in `tests/proptest-regressions/fuzz/documents.txt` and run first.
use crate::support::helpers::TestApp;
use async_graphql::{Executor, Request, Variables};
use deskgraph::graphql::limits::bounds::MAX_NESTING;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What any one document may take here (a debug build, on a shared machine): far below what the
/// exponential documents this generates took before they were bounded, far above what a bounded one takes.
const AT_MOST: Duration = Duration::from_secs(2);

/// A document to generate: a tape of choices for its ordinary parts, and the sizes of its hostile ones.
#[derive(Debug, Clone)]
struct Recipe {
    tape: Vec<u8>,
    /// Fragments in a chain after the ordinary ones, each spreading the next `fan` times.
    chain: usize,
    fan: usize,
    /// Brackets nested in an argument value.
    nesting: usize,
    /// What is flooded (aliases, directives, variables, spreads of one fragment) and how often.
    flood: (u8, usize),
    /// Depth of a nested list passed as a variable.
    deep_variable: usize,
}

fn recipe() -> impl Strategy<Value = Recipe> {
    (
        proptest::collection::vec(any::<u8>(), 0..160),
        prop_oneof![Just(0usize), 1usize..50, 2_000usize..3_000],
        1usize..=3,
        prop_oneof![Just(0usize), 1usize..80, 100_000usize..100_001],
        (
            0u8..4,
            prop_oneof![Just(0usize), 1usize..200, 7_000usize..12_000],
        ),
        0usize..100,
    )
        .prop_map(|(tape, chain, fan, nesting, flood, deep_variable)| Recipe {
            tape,
            chain,
            fan,
            nesting,
            flood,
            deep_variable,
        })
}

/// Reads choices off the tape (zeros once it runs out, so every tape makes a document).
struct Tape<'a>(std::slice::Iter<'a, u8>);

impl Tape<'_> {
    fn pick(&mut self, n: u8) -> u8 {
        self.0.next().map_or(0, |b| b % n.max(1))
    }
}

const FRAGMENT_TYPES: [&str; 3] = ["Query", "Ticket", "User"];

/// A selection set on `ty`, up to `depth` levels, spreading among `fragments`.
fn selection(tape: &mut Tape, ty: &str, depth: usize, fragments: usize, out: &mut String) {
    out.push('{');
    let items = 1 + tape.pick(4);
    for i in 0..items {
        let alias = if tape.pick(3) == 0 {
            format!(" a{i}:")
        } else {
            String::new()
        };
        let directive = match tape.pick(5) {
            0 => " @include(if: $b)",
            1 => " @skip(if: true)",
            _ => "",
        };
        match (ty, tape.pick(8)) {
            (_, 0) if fragments > 0 => {
                let target = tape.pick(fragments as u8);
                out.push_str(&format!(" ...F{target}{directive}"));
            }
            (_, 1) if depth > 0 => {
                out.push_str(&format!(" ... on {ty}{directive} "));
                selection(tape, ty, depth - 1, fragments, out);
            }
            ("Query", 2) if depth > 0 => {
                let args = match tape.pick(4) {
                    0 => "(first: $n)".to_string(),
                    1 => format!("(first: {}, filter: {{query: $s}})", tape.pick(120)),
                    2 => "(last: 3, filter: {query: \"printer\", status: [OPEN]})".into(),
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "{alias} tickets{args}{directive} {{ totalCount nodes "
                ));
                selection(tape, "Ticket", depth - 1, fragments, out);
                out.push_str(" }");
            }
            ("Query", 3) if depth > 0 => {
                out.push_str(&format!("{alias} me{directive} "));
                selection(tape, "User", depth - 1, fragments, out);
            }
            ("Query", 4) => out.push_str(&format!("{alias} rateLimit {{ cost nodeCount }}")),
            ("Ticket", 2 | 3) if depth > 0 => {
                out.push_str(&format!("{alias} requester{directive} "));
                selection(tape, "User", depth - 1, fragments, out);
            }
            ("Ticket", 4) if depth > 0 => {
                out.push_str(&format!(
                    "{alias} project {{ tickets(first: $n) {{ totalCount }} }}"
                ));
            }
            (_, 5) => out.push_str(&format!("{alias} nope{directive}")),
            ("Ticket", _) => out.push_str(&format!("{alias} title{directive}")),
            ("User", _) => out.push_str(&format!("{alias} username{directive}")),
            _ => out.push_str(&format!("{alias} __typename{directive}")),
        }
    }
    out.push_str(" }");
}

/// The document, its variables, and whether a bound must refuse it.
fn document(recipe: &Recipe) -> (String, Value, bool) {
    let mut tape = Tape(recipe.tape.iter());
    let fragments = tape.pick(6) as usize;
    let mut text = String::new();
    let mut variables = String::from("$n: Int = 5, $b: Boolean = true, $s: String, $l: [[Int]]");
    if recipe.flood.0 == 2 {
        for i in 0..recipe.flood.1 {
            variables.push_str(&format!(", $v{i}: Int"));
        }
    }
    text.push_str(&format!("query Q({variables}) "));
    let mut body = String::new();
    selection(&mut tape, "Query", 4, fragments, &mut body);
    body.pop();
    if recipe.chain > 0 {
        body.push_str(" ...C0");
    }
    if recipe.nesting > 0 {
        let open = "[".repeat(recipe.nesting);
        let close = "]".repeat(recipe.nesting);
        body.push_str(&format!(
            " deep: tickets(filter: {{status: {open}OPEN{close}}}) {{ totalCount }}"
        ));
    }
    match recipe.flood {
        (0, n) => (0..n).for_each(|i| body.push_str(&format!(" f{i}: __typename"))),
        (1, n) => body.push_str(&format!(" __typename{}", " @include(if: true)".repeat(n))),
        (3, n) if fragments > 0 => body.push_str(&" ...F0".repeat(n)),
        _ => {}
    }
    body.push('}');
    text.push_str(&body);
    for i in 0..fragments {
        let ty = FRAGMENT_TYPES[tape.pick(3) as usize];
        text.push_str(&format!("\nfragment F{i} on {ty} "));
        selection(&mut tape, ty, 3, fragments, &mut text);
    }
    for i in 0..recipe.chain {
        let next = if i + 1 == recipe.chain {
            " __typename".to_string()
        } else {
            format!(" ...C{}", i + 1).repeat(recipe.fan)
        };
        text.push_str(&format!("\nfragment C{i} on Query {{{next} }}"));
    }
    let mut deep = json!(1);
    for _ in 0..recipe.deep_variable {
        deep = json!([deep]);
    }
    let vars =
        json!({"n": tape.pick(150) as i64 - 10, "b": tape.pick(2) == 1, "s": "x1y0", "l": deep});
    let flooded = recipe.flood.1 >= 7_000 && (recipe.flood.0 != 3 || fragments > 0);
    let refused = recipe.nesting > MAX_NESTING || recipe.chain > 40 || flooded;
    (text, vars, refused)
}

#[test]
fn generated_documents_are_bounded() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let app = runtime.block_on(TestApp::sqlite());
    let checked = deskgraph::graphql::checked(app.state.clone()).unwrap();
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let config = Config {
        cases,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "proptest-regressions",
        ))),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let slowest = std::cell::Cell::new(Duration::ZERO);
    let result = runner.run(&recipe(), |recipe| {
        let (text, variables, must_refuse) = document(&recipe);
        let request = Request::new(text.clone()).variables(Variables::from_json(variables));
        let started = Instant::now();
        let response = runtime.block_on(checked.execute(request));
        let took = started.elapsed();
        slowest.set(slowest.get().max(took));
        let short = &text[..text.len().min(300)];
        prop_assert!(took < AT_MOST, "{took:?} for {short}");
        let first = response.errors.first();
        let code = first
            .and_then(|e| e.extensions.as_ref())
            .and_then(|x| x.get("code"))
            .map(|c| c.to_string());
        // Over a bound, or (when the random fragments spread each other in a circle) a cycle.
        let cycle = first.is_some_and(|e| e.message.contains("spreads itself"));
        if must_refuse && !cycle {
            prop_assert_eq!(
                code.as_deref(),
                Some("\"QUERY_TOO_COMPLEX\""),
                "{:?} for {}",
                response.errors,
                short
            );
        }
        Ok::<(), TestCaseError>(())
    });
    runtime.block_on(app.cleanup());
    eprintln!("{cases} generated documents, slowest {:?}", slowest.get());
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
