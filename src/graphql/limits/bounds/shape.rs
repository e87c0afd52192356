//! The parsed document's shape, measured without recursion: fragments, spreads per selection set,
//! nesting depth and expanded size, both counted through fragments, and cycles among fragments.
//!
//! Each selection set is read once, with an explicit stack. A fragment's depth and expanded size are
//! computed once, after those of every fragment it spreads (a post-order of the spread graph, found
//! with an explicit stack too), so a fragment spread twice by each of forty others costs forty steps,
//! not 2⁴⁰.
use super::{too_complex, Bound, Shape, MAX_DEPTH};
use crate::config::GraphqlLimits;
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{ErrorExtensionValues, Name, ServerError};
use std::collections::HashMap;

/// What one selection set and the sets inside it hold, spreads left unexpanded.
struct Own<'a> {
    /// Selections (fields, spreads and inline fragments) in the set and every set inside it.
    selections: u64,
    /// The deepest set inside, as async-graphql's recursion check counts: a field's set, an inline
    /// fragment's set and a spread fragment's set are each one deeper than the set holding them.
    depth: usize,
    /// Each spread, with the depth its fragment's set is at.
    spreads: Vec<(&'a Name, usize)>,
}

/// Read `set` and the sets inside it, refusing a set with more spreads than `max_spreads`.
fn own<'a>(set: &'a SelectionSet, max_spreads: usize) -> Result<Own<'a>, ServerError> {
    let mut found = Own {
        selections: 0,
        depth: 0,
        spreads: Vec::new(),
    };
    let mut pending = vec![(set, 0usize)];
    while let Some((set, depth)) = pending.pop() {
        let mut spreads = 0usize;
        for item in &set.items {
            found.selections += 1;
            match &item.node {
                Selection::Field(field) => {
                    if !field.node.selection_set.node.items.is_empty() {
                        pending.push((&field.node.selection_set.node, depth + 1));
                    }
                }
                Selection::InlineFragment(inline) => {
                    pending.push((&inline.node.selection_set.node, depth + 1));
                }
                Selection::FragmentSpread(spread) => {
                    spreads += 1;
                    found
                        .spreads
                        .push((&spread.node.fragment_name.node, depth + 1));
                }
            }
            found.depth = found.depth.max(depth);
        }
        if spreads > max_spreads {
            return Err(too_complex(
                Bound::Spreads,
                max_spreads as u64,
                Some(spreads as u64),
            ));
        }
    }
    Ok(found)
}

/// A fragment's measures with every spread expanded.
#[derive(Clone, Copy)]
struct Expanded {
    selections: u64,
    depth: usize,
}

