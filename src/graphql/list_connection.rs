//! Relay connections over lists paged by offset: short lists read whole and sliced in memory (projects), longer
//! ones read a window at a time (assets).
use super::connection::{page_info, slice, PageArgs, PageInfo, Slice};
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
    let s = forward(first, after)?;
    let total = all.len() as u64;
    let rows: Vec<T> = all
        .into_iter()
        .skip(s.offset as usize)
        .take(s.limit as usize)
        .collect();
    Ok(ListPage::of(s, rows, total))
}

/// The `first`/`after` window read by `read(offset, limit)`, which answers that window's rows and the total
/// (sizes and cursors checked as for every connection; nothing is read past the window).
pub async fn page_by<T, F, Fut>(
    first: Option<i32>,
    after: Option<String>,
    read: F,
) -> AppResult<ListPage<T>>
where
    F: FnOnce(u64, u64) -> Fut,
    Fut: std::future::Future<Output = AppResult<(Vec<T>, u64)>>,
{
    let s = forward(first, after)?;
    let (rows, total) = read(s.offset, s.limit).await?;
    Ok(ListPage::of(s, rows, total))
}

/// The rows `first` after `after` asks for (these lists page forwards only).
fn forward(first: Option<i32>, after: Option<String>) -> AppResult<Slice> {
    let window = PageArgs {
        first,
        after,
        last: None,
        before: None,
    }
    .window()?;
    Ok(slice(window, None))
}

impl<T> ListPage<T> {
    /// The page of `rows` read at `s`, out of `total`.
    fn of(s: Slice, rows: Vec<T>, total: u64) -> Self {
        let more = s.offset + (rows.len() as u64) < total;
        ListPage {
            page_info: page_info(s, rows.len(), more),
            offset: s.offset,
            rows,
            total,
        }
    }
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
