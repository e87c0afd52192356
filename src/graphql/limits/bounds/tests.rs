//! The bounding pass: chains, fan-out, cycles and deep nesting are refused, in linear time and without
//! recursion (each measured on a thread with a small stack).
use super::*;
use crate::config::GraphqlLimits;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The bound `text` breaks, or `None` when it is within `limits` (it must parse).
fn broken(text: &str, limits: &GraphqlLimits) -> Result<Option<String>> {
    if let Err(error) = scan(text, limits) {
        return Ok(Some(bound_of(&error)));
    }
    let document = async_graphql::parser::parse_query(text)?;
    Ok(measure(&document, limits)
        .err()
        .map(|error| bound_of(&error)))
}

fn bound_of(error: &ServerError) -> String {
    let extensions = error.extensions.as_ref();
    match extensions.and_then(|e| e.get("bound")) {
        Some(async_graphql::Value::String(bound)) => bound.clone(),
        _ => match extensions.and_then(|e| e.get("code")) {
            Some(async_graphql::Value::String(code)) => code.clone(),
            _ => String::new(),
        },
    }
}

/// Run `work` on a thread with a 256 KiB stack: a recursion as deep as the documents below would
/// overflow it.
fn on_small_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(work)
        .and_then(|handle| handle.join().map_err(|_| std::io::Error::other("panicked")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `{ ...F0 }` and a chain `F0 → F1 → … → F{n-1}`, each fragment spreading the next `fan` times.
fn chain(n: usize, fan: usize) -> String {
    let mut text = String::from("{ ...F0 }\n");
    for i in 0..n {
        let spreads = format!(" ...F{}", i + 1).repeat(fan);
        let body = if i + 1 == n {
            "__typename".to_string()
        } else {
            spreads
        };
        text.push_str(&format!("fragment F{i} on Query {{ {body} }}\n"));
    }
    text
}

/// The query GraphiQL sends on load (as in tests/api/graphql/http.rs).
const INTROSPECTION: &str = "query IntrospectionQuery { __schema { queryType { name } mutationType { name }
  types { ...FullType } directives { name description locations args { ...InputValue } } } }
fragment FullType on __Type { kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue } interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
  ofType { kind name ofType { kind name ofType { kind name } } } } } } } }";

fn unbounded() -> GraphqlLimits {
    GraphqlLimits {
        max_tokens: usize::MAX,
        max_fragments: usize::MAX,
        max_spreads: usize::MAX,
        max_selections: u64::MAX,
        ..GraphqlLimits::default()
    }
}

#[test]
fn real_documents_pass() -> Result<()> {
    let limits = GraphqlLimits::default();
    let relay_like = "query Page($n: Int = 20) { ...Viewer tickets(first: $n) { ...List } }\n\
        fragment Viewer on Query { me { id username ...Person } }\n\
        fragment Person on User { id username fullName }\n\
        fragment List on TicketConnection { totalCount nodes { ...Row } pageInfo { hasNextPage } }\n\
        fragment Row on Ticket { id title requester { ...Person } assignee { ...Person } \
        ... on Ticket { project { id name } } }";
    assert_eq!(broken(relay_like, &limits)?, None);
    // GraphiQL's introspection query.
    let tokens = scan(INTROSPECTION, &limits).map_err(|e| e.message)?;
    let document = async_graphql::parser::parse_query(INTROSPECTION)?;
    let shape = measure(&document, &limits).map_err(|e| e.message)?;
    assert!(tokens < 200, "{tokens}");
    assert_eq!(shape.depth, 15, "{shape:?}");
    assert_eq!(broken(&chain(10, 1), &limits)?, None);
    let document = async_graphql::parser::parse_query(chain(10, 2))?;
    let shape = measure(&document, &limits).map_err(|e| e.message)?;
    // 1 + 2 + 4 + … selections, and each spread one level deeper.
    assert_eq!(shape.selections, (1 << 10) - 1 + 512);
    assert_eq!(shape.depth, 10);
    Ok(())
}

#[test]
fn chains_fan_out_and_cycles_are_refused() -> Result<()> {
    let limits = GraphqlLimits::default();
    // Deeper than async-graphql would recurse.
    assert_eq!(broken(&chain(40, 1), &limits)?.as_deref(), Some("depth"));
    // Issue 30's document: 2,500 fragments in a chain; and a shorter one.
    assert_eq!(
        broken(&chain(2_500, 1), &limits)?.as_deref(),
        Some("tokens")
    );
    assert_eq!(
        broken(&chain(1_000, 1), &limits)?.as_deref(),
        Some("fragments")
    );
    // Issue 30's 971 bytes: 24 fragments each spreading the next twice, 2²⁴ selections.
    assert_eq!(
        broken(&chain(24, 2), &limits)?.as_deref(),
        Some("selections")
    );
    assert_eq!(broken(&chain(40, 2), &limits)?.as_deref(), Some("depth"));
    let many = (0..101)
        .map(|i| format!("query Q{i} {{ __typename }} "))
        .collect::<String>();
    assert_eq!(broken(&many, &limits)?.as_deref(), Some("operations"));
    let wide = format!(
        "{{ me {{ id }} {} }} fragment F on Query {{ __typename }}",
        "...F ".repeat(101)
    );
    assert_eq!(broken(&wide, &limits)?.as_deref(), Some("spreads"));
    // Unused fragments are walked by validation too.
    let unused = format!("{{ __typename }}\n{}", &chain(24, 2)["{ ...F0 }\n".len()..]);
    assert_eq!(broken(&unused, &limits)?.as_deref(), Some("selections"));
    let cycle = "{ ...A } fragment A on Query { ...B } fragment B on Query { me { ...C } } \
                 fragment C on User { id } fragment D on Query { ...A ...D }";
    assert_eq!(broken(cycle, &limits)?.as_deref(), Some("BAD_USER_INPUT"));
    let two = "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }";
    assert_eq!(broken(two, &limits)?.as_deref(), Some("BAD_USER_INPUT"));
    Ok(())
}

