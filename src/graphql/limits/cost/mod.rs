//! What an operation may cost, priced from its document before anything runs (docs/graphql.md).
//!
//! As in GitHub's GraphQL API: a connection multiplies what is selected under its `nodes`/`edges` by its
//! `first`/`last` (the default page size when neither is given), a list without arguments by
//! [`LIST_MAX`], `nodes(ids:)` by the number of ids. `nodeCount` adds up every connection's and list's
//! nodes, each multiplied by the sizes of the lists above it.
//!
//! What a request costs the database is more than what it returns: each `totalCount` is a count, and a
//! text search visits every matching row however small its page. So each count that may run (one per
//! connection selecting `totalCount`, times the lists above it, whatever its page size) is priced at
//! [`COUNT_POINTS`], and each statement that visits a text search's matches (a searched page, and its
//! count again) at [`SCAN_POINTS`]: `cost` = max(1, ⌈nodeCount / 100⌉ + counts × [`COUNT_POINTS`] +
//! scans × [`SCAN_POINTS`]) points.
//!
//! The model of which field is a connection or a list is read once from the served schema's SDL. Pricing
//! is linear in the multiplier coming from above, so a fragment is priced once per operation however many
//! times it is spread (a document of fragments that spread each other twice would otherwise take
//! exponential time).
#[cfg(test)]
mod tests;
mod walk;

use async_graphql::parser::types::{
    BaseType, DocumentOperations, ExecutableDocument, OperationDefinition, OperationType,
    ServiceDocument, TypeKind, TypeSystemDefinition,
};
use async_graphql::{Name, Positioned, Value, Variables};
use std::collections::HashMap;
use walk::Walk;

/// How many nodes a list field without a size argument is counted as, and all it returns per parent
/// (the loaders read at most that many per parent, `service::Take`), so the price bounds the answer.
pub const LIST_MAX: u64 = 100;

/// Nodes per point.
pub const NODES_PER_POINT: u64 = 100;
/// Points of each count (`totalCount`) an operation may run.
pub const COUNT_POINTS: u64 = 1;
/// Points of each statement that visits every row matching a text search.
pub const SCAN_POINTS: u64 = 5;
/// Mutations that issue credentials: at most one of them per request.
pub const SENSITIVE_MUTATIONS: [&str; 2] = ["login", "createApiToken"];

/// How a field multiplies what is selected under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    /// A connection: `first`/`last`, or the default page.
    Page,
    /// A list without a size argument.
    List,
    /// A list with one entry per given id (`nodes(ids:)`).
    Ids,
    /// `nodes` and `edges` of a connection: the page the connection sized.
    Items,
}

#[derive(Debug, Clone)]
struct FieldModel {
    /// The named type the field returns.
    target: String,
    /// `None`: one object, or a leaf.
    size: Option<Size>,
}

/// Which fields of the schema are connections and lists, read from its SDL.
#[derive(Debug, Default)]
pub struct Model {
    types: HashMap<String, HashMap<String, FieldModel>>,
}

impl Model {
    /// The model of the schema whose SDL is `sdl`.
    pub fn from_sdl(sdl: &str) -> anyhow::Result<Self> {
        let document: ServiceDocument = async_graphql::parser::parse_schema(sdl)?;
        let mut composite = std::collections::HashSet::new();
        for definition in &document.definitions {
            if let TypeSystemDefinition::Type(ty) = definition {
                if matches!(
                    ty.node.kind,
                    TypeKind::Object(_) | TypeKind::Interface(_) | TypeKind::Union(_)
                ) {
                    composite.insert(ty.node.name.node.to_string());
                }
            }
        }
        let mut types = HashMap::new();
        for definition in &document.definitions {
            let TypeSystemDefinition::Type(ty) = definition else {
                continue;
            };
            let fields = match &ty.node.kind {
                TypeKind::Object(object) => &object.fields,
                TypeKind::Interface(interface) => &interface.fields,
                _ => continue,
            };
            let type_name = ty.node.name.node.as_str();
            // `edges` and `nodes` of a connection are its page, already counted by the connection.
            let inside_connection = type_name.ends_with("Connection");
            let mut models = HashMap::new();
            for field in fields {
                let field = &field.node;
                let (target, list) = named(&field.ty.node.base);
                let size = if !composite.contains(target) {
                    None
                } else if list {
                    if inside_connection {
                        Some(Size::Items)
                    } else if field.arguments.iter().any(|a| a.node.name.node == "ids") {
                        Some(Size::Ids)
                    } else {
                        Some(Size::List)
                    }
                } else if target.ends_with("Connection") {
                    Some(Size::Page)
                } else {
                    None
                };
                models.insert(
                    field.name.node.to_string(),
                    FieldModel {
                        target: target.to_string(),
                        size,
                    },
                );
            }
            types.insert(type_name.to_string(), models);
        }
        Ok(Model { types })
    }

