//! Prices of documents, against the served schema.
use super::*;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn price(query: &str) -> Result<Price> {
    let model = Model::from_sdl(&crate::graphql::sdl())?;
    let document = async_graphql::parser::parse_query(query)?;
    let (_, op) = operation(&document, None).ok_or("no single operation")?;
    Ok(model.price(&document, &op.node, &Variables::default()))
}

#[test]
fn connections_multiply_what_they_select() -> Result<()> {
    let nested = "{ tickets(first:100){ nodes{ project{ tickets(first:100){ nodes{ project{ \
                  tickets(first:100){ nodes{ title requester{ username } } } } } } } } } }";
    assert_eq!(price(nested)?.node_count, 100 + 100 * 100 + 100 * 100 * 100);
    let comments =
        "{ tickets(first:100){ nodes{ comments(first:20){ nodes{ author{ username } } } } } }";
    let p = price(comments)?;
    assert_eq!((p.node_count, p.cost), (100 + 100 * 20, 21));
    // Default page, edges as nodes, a plain list.
    let p = price("{ tickets { edges { node { assets { name } } } } }")?;
    assert_eq!(p.node_count, 20 + 20 * LIST_MAX);
    assert_eq!(price("{ me { username } }")?.cost, 1);
    // The examples of docs/graphql.md.
    let p = price("{ tickets { nodes { title requester { username } } } }")?;
    assert_eq!((p.node_count, p.cost), (20, 1));
    let p = price(
        "{ projects(first: 10) { nodes { tickets(first: 50) { nodes { assets { name } } } } } }",
    )?;
    assert_eq!((p.node_count, p.cost), (50_510, 506));
    let p = price(r#"{ nodes(ids: ["a", "b", "c"]) { id } }"#)?;
    assert_eq!(p.node_count, 3);
    Ok(())
}

#[test]
fn fragments_are_priced_once_however_often_spread() -> Result<()> {
    let mut query = String::from("{ tickets(first: 2) { nodes { ...F0 } } }\n");
    for i in 0..40 {
        query.push_str(&format!(
            "fragment F{i} on Ticket {{ project {{ id }} ...F{n} ...F{n} }}\n",
            n = i + 1
        ));
    }
    query.push_str("fragment F40 on Ticket { comments(first: 1) { nodes { id } } }\n");
    let p = price(&query)?;
    assert_eq!(p.node_count, 2 + 2 * (1u64 << 40));
    Ok(())
}

#[test]
fn root_fields_and_sensitive_mutations() -> Result<()> {
    let p = price("mutation { a: login(input: {username: \"x\", password: \"y\"}) { token } b: login(input: {username: \"x\", password: \"y\"}) { token } }")?;
    assert_eq!((p.root_fields, p.sensitive), (2, 2));
    let p = price("query { a: me { id } ...R } fragment R on Query { b: me { id } c: me { id } }")?;
    assert_eq!((p.root_fields, p.sensitive), (3, 0));
    Ok(())
}

#[test]
fn counts_and_searches_are_priced_per_connection() -> Result<()> {
    let p = price("{ tickets(first: 0) { totalCount } }")?;
    assert_eq!((p.node_count, p.counts, p.scans, p.cost), (0, 1, 0, 1));
    let p = price("{ a: tickets(first: 0) { totalCount } b: tickets(first: 0) { totalCount } }")?;
    assert_eq!((p.counts, p.cost), (2, 2));
    // A search is a scan for the page and another for its count; a blank one is no search.
    let p = price(r#"{ tickets(first: 0, filter: {query: "vpn"}) { totalCount } }"#)?;
    assert_eq!((p.counts, p.scans, p.cost), (1, 2, 1 + 2 * SCAN_POINTS));
    let p = price(r#"{ tickets(first: 5, filter: {query: "vpn"}) { nodes { id } } }"#)?;
    assert_eq!((p.counts, p.scans, p.cost), (0, 1, 1 + SCAN_POINTS));
    let p = price(
        r#"{ users(query: "  ") { totalCount } assets(filter: {search: "x"}) { nodes { id } } }"#,
    )?;
    assert_eq!((p.counts, p.scans), (1, 1));
    // Counts under a list multiply by it, not by their own page; under an empty page there are none.
    let p = price("{ projects(first: 3) { nodes { tickets(first: 0) { totalCount } } } }")?;
    assert_eq!((p.node_count, p.counts, p.cost), (3, 3, 1 + 3));
    let p = price("{ projects(first: 0) { nodes { tickets { totalCount } } } }")?;
    assert_eq!(p.counts, 0);
    // Through fragments on the connection and on its items, and through edges.
    let p = price(
        "{ tickets(first: 4) { ...List } } fragment List on TicketConnection { totalCount \
         edges { node { ...Row } } } fragment Row on Ticket { comments(first: 2) { totalCount } }",
    )?;
    assert_eq!((p.node_count, p.counts), (4 + 4 * 2, 1 + 4));
    Ok(())
}

#[test]
fn a_report_is_priced_as_the_tickets_it_reads() -> Result<()> {
    let p = price("{ ticketReport { total { created } } }")?;
    assert_eq!(
        (p.node_count, p.scans, p.cost),
        (0, walk::REPORT_SCANS, walk::REPORT_SCANS * SCAN_POINTS)
    );
    // Aliases read again, and are priced again.
    let p = price(
        "{ a: ticketReport { total { created } } b: ticketReport(groupBy: [MONTH]) { total { created } } }",
    )?;
    assert_eq!(p.cost, 2 * walk::REPORT_SCANS * SCAN_POINTS);
    Ok(())
}

#[test]
fn searches_from_variables_are_priced_per_request() -> Result<()> {
    let model = Model::from_sdl(&crate::graphql::sdl())?;
    let document = async_graphql::parser::parse_query(
        "query($f: TicketFilter) { tickets(first: 0, filter: $f) { totalCount } }",
    )?;
    let (_, op) = operation(&document, None).ok_or("no single operation")?;
    let with =
        |json: serde_json::Value| model.price(&document, &op.node, &Variables::from_json(json));
    let searched = with(serde_json::json!({"f": {"query": "printer"}}));
    assert_eq!((searched.scans, searched.variable), (2, true));
    assert_eq!(
        with(serde_json::json!({"f": {"status": ["OPEN"]}})).scans,
        0
    );
    Ok(())
}
