//! Relay connections over short lists read whole (projects, assets): `first`/`after` slice in memory.
use super::connection::{page_info, slice, PageArgs, PageInfo};
use crate::error::AppResult;

/// One page of a list read whole.
pub struct ListPage<T> {
    /// The rows of this page.
    pub rows: Vec<T>,
    /// Offset of the first row (for cursors).
    pub offset: u64,
    /// Paging state.
    pub page_info: PageInfo,
    /// Rows over all pages.
    pub total: u64,
}

/// The `first`/`after` window of `all` (sizes and cursors checked as for every connection).
pub fn page_of<T>(
    all: Vec<T>,
    first: Option<i32>,
    after: Option<String>,
) -> AppResult<ListPage<T>> {
    let window = PageArgs {
        first,
        after,
        last: None,
        before: None,
    }
    .window()?;
    let total = all.len() as u64;
    let s = slice(window, Some(total));
    let rows: Vec<T> = all
        .into_iter()
        .skip(s.offset as usize)
        .take(s.limit as usize)
        .collect();
    let more = s.offset + (rows.len() as u64) < total;
    Ok(ListPage {
        page_info: page_info(s, rows.len(), more),
        offset: s.offset,
        rows,
        total,
    })
}

/// Declares `$conn` and `$edge` for node type `$node` (a `Clone` wrapper built by `$node(model)`).
macro_rules! list_connection {
    ($conn:ident, $edge:ident, $node:ident, $model:ty) => {
        #[doc = concat!("An edge of a ", stringify!($node), " list.")]
        #[derive(async_graphql::SimpleObject)]
        pub struct $edge {
            /// Opaque cursor.
            cursor: String,
            /// The item.
            node: $node,
        }

        #[doc = concat!("A page of ", stringify!($node), " items.")]
        #[derive(async_graphql::SimpleObject)]
        pub struct $conn {
            /// Edges with cursors.
            edges: Vec<$edge>,
            /// The items of this page.
            nodes: Vec<$node>,
            /// Paging state.
            page_info: $crate::graphql::connection::PageInfo,
            /// Items over all pages.
            total_count: i64,
        }

        impl $conn {
            /// The connection for one page of models.
            pub fn from_page(page: $crate::graphql::list_connection::ListPage<$model>) -> Self {
                let edges = page
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, m)| $edge {
                        cursor: $crate::graphql::connection::cursor(page.offset + i as u64),
                        node: $node(m.clone()),
                    })
                    .collect();
                $conn {
                    edges,
                    nodes: page.rows.into_iter().map($node).collect(),
                    page_info: page.page_info,
                    total_count: page.total as i64,
                }
            }
        }
    };
}
pub(crate) use list_connection;
