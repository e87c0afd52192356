//! Ranked full-text search over tickets and their comments, for every door: a search string read once
//! ([`Search`]), the ranked page of what the viewer may see (`TicketReads::ranked`, one statement), the
//! tickets, and highlights cut only from text the viewer may read.
//!
//! What a viewer may match is what they may read: a ticket's internal notes count only for those who may
//! read them (the team, its assignee and its group), for the hit, the count and the rank alike.
mod highlight;
mod syntax;

pub use highlight::{Highlighter, MAX_HIGHLIGHTS};
pub use syntax::{Search, MAX_CHARS, MAX_TERMS};

use crate::auth::Actor;
use crate::db::Db;
use crate::error::AppResult;
use crate::sanitize::html_to_text;
use crate::service::comments;
use crate::service::tickets::{self, TicketFilter, TicketReads};
use entity::ticket;

/// A ticket a search found.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The ticket.
    pub ticket: ticket::Model,
    /// How well it matches: higher is better, within one search only.
    pub score: f64,
    /// Passages around the matched words (see [`Highlighter`]), title first; empty when not asked for.
    pub highlights: Vec<String>,
}

/// A page of hits, best first, and how many there are in all.
#[derive(Debug, Default)]
pub struct Hits {
    /// This page's hits.
    pub hits: Vec<Hit>,
    /// Hits over all pages.
    pub total: u64,
}

/// Which hits a search returns, and whether it cuts highlights.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Hits to skip.
    pub offset: u64,
    /// Hits to return.
    pub limit: u64,
    /// Whether to cut highlights (reading the comments of the page's tickets).
    pub highlights: bool,
}

/// The visible, live tickets matching `filter` that `search` finds, best first. A blank search, or one that
/// only excludes words, finds nothing. The door reads the search string ([`Search::parse`]), so that it can
/// say what a refused one means where it is typed.
pub async fn search(
    db: &Db,
    reads: &TicketReads,
    actor: &Actor,
    search: &Search,
    filter: &TicketFilter,
    window: Window,
) -> AppResult<Hits> {
    let (ranked, total) = reads
        .ranked(db, actor, search, filter, (window.offset, window.limit))
        .await?;
    let ids: Vec<i32> = ranked.iter().map(|(id, _)| *id).collect();
    let mut found = tickets::get_many(&db.conn, actor, &ids).await?;
    let mut texts = if window.highlights && !ids.is_empty() {
        comments::live_by_ticket(&db.conn, actor, &ids).await?
    } else {
        Default::default()
    };
    let highlighter = window
        .highlights
        .then(|| Highlighter::new(&search.wanted_words()));
    let hits = ranked
        .into_iter()
        .filter_map(|(id, score)| {
            let ticket = found.remove(&id)?;
            let highlights = match &highlighter {
                Some(h) => {
                    let description = html_to_text(&ticket.description);
                    let comments = texts.remove(&id).unwrap_or_default().comments;
                    let bodies: Vec<String> =
                        comments.iter().map(|c| html_to_text(&c.body)).collect();
                    let all = [ticket.title.as_str(), description.as_str()]
                        .into_iter()
                        .chain(bodies.iter().map(String::as_str));
                    h.passages(all)
                }
                None => Vec::new(),
            };
            Some(Hit {
                ticket,
                score,
                highlights,
            })
        })
        .collect();
    Ok(Hits { hits, total })
}
