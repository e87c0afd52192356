//! The ranked search's one statement: the visible, live tickets matching a filter (as every list reads them)
//! that the full-text index matches, best first, with their scores and the number of matches.
//!
//! A viewer is matched and ranked on a ticket's whole document (with its internal notes) only where they may
//! read its internal notes (`rules::internally_readable`), and on its public document everywhere else, so a
//! word that only an internal note holds gives them no hit, no count and no rank. See the migration
//! `m20261129_000042_ticket_search` for the documents.
//!
//! The score is the engine's relevance (PostgreSQL's `ts_rank_cd`, SQLite's bm25 with title 10, description 4
//! and comments 1), raised for recent activity: ×2 for a ticket changed now, ×1.5 a month ago, falling towards
//! ×1. Scores order one search's hits; they are not comparable across searches or engines.
use super::filter::{visible_query, TicketFilter};
use crate::service::search::Search;
use crate::service::tickets::rules::{self, Viewer};
use entity::ticket;
use sea_orm::sea_query::{Alias, Expr, ExprTrait, JoinType, Order, Query};
use sea_orm::{Condition, DbBackend, QuerySelect, QueryTrait, Statement};

/// Days over which the recency boost halves.
const RECENCY_DAYS: f64 = 30.0;

/// The statement: rows of (ticket id, score, matches in all) for `limit` hits from `offset`.
pub(super) fn statement(
    viewer: &Viewer,
    search: &Search,
    filter: &TicketFilter,
    prefix: &str,
    (offset, limit): (u64, u64),
    backend: DbBackend,
) -> Statement {
    let mut select = visible_query(viewer, filter, prefix)
        .select_only()
        .column(ticket::Column::Id);
    // Where the viewer may be matched on internal notes: `None` for everywhere (the team).
    let readable = (!viewer.team).then(|| rules::worked_by_viewer(viewer));
    let query = QueryTrait::query(&mut select);
    let (relevance, recency) = match backend {
        DbBackend::Postgres => {
            let text = search.websearch();
            let table = Alias::new("ticket_search");
            query.join(
                JoinType::InnerJoin,
                table.clone(),
                Expr::col((table, Alias::new("ticket_id")))
                    .equals((ticket::Entity, ticket::Column::Id)),
            );
            let matches = |doc: &str| {
                Expr::cust_with_values(
                    format!("ticket_search.{doc} @@ websearch_to_tsquery('deskgraph', $1)"),
                    [text.clone()],
                )
            };
            let rank = |doc: &str| {
                Expr::cust_with_values(
                    format!(
                        "ts_rank_cd(ticket_search.{doc}, websearch_to_tsquery('deskgraph', $1), 1)"
                    ),
                    [text.clone()],
                )
            };
            // The GIN index is on the whole document: every viewer's match goes through it.
            query.and_where(matches("all_doc"));
            let relevance = match readable {
                None => rank("all_doc"),
                Some(readable) => {
                    query.cond_where(
                        Condition::any()
                            .add(readable.clone())
                            .add(matches("public_doc")),
                    );
                    Expr::case(readable, rank("all_doc"))
                        .finally(rank("public_doc"))
                        .into()
                }
            };
            let age = Expr::cust(
                "greatest(0.0, extract(epoch FROM (now() - tickets.updated_at)) / 86400.0)",
            );
            (relevance, age)
        }
        _ => {
            let text = search.fts5();
            // Each FTS5 table is searched once, in a subquery joined on the ticket id (its rowid).
            let mut join = |table: &str, weights: &str, kind: JoinType| {
                let alias = Alias::new(format!("{table}_hit"));
                let hits = Query::select()
                    .expr_as(Expr::cust("rowid"), Alias::new("id"))
                    .expr_as(
                        Expr::cust(format!("-bm25({table}, {weights})")),
                        Alias::new("rank"),
                    )
                    .from(Alias::new(table))
                    .and_where(Expr::cust_with_values(
                        format!("{table} MATCH ?"),
                        [text.clone()],
                    ))
                    .to_owned();
                query.join_subquery(
                    kind,
                    hits,
                    alias.clone(),
                    Expr::col((alias.clone(), Alias::new("id")))
                        .equals((ticket::Entity, ticket::Column::Id)),
                );
                Expr::col((alias, Alias::new("rank")))
            };
            let relevance = match readable {
                None => join(
                    "ticket_search_all",
                    "10.0, 4.0, 1.0, 1.0",
                    JoinType::InnerJoin,
                ),
                Some(readable) => {
                    let all = join(
                        "ticket_search_all",
                        "10.0, 4.0, 1.0, 1.0",
                        JoinType::LeftJoin,
                    );
                    let public = join("ticket_search_public", "10.0, 4.0, 1.0", JoinType::LeftJoin);
                    let in_all = Expr::col((Alias::new("ticket_search_all_hit"), Alias::new("id")));
                    let in_public =
                        Expr::col((Alias::new("ticket_search_public_hit"), Alias::new("id")));
                    query.cond_where(
                        Condition::any()
                            .add(
                                Condition::all()
                                    .add(readable.clone())
                                    .add(in_all.is_not_null()),
                            )
                            .add(in_public.is_not_null()),
                    );
                    Expr::case(readable, all).finally(public).into()
                }
            };
            let age = Expr::cust(
                "coalesce(max(0.0, julianday('now') - julianday(tickets.updated_at)), 0.0)",
            );
            (relevance, age)
        }
    };
    // The age is never below 0 (a clock may say a change is in the future), so the boost is never below ×1.
    let boost = Expr::val(1.0)
        .add(Expr::val(1.0).div(Expr::val(1.0).add(recency.div(Expr::val(RECENCY_DAYS)))));
    let score = Alias::new("score");
    query.expr_as(relevance.mul(boost), score.clone());
    query.expr_as(Expr::cust("count(*) OVER ()"), Alias::new("matches"));
    query.order_by(score, Order::Desc);
    query.order_by((ticket::Entity, ticket::Column::Id), Order::Desc);
    crate::service::PageRequest {
        offset,
        limit,
        with_total: false,
    }
    .statement(select, backend)
}
