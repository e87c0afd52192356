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