    /// Price `operation` of `document` with `variables`.
    pub fn price(
        &self,
        document: &ExecutableDocument,
        operation: &OperationDefinition,
        variables: &Variables,
    ) -> Price {
        let root = match operation.ty {
            OperationType::Query => "Query",
            OperationType::Mutation => "Mutation",
            OperationType::Subscription => "Subscription",
        };
        let values = variable_values(operation, variables);
        let mut walk = Walk {
            model: self,
            document,
            values: &values,
            fragments: HashMap::new(),
            root_fragments: HashMap::new(),
            variable: false,
        };
        let tally = walk.count(root, &operation.selection_set.node, 0).whole();
        let (root_fields, sensitive) = walk.root(&operation.selection_set.node, 0);
        Price {
            node_count: tally.nodes,
            counts: tally.counts,
            scans: tally.scans,
            cost: points(tally.nodes, tally.counts, tally.scans),
            root_fields,
            sensitive: if operation.ty == OperationType::Mutation {
                sensitive
            } else {
                0
            },
            variable: walk.variable,
        }
    }

    /// Price every operation of `document` whose price does not depend on variables (the rest are priced
    /// per request): kept with the parsed document.
    pub fn price_document(&self, document: &ExecutableDocument) -> Vec<(Option<Name>, Price)> {
        let no_variables = Variables::default();
        document
            .operations
            .iter()
            .map(|(name, operation)| {
                (
                    name.cloned(),
                    self.price(document, &operation.node, &no_variables),
                )
            })
            .filter(|(_, price)| !price.variable)
            .collect()
    }
}

/// The named type under any list and non-null wrappers, and whether there was a list.
fn named(base: &BaseType) -> (&str, bool) {
    match base {
        BaseType::Named(name) => (name.as_str(), false),
        BaseType::List(inner) => (named(&inner.base).0, true),
    }
}

/// Points for `nodes` nodes, `counts` counts and `scans` text-search scans.
pub fn points(nodes: u64, counts: u64, scans: u64) -> u64 {
    nodes
        .div_ceil(NODES_PER_POINT)
        .saturating_add(counts.saturating_mul(COUNT_POINTS))
        .saturating_add(scans.saturating_mul(SCAN_POINTS))
        .max(1)
}

/// The price of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Price {
    /// The most nodes it could return.
    pub node_count: u64,
    /// The most counts (`totalCount`) it could run.
    pub counts: u64,
    /// The most statements visiting every row a text search matches it could run.
    pub scans: u64,
    /// Points it takes from the viewer's budget.
    pub cost: u64,
    /// Root fields, aliases included.
    pub root_fields: usize,
    /// Root fields that issue credentials (`login`, `createApiToken`) in a mutation.
    pub sensitive: usize,
    /// Whether a size came from a variable (then the price is not kept with the document).
    pub variable: bool,
}

/// The operation `operation_name` picks from `document`, as the executor picks it.
pub fn operation<'a>(
    document: &'a ExecutableDocument,
    operation_name: Option<&str>,
) -> Option<(Option<&'a Name>, &'a Positioned<OperationDefinition>)> {
    match (&document.operations, operation_name) {
        (DocumentOperations::Single(op), None) => Some((None, op)),
        (DocumentOperations::Single(_), Some(_)) => None,
        (DocumentOperations::Multiple(ops), Some(name)) => {
            ops.get_key_value(name).map(|(n, o)| (Some(n), o))
        }
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => {
            ops.iter().next().map(|(n, o)| (Some(n), o))
        }
        (DocumentOperations::Multiple(_), None) => None,
    }
}

/// The values of `operation`'s variables: the request's, else the declared defaults.
pub fn variable_values(
    operation: &OperationDefinition,
    variables: &Variables,
) -> HashMap<Name, Value> {
    let mut values: HashMap<Name, Value> = operation
        .variable_definitions
        .iter()
        .filter_map(|d| {
            let default = d.node.default_value.as_ref()?;
            Some((d.node.name.node.clone(), default.node.clone()))
        })
        .collect();
    for (name, value) in variables.iter() {
        values.insert(name.clone(), value.clone());
    }
    values
}
