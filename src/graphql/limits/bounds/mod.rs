//! Bounds on a document, checked before anything walks it (docs/graphql.md, "Document limits").
//!
//! A GraphQL document is small text that can stand for an enormous tree: fragments spread fragments, so
//! forty of them spreading the next one twice are 2⁴⁰ selections, and a chain of thousands of them nests
//! as deep. Every later step (the introspection and page-size checks, pricing, async-graphql's
//! validation and execution) walks the document, most of them recursively and through fragments. So
//! [`Checked::parse`](super::Checked::parse) first reads the text ([`long`]: its length; [`scan`]: tokens,
//! bracket nesting), then the parsed tree ([`measure`]: operations, fragments, spreads per selection set,
//! depth and expanded size through fragments, cycles), each in one linear pass without recursion, and
//! refuses what is over a limit; later walks then stay within those bounds.
mod scan;
mod shape;
#[cfg(test)]
mod tests;

use async_graphql::{ErrorExtensionValues, ServerError};
pub use scan::{long, scan};
pub use shape::measure;

/// Brackets (`{`, `[`, `(`) nested in one another in a document's text. The parser descends one level
/// per bracket with deep stack frames; selections may nest [`MAX_DEPTH`] deep, and their arguments a few
/// levels more.
pub const MAX_NESTING: usize = 64;

/// Selection sets nested in one another, counting each fragment spread and inline fragment as a level,
/// as async-graphql's own recursion check does (its default limit): the walks after this one recurse at
/// most this deep.
pub const MAX_DEPTH: usize = 32;

/// What a bounded document measured.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The deepest operation, counted as [`MAX_DEPTH`] is.
    pub depth: usize,
    /// Selections once every spread is expanded: every operation's, and those of every fragment nothing
    /// spreads (validation walks those too).
    pub selections: u64,
}

/// Which bound a document broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Bytes of text.
    Bytes,
    /// Lexical tokens.
    Tokens,
    /// Brackets nested in the text.
    Nesting,
    /// Operations.
    Operations,
    /// Fragment definitions.
    Fragments,
    /// Fragment spreads in one selection set.
    Spreads,
    /// Selection sets nested through fragments.
    Depth,
    /// Selections with every spread expanded.
    Selections,
}

impl Bound {
    /// The name clients read in `extensions.bound`.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Bytes => "bytes",
            Bound::Tokens => "tokens",
            Bound::Nesting => "nesting",
            Bound::Operations => "operations",
            Bound::Fragments => "fragments",
            Bound::Spreads => "spreads",
            Bound::Depth => "depth",
            Bound::Selections => "selections",
        }
    }

    fn message(self, limit: u64, got: Option<u64>) -> String {
        let got = got.map_or_else(String::new, |got| format!(" (got {got})"));
        match self {
            Bound::Bytes => format!("a document may be at most {limit} bytes long{got}"),
            Bound::Tokens => format!("the document has more than {limit} tokens"),
            Bound::Nesting => format!("the document nests brackets more than {limit} levels deep"),
            Bound::Operations => format!("a document may hold at most {limit} operations{got}"),
            Bound::Fragments => format!("a document may define at most {limit} fragments{got}"),
            Bound::Spreads => {
                format!("a selection set may spread at most {limit} fragments{got}")
            }
            Bound::Depth => format!(
                "selections may nest at most {limit} levels deep, counting through fragments{got}"
            ),
            Bound::Selections => format!(
                "a document may hold at most {limit} selections once its fragments are expanded{got}"
            ),
        }
    }
}

/// The refusal of a document over `bound`: QUERY_TOO_COMPLEX, with the bound, its limit and, when
/// measured, what the document has.
pub fn too_complex(bound: Bound, limit: u64, got: Option<u64>) -> ServerError {
    let mut error = ServerError::new(bound.message(limit, got), None);
    let mut extensions = ErrorExtensionValues::default();
    extensions.set("code", "QUERY_TOO_COMPLEX");
    extensions.set("bound", bound.name());
    extensions.set("limit", limit);
    if let Some(got) = got {
        extensions.set("got", got);
    }
    error.extensions = Some(extensions);
    error
}
