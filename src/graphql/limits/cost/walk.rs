//! The walk over an operation's selections that counts its nodes, counts, searches and root fields.
use super::{Model, Size, LIST_MAX, SENSITIVE_MUTATIONS};
use crate::graphql::connection::DEFAULT_PAGE;
use async_graphql::parser::types::{ExecutableDocument, Field, Selection, SelectionSet};
use async_graphql::{Name, Value};
use std::collections::HashMap;

/// Deepest the walk recurses. The bounds checked when a document is parsed (`limits::bounds`) keep every
/// document well within it; a deeper one is priced as unaffordable rather than walked further.
const MAX_WALK_DEPTH: usize = 64;

/// Arguments (or fields of an argument's input object) that make a list a text search: every row
/// matching the rest of the filter is visited, whatever the page size (`TicketFilter.query`, `users(query:)`,
/// `AssetFilter.search`).
const SEARCH_ARGUMENTS: [&str; 2] = ["query", "search"];

/// Root fields that read every ticket of a range (up to `service::reports::MAX_TICKETS`) to answer one
/// object, however little of it is selected: each is priced as [`REPORT_SCANS`] scans.
const REPORTS: [&str; 1] = ["ticketReport"];

/// Scans a report is priced as: it reads up to a thousand pages' worth of tickets in one go.
pub(super) const REPORT_SCANS: u64 = 10;

/// What a selection could cost for one parent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// Nodes it could return.
    pub nodes: u64,
    /// Counts (`totalCount`) it could run.
    pub counts: u64,
    /// Statements that visit every row matching a text search (a searched list's page and its count), and
    /// reports, each priced as [`REPORT_SCANS`] of them.
    pub scans: u64,
}

impl Tally {
    const UNAFFORDABLE: Tally = Tally {
        nodes: u64::MAX,
        counts: u64::MAX,
        scans: u64::MAX,
    };

    fn plus(self, other: Tally) -> Tally {
        Tally {
            nodes: self.nodes.saturating_add(other.nodes),
            counts: self.counts.saturating_add(other.counts),
            scans: self.scans.saturating_add(other.scans),
        }
    }

    fn times(self, n: u64) -> Tally {
        Tally {
            nodes: self.nodes.saturating_mul(n),
            counts: self.counts.saturating_mul(n),
            scans: self.scans.saturating_mul(n),
        }
    }
}

/// A selection set's tally, split as a connection needs it: what runs once per parent, what runs for
/// each item of a page (under `nodes` and `edges`), and the `totalCount`s selected on a connection,
/// priced by the connection that holds them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Part {
    once: Tally,
    items: Tally,
    counts: u64,
}

impl Part {
    fn plus(self, other: Part) -> Part {
        Part {
            once: self.once.plus(other.once),
            items: self.items.plus(other.items),
            counts: self.counts.saturating_add(other.counts),
        }
    }

    /// Everything, for a parent that is not a connection: items and counts once.
    pub(super) fn whole(self) -> Tally {
        self.once.plus(self.items).plus(Tally {
            counts: self.counts,
            ..Tally::default()
        })
    }
}

pub(super) struct Walk<'a> {
    pub(super) model: &'a Model,
    pub(super) document: &'a ExecutableDocument,
    pub(super) values: &'a HashMap<Name, Value>,
    /// Each fragment's part for one parent (`None` while being priced: a cycle, which the bounds refuse
    /// anyway, counts nothing).
    pub(super) fragments: HashMap<Name, Option<Part>>,
    pub(super) root_fragments: HashMap<Name, Option<(usize, usize)>>,
    pub(super) variable: bool,
}

