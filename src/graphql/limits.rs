//! Checks made on the parsed document, before validation and execution.
//!
//! Page-size limits: every `first`/`last` argument in the document (literal, or a
//! variable's value or default) must be between 0 and [`MAX_PAGE`], otherwise the whole request is refused
//! with BAD_USER_INPUT and nothing is resolved. The resolvers check again (see `connection.rs`); this makes
//! an oversized page fail fast and as one clear request error instead of a partial result.
//!
//! Closed introspection: when a request has introspection disabled, a document asking for `__schema` or
//! `__type` is refused with UNAUTHENTICATED (async-graphql on its own would silently answer `null`).
//!
//! These run in [`Checked`], the executor the HTTP handlers and the WebSocket use, not as a schema
//! extension: any registered extension puts every field of every response through the extension
//! chain, which cost a quarter of a 20-ticket list page's CPU.
use super::connection::MAX_PAGE;
use super::AppSchema;
use async_graphql::futures_util::stream::{self, BoxStream, StreamExt};
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{
    Data, ErrorExtensionValues, Executor, IntrospectionMode, Name, Pos, Positioned, Request,
    Response, ServerError, ServerResult, Value,
};
use moka::sync::Cache;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Arguments that size a page.
const PAGE_ARGUMENTS: [&str; 2] = ["first", "last"];

/// Check `request`'s document; the error answers the whole request. A document that does not parse
/// passes: the schema reports that itself.
pub fn precheck(request: &mut Request) -> ServerResult<()> {
    let closed = request.introspection_mode == IntrospectionMode::Disabled;
    let variables = std::mem::take(&mut request.variables);
    let checked = match request.parsed_query() {
        Ok(document) => check_document(document, &variables).and_then(|()| {
            if closed {
                check_no_introspection(document)
            } else {
                Ok(())
            }
        }),
        Err(_) => Ok(()),
    };
    request.variables = variables;
    checked
}

/// Bytes of query text whose parsed documents are kept (the text weighs twice, standing for its tree).
const REMEMBERED_DOCUMENTS_BYTES: u64 = 16 << 20;

/// The schema behind [`precheck`], the documents it parsed and the requests it found valid.
///
/// Clients send the same few documents again and again (with other variables); parsing one took 7 % of a
/// 20-ticket list page's CPU, cloning the kept tree is a fraction of that. Validating it again took as
/// much again: validation is a function of the schema, the document, the operation and the variables, so
/// a request equal in all three to one that ran without errors goes to `fast`, the same schema built with
/// [`ValidationMode::Fast`](async_graphql::ValidationMode::Fast) (which still measures complexity and depth against the limits).
#[derive(Clone)]
pub struct Checked {
    schema: AppSchema,
    fast: AppSchema,
    documents: Cache<String, ExecutableDocument>,
    validated: Cache<Validated, ()>,
}

/// What validating a request depends on besides the schema.
#[derive(Hash, PartialEq, Eq)]
struct Validated {
    query: String,
    operation: Option<String>,
    variables: String,
}

impl Validated {
    fn of(request: &Request) -> Self {
        Validated {
            query: request.query.clone(),
            operation: request.operation_name.clone(),
            variables: serde_json::to_string(&request.variables).unwrap_or_default(),
        }
    }

    fn weight(&self) -> u32 {
        let bytes = self.query.len() + self.variables.len();
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }
}

impl Checked {
    /// Wrap `schema`, and `fast`, the same schema built with [`ValidationMode::Fast`](async_graphql::ValidationMode::Fast).
    pub fn new(schema: AppSchema, fast: AppSchema) -> Self {
        let documents = Cache::builder()
            .weigher(|query: &String, _: &ExecutableDocument| {
                u32::try_from(query.len().saturating_mul(2)).unwrap_or(u32::MAX)
            })
            .max_capacity(REMEMBERED_DOCUMENTS_BYTES)
            .build();
        let validated = Cache::builder()
            .weigher(|request: &Validated, _: &()| request.weight())
            .max_capacity(REMEMBERED_DOCUMENTS_BYTES)
            .build();
        Checked {
            schema,
            fast,
            documents,
            validated,
        }
    }

    /// Give `request` its parsed document, parsing each distinct query text once. A document that does
    /// not parse is left for the executor to report.
    pub fn parse(&self, request: &mut Request) {
        if let Some(document) = self.documents.get(&request.query) {
            request.set_parsed_query(document);
        } else if let Ok(document) = request.parsed_query() {
            let document = document.clone();
            self.documents.insert(request.query.clone(), document);
        }
    }
}

