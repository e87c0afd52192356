//! Checks on the parsed document alone: page sizes in range, and no introspection when it is closed.
use super::*;

/// Arguments that size a page.
const PAGE_ARGUMENTS: [&str; 2] = ["first", "last"];

/// Deepest these walks recurse; the document bounds ([`bounds::MAX_DEPTH`]) keep every document they see
/// within it, and a deeper one is refused rather than walked.
const MAX_WALK_DEPTH: usize = 2 * bounds::MAX_DEPTH;

/// The refusal of a document deeper than the walks go.
fn too_deep() -> ServerError {
    bounds::too_complex(bounds::Bound::Depth, bounds::MAX_DEPTH as u64, None)
}

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

/// Refuse a document that selects `__schema` or `__type` (both only exist on the query root).
fn check_no_introspection(document: &ExecutableDocument) -> ServerResult<()> {
    fn walk(
        document: &ExecutableDocument,
        set: &SelectionSet,
        seen: &mut HashSet<Name>,
        depth: usize,
    ) -> ServerResult<()> {
        if depth > MAX_WALK_DEPTH {
            return Err(too_deep());
        }
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
                    walk(document, &fragment.node.selection_set.node, seen, depth + 1)?
                }
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    if seen.insert(name.clone()) {
                        if let Some(fragment) = document.fragments.get(name) {
                            walk(document, &fragment.node.selection_set.node, seen, depth + 1)?;
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
            0,
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
        let values = crate::graphql::limits::cost::variable_values(&operation.node, variables);
        let walk = Walk {
            document,
            values: &values,
        };
        walk.selection_set(&operation.node.selection_set.node, &mut HashSet::new(), 0)?;
    }
    Ok(())
}

struct Walk<'a> {
    document: &'a ExecutableDocument,
    values: &'a HashMap<Name, Value>,
}

impl Walk<'_> {
    fn selection_set(
        &self,
        set: &SelectionSet,
        seen: &mut HashSet<Name>,
        depth: usize,
    ) -> ServerResult<()> {
        if depth > MAX_WALK_DEPTH {
            return Err(too_deep());
        }
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
                    self.selection_set(&field.node.selection_set.node, seen, depth + 1)?;
                }
                Selection::InlineFragment(fragment) => {
                    self.selection_set(&fragment.node.selection_set.node, seen, depth + 1)?;
                }
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    // A fragment is checked once; this also stops on (invalid) cyclic spreads.
                    if seen.insert(name.clone()) {
                        if let Some(fragment) = self.document.fragments.get(name) {
                            self.selection_set(&fragment.node.selection_set.node, seen, depth + 1)?;
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