impl Walk<'_> {
    /// The part of `set`, selected on `ty`, for one parent.
    pub(super) fn count(&mut self, ty: &str, set: &SelectionSet, depth: usize) -> Part {
        if depth > MAX_WALK_DEPTH {
            return Part {
                once: Tally::UNAFFORDABLE,
                ..Part::default()
            };
        }
        let mut total = Part::default();
        for item in &set.items {
            let part = match &item.node {
                Selection::Field(field) => self.field(ty, &field.node, depth),
                Selection::InlineFragment(fragment) => {
                    let fragment = &fragment.node;
                    let on = fragment
                        .type_condition
                        .as_ref()
                        .map_or(ty, |c| c.node.on.node.as_str());
                    self.count(on, &fragment.selection_set.node, depth + 1)
                }
                Selection::FragmentSpread(spread) => {
                    self.fragment(&spread.node.fragment_name.node, depth + 1)
                }
            };
            total = total.plus(part);
        }
        total
    }

    fn field(&mut self, ty: &str, field: &Field, depth: usize) -> Part {
        let name = field.name.node.as_str();
        if name == "totalCount" && ty.ends_with("Connection") {
            return Part {
                counts: 1,
                ..Part::default()
            };
        }
        let Some(model) = self
            .model
            .types
            .get(ty)
            .and_then(|fields| fields.get(name))
            .cloned()
        else {
            // `__typename`, introspection, or a field validation will refuse.
            return Part::default();
        };
        let below = self.count(&model.target, &field.selection_set.node, depth + 1);
        match model.size {
            None if ty == "Query" && REPORTS.contains(&name) => Part {
                once: below.whole().plus(Tally {
                    scans: REPORT_SCANS,
                    ..Tally::default()
                }),
                ..Part::default()
            },
            None => Part {
                once: below.whole(),
                ..Part::default()
            },
            // `nodes` and `edges`: the page the connection sized.
            Some(Size::Items) => Part {
                items: below.whole(),
                ..Part::default()
            },
            Some(Size::Page) => {
                let n = self.size(Size::Page, field);
                // A searched page visits every match, however small the page; so does its count.
                let searched = u64::from(self.searches(field));
                let own = Tally {
                    nodes: n,
                    counts: below.counts,
                    scans: searched.saturating_add(searched.saturating_mul(below.counts)),
                };
                Part {
                    once: own.plus(below.once).plus(below.items.times(n)),
                    ..Part::default()
                }
            }
            Some(size) => {
                let n = self.size(size, field);
                Part {
                    once: Tally {
                        nodes: n,
                        ..Tally::default()
                    }
                    .plus(below.whole().times(n)),
                    ..Part::default()
                }
            }
        }
    }

    fn fragment(&mut self, name: &Name, depth: usize) -> Part {
        if let Some(known) = self.fragments.get(name) {
            return known.unwrap_or_default();
        }
        let Some(fragment) = self.document.fragments.get(name) else {
            return Part::default();
        };
        self.fragments.insert(name.clone(), None);
        let fragment = &fragment.node;
        let part = self.count(
            fragment.type_condition.node.on.node.as_str(),
            &fragment.selection_set.node,
            depth,
        );
        self.fragments.insert(name.clone(), Some(part));
        part
    }

    /// An argument's value, with the request's variables.
    fn argument(&mut self, field: &Field, wanted: &str) -> Option<Value> {
        let values = self.values;
        let mut variable = false;
        let value = field
            .get_argument(wanted)?
            .node
            .clone()
            .into_const_with(|var| {
                variable = true;
                values.get(&var).cloned().ok_or(())
            })
            .ok();
        self.variable |= variable;
        value
    }

    /// Whether `field` searches text: a non-blank [`SEARCH_ARGUMENTS`] argument, or one in an input object.
    fn searches(&mut self, field: &Field) -> bool {
        let text =
            |value: Option<&Value>| matches!(value, Some(Value::String(s)) if !s.trim().is_empty());
        let names: Vec<Name> = field
            .arguments
            .iter()
            .map(|(n, _)| n.node.clone())
            .collect();
        names.iter().any(|name| {
            let value = self.argument(field, name);
            if SEARCH_ARGUMENTS.contains(&name.as_str()) && text(value.as_ref()) {
                return true;
            }
            match &value {
                Some(Value::Object(fields)) => SEARCH_ARGUMENTS
                    .iter()
                    .any(|wanted| text(fields.get(*wanted))),
                _ => false,
            }
        })
    }

    /// The multiplier of a sized field.
    fn size(&mut self, size: Size, field: &Field) -> u64 {
        match size {
            Size::List => LIST_MAX,
            Size::Items => 1,
            Size::Ids => match self.argument(field, "ids") {
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
                let first = page(self.argument(field, "first"));
                let last = page(self.argument(field, "last"));
                match (first, last) {
                    (None, None) => DEFAULT_PAGE as u64,
                    (first, last) => first.unwrap_or(0).max(last.unwrap_or(0)),
                }
            }
        }
    }

    /// Root fields (aliases included) and, among them, sensitive mutations under `set`.
    pub(super) fn root(&mut self, set: &SelectionSet, depth: usize) -> (usize, usize) {
        if depth > MAX_WALK_DEPTH {
            return (usize::MAX, usize::MAX);
        }
        let mut fields = 0usize;
        let mut sensitive = 0usize;
        for item in &set.items {
            let (f, s) = match &item.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    (1, usize::from(SENSITIVE_MUTATIONS.contains(&name)))
                }
                Selection::InlineFragment(fragment) => {
                    self.root(&fragment.node.selection_set.node, depth + 1)
                }
                Selection::FragmentSpread(spread) => {
                    let name = &spread.node.fragment_name.node;
                    match self.root_fragments.get(name) {
                        Some(known) => known.unwrap_or((0, 0)),
                        None => match self.document.fragments.get(name) {
                            Some(fragment) => {
                                self.root_fragments.insert(name.clone(), None);
                                let counted =
                                    self.root(&fragment.node.selection_set.node, depth + 1);
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