/// Requests over HTTP come parsed ([`Checked::parse`]: the handler reads the operation first); the
/// WebSocket's are parsed here.
impl Executor for Checked {
    async fn execute(&self, mut request: Request) -> Response {
        if let Err(error) = precheck(&mut request) {
            return Response::from_errors(vec![error]);
        }
        let validated = Validated::of(&request);
        if self.validated.contains_key(&validated) {
            return self.fast.execute(request).await;
        }
        let response = self.schema.execute(request).await;
        // No errors at all: it passed validation (an error-free run of an invalid request is impossible).
        if response.errors.is_empty() {
            self.validated.insert(validated, ());
        }
        response
    }

    fn execute_stream(
        &self,
        mut request: Request,
        session_data: Option<Arc<Data>>,
    ) -> BoxStream<'static, Response> {
        self.parse(&mut request);
        match precheck(&mut request) {
            Ok(()) => Executor::execute_stream(&self.schema, request, session_data),
            Err(error) => stream::once(async move { Response::from_errors(vec![error]) }).boxed(),
        }
    }
}

/// Refuse a document that selects `__schema` or `__type` (both only exist on the query root).
fn check_no_introspection(document: &ExecutableDocument) -> ServerResult<()> {
    fn walk(
        document: &ExecutableDocument,
        set: &SelectionSet,
        seen: &mut HashSet<Name>,
    ) -> ServerResult<()> {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    if name == "__schema" || name == "__type" {
                        let mut error = ServerError::new(
                            "introspection is only available to authenticated callers",
                            Some(field.pos),
                        );
                        let mut extensions = ErrorExtensionValues::default();
                        extensions.set("code", "UNAUTHENTICATED");
                        error.extensions = Some(extensions);
                        return Err(error);
                    }
                }
                Selection::InlineFragment(fragment) => {
                    walk(document, &fragment.node.selection_set.node, seen)?
                }
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    if seen.insert(name.clone()) {
                        if let Some(fragment) = document.fragments.get(name) {
                            walk(document, &fragment.node.selection_set.node, seen)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
    for (_, operation) in document.operations.iter() {
        walk(
            document,
            &operation.node.selection_set.node,
            &mut HashSet::new(),
        )?;
    }
    Ok(())
}

/// Refuse the first out-of-range page size in `document`.
pub fn check_document(
    document: &ExecutableDocument,
    variables: &async_graphql::Variables,
) -> ServerResult<()> {
    for (_, operation) in document.operations.iter() {
        let mut values: HashMap<Name, Value> = operation
            .node
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
        let walk = Walk {
            document,
            values: &values,
        };
        walk.selection_set(&operation.node.selection_set.node, &mut HashSet::new())?;
    }
    Ok(())
}

struct Walk<'a> {
    document: &'a ExecutableDocument,
    values: &'a HashMap<Name, Value>,
}

impl Walk<'_> {
    fn selection_set(&self, set: &SelectionSet, seen: &mut HashSet<Name>) -> ServerResult<()> {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    for (name, value) in &field.node.arguments {
                        if PAGE_ARGUMENTS.contains(&name.node.as_str()) {
                            // A variable without a value resolves to nothing: nothing to check.
                            let resolved = value
                                .node
                                .clone()
                                .into_const_with(|var| self.values.get(&var).cloned().ok_or(()))
                                .ok();
                            self.check(name, resolved, value.pos)?;
                        }
                    }
                    self.selection_set(&field.node.selection_set.node, seen)?;
                }
                Selection::InlineFragment(fragment) => {
                    self.selection_set(&fragment.node.selection_set.node, seen)?;
                }
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    // A fragment is checked once; this also stops on (invalid) cyclic spreads.
                    if seen.insert(name.clone()) {
                        if let Some(fragment) = self.document.fragments.get(name) {
                            self.selection_set(&fragment.node.selection_set.node, seen)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Refuse `value` (already resolved against the variables) when it is out of range.
    fn check(&self, name: &Positioned<Name>, value: Option<Value>, pos: Pos) -> ServerResult<()> {
        let number = match value {
            Some(Value::Number(n)) => n.as_i64(),
            _ => None,
        };
        match number {
            Some(n) if !(0..=i64::from(MAX_PAGE)).contains(&n) => {
                Err(too_large(name.node.as_str(), n, pos))
            }
            _ => Ok(()),
        }
    }
}

fn too_large(argument: &str, got: i64, pos: Pos) -> ServerError {
    let mut error = ServerError::new(
        format!("`{argument}` must be between 0 and {MAX_PAGE} (got {got})"),
        Some(pos),
    );
    let mut extensions = ErrorExtensionValues::default();
    extensions.set("code", "BAD_USER_INPUT");
    // The same `fields` extension the resolvers' own check gives (see `AppError::field`).
    let fields = serde_json::json!({ argument: [format!("must be between 0 and {MAX_PAGE}")] });
    if let Ok(fields) = Value::from_json(fields) {
        extensions.set("fields", fields);
    }
    error.extensions = Some(extensions);
    error
}
