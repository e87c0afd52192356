//! `search`: ranked full-text search over the tickets the viewer may see (`service::search`).
use super::ticket_inputs::TicketFilter;
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo};
use crate::graphql::context::viewer;
use crate::graphql::types::Ticket;
use crate::service::search::{self, Window};
use async_graphql::{Context, Object, Result, SimpleObject};

/// The search query.
#[derive(Default)]
pub struct SearchQuery;

/// A ticket a search found.
#[derive(SimpleObject)]
pub struct SearchHit {
    /// The ticket.
    ticket: Ticket,
    /// How well it matches, higher first: the engine's relevance, raised for recent activity. Orders the
    /// hits of one search; not comparable across searches.
    score: f64,
    /// Up to three passages around the matched words, title first, then the description and the comments
    /// the viewer may read: plain text, HTML-escaped, each matched word in `<mark>…</mark>`.
    highlights: Vec<String>,
}

/// An edge of a search's hits.
#[derive(SimpleObject)]
pub struct SearchHitEdge {
    /// Opaque cursor.
    cursor: String,
    /// The hit.
    node: SearchHit,
}

/// A page of hits, best first.
#[derive(SimpleObject)]
pub struct SearchHitConnection {
    /// Edges with cursors.
    edges: Vec<SearchHitEdge>,
    /// The hits of this page.
    nodes: Vec<SearchHit>,
    /// Paging state.
    page_info: PageInfo,
    /// Hits over all pages.
    total_count: i64,
}

#[Object]
impl SearchQuery {
    /// Tickets matching `query`, best first: words (matched by their stems: "dropping" finds "dropped"),
    /// `"quoted phrases"`, `or` between alternatives and `-word` to leave a word out, over titles,
    /// descriptions and comments — internal notes only where the viewer may read them. A blank query, or one
    /// that only leaves words out, finds nothing. `filter` narrows as it does `tickets`.
    async fn search(
        &self,
        ctx: &Context<'_>,
        query: String,
        filter: Option<TicketFilter>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<SearchHitConnection> {
        let (req, actor) = viewer(ctx)?;
        let wanted = search::Search::parse(&query)?;
        let filter = filter
            .unwrap_or_default()
            .into_service(&req.state.db.conn, &req.state.custom_fields, &actor)
            .await?;
        let args = PageArgs {
            first,
            after,
            ..PageArgs::default()
        };
        let page = slice(args.window()?, None);
        let selection = ctx.look_ahead();
        let highlights = [
            selection.field("nodes"),
            selection.field("edges").field("node"),
        ]
        .iter()
        .any(|s| s.field("highlights").exists());
        let window = Window {
            offset: page.offset,
            limit: page.limit + 1,
            highlights,
        };
        let reads = &req.state.ticket_reads;
        let found = search::search(&req.state.db, reads, &actor, &wanted, &filter, window).await?;
        let mut hits = found.hits;
        let more = hits.len() as u64 > page.limit;
        hits.truncate(page.limit as usize);
        let node = |h: &search::Hit| SearchHit {
            ticket: Ticket(h.ticket.clone()),
            score: h.score,
            highlights: h.highlights.clone(),
        };
        let edges = hits
            .iter()
            .enumerate()
            .map(|(i, hit)| SearchHitEdge {
                cursor: cursor(page.offset + i as u64),
                node: node(hit),
            })
            .collect();
        Ok(SearchHitConnection {
            page_info: page_info(page, hits.len(), more),
            edges,
            nodes: hits.iter().map(node).collect(),
            total_count: i64::try_from(found.total).unwrap_or(i64::MAX),
        })
    }
}