#[test]
fn deep_text_is_refused_before_it_is_parsed() -> Result<()> {
    let limits = GraphqlLimits::default();
    let selections = format!("{}{}", "{a".repeat(100_000), "}".repeat(100_000));
    assert_eq!(broken(&selections, &limits)?.as_deref(), Some("nesting"));
    let list = format!(
        "{{ f(a: {}1{}) }}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(broken(&list, &limits)?.as_deref(), Some("nesting"));
    let object = format!(
        "{{ f(a: {}1{}) }}",
        "{a: ".repeat(100_000),
        "}".repeat(100_000)
    );
    assert_eq!(broken(&object, &limits)?.as_deref(), Some("nesting"));
    // Brackets inside strings and comments do not count; tokens do.
    let quoted = format!(
        "{{ f(a: \"{}\", b: \"\"\"{}\"\"\") }} # {}",
        "{[(".repeat(1000),
        "\\\"\"\"{".repeat(1000),
        "{".repeat(1000)
    );
    assert_eq!(scan(&quoted, &limits).map_err(|e| e.message)?, 11);
    let flood = format!("{{ me {} }}", "@include(if: true) ".repeat(10_000));
    assert_eq!(broken(&flood, &limits)?.as_deref(), Some("tokens"));
    // Length is checked first, and alone: a long string is one token, but every byte costs the parser.
    let long_string = format!("{{ f(a: \"{}\") }}", "x".repeat(limits.max_document_bytes));
    assert!(long(&long_string[..limits.max_document_bytes], &limits).is_ok());
    let refused = long(&long_string, &limits).err().map(|e| bound_of(&e));
    assert_eq!(refused.as_deref(), Some("bytes"));
    Ok(())
}

/// The deepest text the scan lets through parses on a tokio worker's 2 MiB stack: the parser's own
/// recursion is what [`MAX_NESTING`] bounds.
#[test]
fn the_parser_survives_the_deepest_text_let_through() {
    let deepest = MAX_NESTING - 2;
    let texts = [
        format!("{}{}", "{a".repeat(MAX_NESTING), "}".repeat(MAX_NESTING)),
        format!(
            "{{ f(a: {}1{}) }}",
            "[".repeat(deepest),
            "]".repeat(deepest)
        ),
        format!(
            "{{ f(a: {}1{}) }}",
            "{a: ".repeat(deepest),
            "}".repeat(deepest)
        ),
        format!(
            "query($v: Int = {}1{}) {{ a }}",
            "[".repeat(deepest),
            "]".repeat(deepest)
        ),
    ];
    for text in texts {
        assert!(scan(&text, &GraphqlLimits::default()).is_ok(), "{text}");
        let parsed = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || async_graphql::parser::parse_query(&text).is_ok())
            .and_then(|handle| handle.join().map_err(|_| std::io::Error::other("overflow")));
        assert!(parsed.is_ok(), "the parser overflowed its stack");
    }
}

/// Iterative and linear: 100,000 fragments in a chain, 2,000 each spreading the next twice, and 31 each
/// spreading the next twenty times (20³⁰ selections), measured with no limit but depth on a small stack,
/// in well under a second each.
#[test]
fn measuring_is_linear_and_iterative() -> Result<()> {
    for (n, fan, refused) in [
        (100_000, 1, Some("depth")),
        (2_000, 2, Some("depth")),
        (31, 20, None),
    ] {
        let text = chain(n, fan);
        assert!(scan(&text, &unbounded()).is_ok());
        let document = async_graphql::parser::parse_query(&text)?;
        let (measured, took) = on_small_stack(move || {
            let started = Instant::now();
            let measured = measure(&document, &unbounded());
            (measured, started.elapsed())
        });
        match (measured, refused) {
            (Err(error), Some(bound)) => assert_eq!(bound_of(&error), bound),
            (Ok(shape), None) => assert_eq!(shape.selections, u64::MAX, "saturated"),
            (other, _) => panic!("{n} × {fan}: {other:?}"),
        }
        assert!(took < Duration::from_secs(2), "{n} × {fan}: {took:?}");
    }
    Ok(())
}
