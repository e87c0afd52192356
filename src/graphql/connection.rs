//! Relay connections over offset pages: opaque cursors, `first/after` and `last/before`, page info.
use crate::error::{AppError, AppResult};
use async_graphql::SimpleObject;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// Page size when neither `first` nor `last` is given.
pub const DEFAULT_PAGE: i32 = 20;
/// Largest `first`/`last` accepted.
pub const MAX_PAGE: i32 = 100;

/// Where a page starts and ends, as Relay describes it.
#[derive(SimpleObject, Clone, Debug, Default)]
pub struct PageInfo {
    /// More items after this page.
    pub has_next_page: bool,
    /// More items before this page.
    pub has_previous_page: bool,
    /// Cursor of the first item.
    pub start_cursor: Option<String>,
    /// Cursor of the last item.
    pub end_cursor: Option<String>,
}

/// The cursor of the item at `offset`.
pub fn cursor(offset: u64) -> String {
    STANDARD.encode(format!("cursor:{offset}"))
}

/// The largest offset a cursor may carry: far past any real list, and small enough that every sum made
/// from it (the next offset, a page end, the SQL OFFSET) stays within the databases' signed 64 bits.
const MAX_CURSOR: u64 = (i64::MAX as u64) / 2;

fn parse_cursor(field: &str, value: &str) -> AppResult<u64> {
    STANDARD
        .decode(value)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.strip_prefix("cursor:").and_then(|n| n.parse().ok()))
        .filter(|n| *n <= MAX_CURSOR)
        .ok_or_else(|| AppError::field(field, "not a valid cursor"))
}

fn check_size(field: &str, value: Option<i32>) -> AppResult<Option<u64>> {
    match value {
        Some(n) if !(0..=MAX_PAGE).contains(&n) => Err(AppError::field(
            field,
            format!("must be between 0 and {MAX_PAGE}"),
        )),
        Some(n) => Ok(Some(n as u64)),
        None => Ok(None),
    }
}

/// The arguments of a paginated field.
#[derive(Clone, Debug, Default)]
pub struct PageArgs {
    /// `first`.
    pub first: Option<i32>,
    /// `after`.
    pub after: Option<String>,
    /// `last`.
    pub last: Option<i32>,
    /// `before`.
    pub before: Option<String>,
}

/// A checked request for one window of a list.
#[derive(Clone, Copy, Debug)]
pub enum Window {
    /// Up to `limit` items from `offset`, stopping before `end` when given.
    Forward {
        /// First offset.
        offset: u64,
        /// Items wanted.
        limit: u64,
        /// Exclusive end (from `before`).
        end: Option<u64>,
    },
    /// The last `limit` items before `end` (the list's end when `None`), not before `start`.
    Backward {
        /// Inclusive start (from `after`).
        start: u64,
        /// Items wanted.
        limit: u64,
        /// Exclusive end (from `before`).
        end: Option<u64>,
    },
}

impl PageArgs {
    /// Check the sizes (0..=100, BAD_USER_INPUT otherwise) and decode the cursors.
    pub fn window(&self) -> AppResult<Window> {
        let first = check_size("first", self.first)?;
        let last = check_size("last", self.last)?;
        let start = match &self.after {
            Some(c) => parse_cursor("after", c)? + 1,
            None => 0,
        };
        let end = self
            .before
            .as_deref()
            .map(|c| parse_cursor("before", c))
            .transpose()?;
        match (first, last) {
            (Some(_), Some(_)) => Err(AppError::bad_request(
                "pass either `first` or `last`, not both",
            )),
            (None, Some(limit)) => Ok(Window::Backward { start, limit, end }),
            (first, None) => Ok(Window::Forward {
                offset: start,
                limit: first.unwrap_or(DEFAULT_PAGE as u64),
                end,
            }),
        }
    }
}

/// The rows of a window; callers read one extra row to learn whether more follow.
#[derive(Clone, Copy, Debug)]
pub struct Slice {
    /// Offset of the first row.
    pub offset: u64,
    /// Rows wanted.
    pub limit: u64,
}

/// Resolve a window into a slice; backward windows without `before` need the total.
pub fn slice(window: Window, total: Option<u64>) -> Slice {
    match window {
        Window::Forward { offset, limit, end } => {
            let limit = end.map_or(limit, |e| limit.min(e.saturating_sub(offset)));
            Slice { offset, limit }
        }
        Window::Backward { start, limit, end } => {
            let end = end.or(total).unwrap_or(0).max(start);
            let offset = end.saturating_sub(limit).max(start);
            Slice {
                offset,
                limit: end - offset,
            }
        }
    }
}

/// Page info for `returned` rows read at `slice`; `more_after` tells whether rows exist past the slice.
pub fn page_info(slice: Slice, returned: usize, more_after: bool) -> PageInfo {
    let count = returned as u64;
    PageInfo {
        has_next_page: more_after,
        has_previous_page: slice.offset > 0,
        start_cursor: (count > 0).then(|| cursor(slice.offset)),
        end_cursor: (count > 0).then(|| cursor(slice.offset + count - 1)),
    }
}
