//! What an operation may cost, priced from its document before anything runs (docs/graphql.md).
//!
//! As in GitHub's GraphQL API: a connection multiplies what is selected under it by its `first`/`last`
//! (the default page size when neither is given), a list without arguments by [`LIST_MAX`], `nodes(ids:)`
//! by the number of ids. `nodeCount` adds up every connection's and list's nodes, each multiplied by the
//! sizes of the lists above it; `cost` = max(1, ⌈nodeCount / 100⌉) points.
//!
//! The model of which field is a connection or a list is read once from the served schema's SDL. Pricing
//! is linear in the multiplier coming from above, so a fragment is priced once per operation however many
//! times it is spread (a document of fragments that spread each other twice would otherwise take
//! exponential time).
use super::connection::DEFAULT_PAGE;
use async_graphql::parser::types::{
    BaseType, DocumentOperations, ExecutableDocument, Field, OperationDefinition, OperationType,
    Selection, SelectionSet, ServiceDocument, TypeKind, TypeSystemDefinition,
};
use async_graphql::{Name, Positioned, Value, Variables};
use std::collections::HashMap;

/// How many nodes a list field without a size argument is counted as, and all it returns per parent
/// (the loaders read at most that many per parent, `service::Take`), so the price bounds the answer.
pub const LIST_MAX: u64 = 100;

/// Nodes per point.
pub const NODES_PER_POINT: u64 = 100;
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
                        None
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
        let mut walk = Walk {
            model: self,
            document,
            values: &values,
            fragments: HashMap::new(),
            root_fragments: HashMap::new(),
            variable: false,
        };
        let node_count = walk.count(root, &operation.selection_set.node);
        let (root_fields, sensitive) = walk.root(&operation.selection_set.node);
        Price {
            node_count,
            cost: points(node_count),
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

/// Points for `node_count` nodes.
pub fn points(node_count: u64) -> u64 {
    node_count.div_ceil(NODES_PER_POINT).max(1)
}

/// The price of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Price {
    /// The most nodes it could return.
    pub node_count: u64,
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

struct Walk<'a> {
    model: &'a Model,
    document: &'a ExecutableDocument,
    values: &'a HashMap<Name, Value>,
    /// Nodes of each fragment under a multiplier of one (`None` while being priced: a cycle, which
    /// validation refuses anyway, counts nothing).
    fragments: HashMap<Name, Option<u64>>,
    root_fragments: HashMap<Name, Option<(usize, usize)>>,
    variable: bool,
}

impl Walk<'_> {
    /// Nodes under `set`, selected on `ty`, for one parent.
    fn count(&mut self, ty: &str, set: &SelectionSet) -> u64 {
        let mut total: u64 = 0;
        for item in &set.items {
            let nodes = match &item.node {
                Selection::Field(field) => {
                    let field = &field.node;
                    let Some(model) = self
                        .model
                        .types
                        .get(ty)
                        .and_then(|fields| fields.get(field.name.node.as_str()))
                        .cloned()
                    else {
                        // `__typename`, introspection, or a field validation will refuse.
                        continue;
                    };
                    let below = self.count(&model.target, &field.selection_set.node);
                    match model.size {
                        None => below,
                        Some(size) => {
                            let n = self.size(size, field);
                            n.saturating_add(n.saturating_mul(below))
                        }
                    }
                }
                Selection::InlineFragment(fragment) => {
                    let fragment = &fragment.node;
                    let on = fragment
                        .type_condition
                        .as_ref()
                        .map_or(ty, |c| c.node.on.node.as_str());
                    self.count(on, &fragment.selection_set.node)
                }
                Selection::FragmentSpread(spread) => self.fragment(&spread.node.fragment_name.node),
            };
            total = total.saturating_add(nodes);
        }
        total
    }

    fn fragment(&mut self, name: &Name) -> u64 {
        if let Some(known) = self.fragments.get(name) {
            return known.unwrap_or(0);
        }
        let Some(fragment) = self.document.fragments.get(name) else {
            return 0;
        };
        self.fragments.insert(name.clone(), None);
        let fragment = &fragment.node;
        let nodes = self.count(
            fragment.type_condition.node.on.node.as_str(),
            &fragment.selection_set.node,
        );
        self.fragments.insert(name.clone(), Some(nodes));
        nodes
    }

    /// The multiplier of a sized field.
    fn size(&mut self, size: Size, field: &Field) -> u64 {
        let values = self.values;
        let variable = std::cell::Cell::new(false);
        let resolve = |wanted: &str| -> Option<Value> {
            field
                .get_argument(wanted)?
                .node
                .clone()
                .into_const_with(|var| {
                    variable.set(true);
                    values.get(&var).cloned().ok_or(())
                })
                .ok()
        };
        let n = match size {
            Size::List => LIST_MAX,
            Size::Ids => match resolve("ids") {
                Some(Value::List(ids)) => ids.len() as u64,
                Some(Value::Null) | None => 0,
                // A single id is coerced to a list of one.
                Some(_) => 1,
            },
            Size::Page => {
                let page = |value: Option<Value>| match value {
                    Some(Value::Number(n)) => n.as_u64(),
                    _ => None,
                };
                match (page(resolve("first")), page(resolve("last"))) {
                    (None, None) => DEFAULT_PAGE as u64,
                    (first, last) => first.unwrap_or(0).max(last.unwrap_or(0)),
                }
            }
        };
        if variable.get() {
            self.variable = true;
        }
        n
    }

    /// Root fields (aliases included) and, among them, sensitive mutations under `set`.
    fn root(&mut self, set: &SelectionSet) -> (usize, usize) {
        let mut fields = 0usize;
        let mut sensitive = 0usize;
        for item in &set.items {
            let (f, s) = match &item.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    (1, usize::from(SENSITIVE_MUTATIONS.contains(&name)))
                }
                Selection::InlineFragment(fragment) => self.root(&fragment.node.selection_set.node),
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    match self.root_fragments.get(name) {
                        Some(known) => known.unwrap_or((0, 0)),
                        None => match self.document.fragments.get(name) {
                            Some(fragment) => {
                                self.root_fragments.insert(name.clone(), None);
                                let counted = self.root(&fragment.node.selection_set.node);
                                self.root_fragments.insert(name.clone(), Some(counted));
                                counted
                            }
                            None => (0, 0),
                        },
                    }
                }
            };
            fields = fields.saturating_add(f);
            sensitive = sensitive.saturating_add(s);
        }
        (fields, sensitive)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

    fn price(query: &str) -> Result<Price> {
        let model = Model::from_sdl(&super::super::sdl())?;
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
        let p =
            price("query { a: me { id } ...R } fragment R on Query { b: me { id } c: me { id } }")?;
        assert_eq!((p.root_fields, p.sensitive), (3, 0));
        Ok(())
    }
}
