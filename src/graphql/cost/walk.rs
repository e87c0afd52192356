//! The walk over an operation's selections that counts its nodes and its root fields.
use super::{Model, Size, LIST_MAX, SENSITIVE_MUTATIONS};
use crate::graphql::connection::DEFAULT_PAGE;
use async_graphql::parser::types::{ExecutableDocument, Field, Selection, SelectionSet};
use async_graphql::{Name, Value};
use std::collections::HashMap;

pub(super) struct Walk<'a> {
    pub(super) model: &'a Model,
    pub(super) document: &'a ExecutableDocument,
    pub(super) values: &'a HashMap<Name, Value>,
    /// Nodes of each fragment under a multiplier of one (`None` while being priced: a cycle, which
    /// validation refuses anyway, counts nothing).
    pub(super) fragments: HashMap<Name, Option<u64>>,
    pub(super) root_fragments: HashMap<Name, Option<(usize, usize)>>,
    pub(super) variable: bool,
}

impl Walk<'_> {
    /// Nodes under `set`, selected on `ty`, for one parent.
    pub(super) fn count(&mut self, ty: &str, set: &SelectionSet) -> u64 {
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
    pub(super) fn root(&mut self, set: &SelectionSet) -> (usize, usize) {
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
