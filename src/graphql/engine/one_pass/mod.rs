//! Plain selections: objects whose selected fields are all known without waiting (columns of the row,
//! rules on the viewer, relations already read with the page or in the request's loader cache) are
//! answered in one pass here, instead of one future per field through the general executor. Any
//! selection this module does not know how to answer exactly (an unknown field, a directive, a relation
//! not yet loaded, a value that would be an error) returns `None`, and the object goes to the general
//! executor unchanged, so both paths give the same answer (tests/api/graphql_plain*.rs compare them).
//!
//! Each field is defined once, with [`fields!`]: the resolver and the one-pass arm both read the
//! field's [`Answer`]. async-graphql's hidden items are read only in [`engine`].
//!
//! Why: async-graphql resolves every field as its own boxed future inside a `FuturesUnordered` with its
//! own context; for a page of 20 tickets with their people and project that is hundreds of futures and
//! most of the request's CPU.
mod answer;
pub mod engine;
mod fields;

pub use answer::{Answer, GroupOf, GroupsOf, Leaf, Nested, ProjectOf, TicketCountOf, UserOf};
pub(crate) use engine::plain_output;
pub(crate) use fields::fields;

use crate::auth::Actor;
use crate::graphql::context::Cache;
use crate::graphql::context::RequestContext;
use async_graphql::dataloader::{DataLoader, Loader};
use async_graphql::parser::types::{Field, FragmentDefinition, Selection, SelectionSet};
use async_graphql::{Name, Positioned, Value};
use futures_util::FutureExt;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

/// What a plain field may read: the document's fragments, the request and the viewer.
pub struct Env<'a> {
    fragments: &'a HashMap<Name, Positioned<FragmentDefinition>>,
    /// The request's context (loaders).
    pub req: &'a RequestContext,
    /// The signed-in viewer.
    pub actor: Arc<Actor>,
}

/// A GraphQL object that can answer some of its fields without the executor.
pub trait Plain {
    /// Its GraphQL type name (also the answer to `__typename`).
    const NAME: &'static str;
    /// Interfaces it implements: fragments on these apply to it.
    const INTERFACES: &'static [&'static str];

    /// The value of `field`, or `None` when only the general executor can answer it.
    fn field(&self, field: &Field, env: &Env<'_>) -> Option<Value>;
}

/// The whole answer for `object` under `set`, or `None` when some field is not plain.
pub fn object<T: Plain>(object: &T, set: &SelectionSet, env: &Env<'_>) -> Option<Value> {
    let mut map = engine::Map::with_capacity(set.items.len());
    collect(object, set, env, &mut map)?;
    Some(Value::Object(map))
}

/// The answer for a relation field by its key in `loader` (no key: null), when the related record is
/// already in that loader's cache; `wrap` makes the GraphQL object of the record.
pub fn relation<K, L, T: Plain>(
    loader: &DataLoader<L, Cache>,
    key: Option<K>,
    wrap: impl FnOnce(L::Value) -> T,
    field: &Field,
    env: &Env<'_>,
) -> Option<Value>
where
    K: Send + Sync + Hash + Eq + Clone + 'static,
    L: Loader<K>,
{
    let found = match key {
        Some(key) => cached(loader, key)?,
        None => None,
    };
    match found {
        Some(record) => object(&wrap(record), &field.selection_set.node, env),
        None => Some(Value::Null),
    }
}

fn applies<T: Plain>(condition: Option<&str>) -> bool {
    condition.is_none_or(|on| on == T::NAME || T::INTERFACES.contains(&on))
}

/// Fields in document order, fragments flattened where their type condition applies, as the
/// executor's own field collection does.
fn collect<T: Plain>(
    object: &T,
    set: &SelectionSet,
    env: &Env<'_>,
    map: &mut engine::Map,
) -> Option<()> {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(field) => {
                let field = &field.node;
                // `@skip`/`@include` are gone by now; any other directive is the executor's.
                if !field.directives.is_empty() {
                    return None;
                }
                let key = field.response_key().node.clone();
                // A leaf selected twice keeps its first place and takes the last value, as in the
                // executor; merging the sub-selections of an object selected twice is the executor's.
                if !field.selection_set.node.items.is_empty() && map.contains_key(&key) {
                    return None;
                }
                let value = if field.name.node == "__typename" {
                    Value::String(T::NAME.to_owned())
                } else {
                    object.field(field, env)?
                };
                map.insert(key, value);
            }
            Selection::InlineFragment(fragment) => {
                let fragment = &fragment.node;
                if !fragment.directives.is_empty() {
                    return None;
                }
                let on = fragment
                    .type_condition
                    .as_ref()
                    .map(|c| c.node.on.node.as_str());
                if applies::<T>(on) {
                    collect(object, &fragment.selection_set.node, env, map)?;
                }
            }
            Selection::FragmentSpread(spread) => {
                if !spread.node.directives.is_empty() {
                    return None;
                }
                let fragment = &env.fragments.get(&spread.node.fragment_name.node)?.node;
                if applies::<T>(Some(fragment.type_condition.node.on.node.as_str())) {
                    collect(object, &fragment.selection_set.node, env, map)?;
                }
            }
        }
    }
    Some(())
}

/// A value already in the loader's cache for this request, or `None` when it would have to be
/// loaded (or loading failed): the executor then loads it, batched, and reports any error.
pub fn cached<K, L>(loader: &DataLoader<L, Cache>, key: K) -> Option<Option<L::Value>>
where
    K: Send + Sync + Hash + Eq + Clone + 'static,
    L: Loader<K>,
{
    loader.load_one(key).now_or_never()?.ok()
}