/// Measure `document` against the limits; `Err` is the refusal.
pub fn measure(
    document: &ExecutableDocument,
    limits: &GraphqlLimits,
) -> Result<Shape, ServerError> {
    // Validation visits every operation, whichever the request names.
    let operations = document.operations.iter().count();
    if operations > limits.max_operations {
        return Err(too_complex(
            Bound::Operations,
            limits.max_operations as u64,
            Some(operations as u64),
        ));
    }
    let fragments = document.fragments.len();
    if fragments > limits.max_fragments {
        return Err(too_complex(
            Bound::Fragments,
            limits.max_fragments as u64,
            Some(fragments as u64),
        ));
    }
    let mut owns: HashMap<&Name, Own<'_>> = HashMap::with_capacity(fragments);
    for (name, fragment) in &document.fragments {
        owns.insert(
            name,
            own(&fragment.node.selection_set.node, limits.max_spreads)?,
        );
    }
    let mut expanded: HashMap<&Name, Expanded> = HashMap::with_capacity(fragments);
    for name in post_order(&owns)? {
        let Some(fragment) = owns.get(name) else {
            continue;
        };
        let measured = expand(fragment, &expanded);
        if measured.depth > MAX_DEPTH {
            return Err(too_complex(
                Bound::Depth,
                MAX_DEPTH as u64,
                Some(measured.depth as u64),
            ));
        }
        expanded.insert(name, measured);
    }
    let operations = document
        .operations
        .iter()
        .map(|(_, operation)| own(&operation.node.selection_set.node, limits.max_spreads))
        .collect::<Result<Vec<_>, _>>()?;
    // Every operation, and every fragment nothing spreads: validation walks each of them expanded.
    let spread: std::collections::HashSet<&Name> = owns
        .values()
        .chain(&operations)
        .flat_map(|own| own.spreads.iter().map(|(name, _)| *name))
        .collect();
    let mut shape = Shape::default();
    for own in &operations {
        let measured = expand(own, &expanded);
        if measured.depth > MAX_DEPTH {
            return Err(too_complex(
                Bound::Depth,
                MAX_DEPTH as u64,
                Some(measured.depth as u64),
            ));
        }
        shape.depth = shape.depth.max(measured.depth);
        shape.selections = shape.selections.saturating_add(measured.selections);
    }
    for (name, measured) in &expanded {
        if !spread.contains(name) {
            shape.selections = shape.selections.saturating_add(measured.selections);
        }
    }
    if shape.selections > limits.max_selections {
        return Err(too_complex(
            Bound::Selections,
            limits.max_selections,
            Some(shape.selections),
        ));
    }
    Ok(shape)
}

/// `own` with its spreads expanded, from the fragments measured already (an undefined fragment counts
/// nothing: validation refuses it).
fn expand(own: &Own<'_>, expanded: &HashMap<&Name, Expanded>) -> Expanded {
    let mut measured = Expanded {
        selections: own.selections,
        depth: own.depth,
    };
    for (name, at) in &own.spreads {
        if let Some(inner) = expanded.get(name) {
            measured.selections = measured.selections.saturating_add(inner.selections);
            measured.depth = measured.depth.max(at.saturating_add(inner.depth));
        }
    }
    measured
}

/// The fragments, each after every fragment it spreads; a cycle is refused.
fn post_order<'a>(owns: &HashMap<&'a Name, Own<'a>>) -> Result<Vec<&'a Name>, ServerError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut marks: HashMap<&Name, Mark> = HashMap::with_capacity(owns.len());
    let mut order = Vec::with_capacity(owns.len());
    // In name order, so that the cycle reported is the same on every instance.
    let mut starts: Vec<&Name> = owns.keys().copied().collect();
    starts.sort();
    for start in starts {
        if marks.contains_key(start) {
            continue;
        }
        // A fragment and how many of its spreads have been followed.
        let mut stack: Vec<(&Name, usize)> = vec![(start, 0)];
        marks.insert(start, Mark::Open);
        while let Some((name, next)) = stack.last_mut() {
            let spreads = owns.get(*name).map_or(&[][..], |own| &own.spreads[..]);
            match spreads.get(*next) {
                Some((target, _)) => {
                    *next += 1;
                    let target = *target;
                    if !owns.contains_key(target) {
                        continue;
                    }
                    match marks.get(target) {
                        Some(Mark::Open) => return Err(cycle(target)),
                        Some(Mark::Done) => {}
                        None => {
                            marks.insert(target, Mark::Open);
                            stack.push((target, 0));
                        }
                    }
                }
                None => {
                    let name = *name;
                    marks.insert(name, Mark::Done);
                    order.push(name);
                    stack.pop();
                }
            }
        }
    }
    Ok(order)
}

/// A fragment that spreads itself, directly or through others: not valid GraphQL, and never expanded.
fn cycle(name: &Name) -> ServerError {
    let mut error = ServerError::new(
        format!("fragment `{name}` spreads itself (directly or through other fragments)"),
        None,
    );
    let mut extensions = ErrorExtensionValues::default();
    extensions.set("code", "BAD_USER_INPUT");
    error.extensions = Some(extensions);
    error
}
