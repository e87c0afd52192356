//! `ticket` and the `tickets` connection; its filter and ordering inputs are in `ticket_inputs`.
pub use super::ticket_inputs::{
    AssigneeFilter, OrderDirection, SlaFilter, TicketFilter, TicketOrder, TicketOrderField,
};
use crate::auth::Actor;
use crate::error::AppError;
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo, Window};
use crate::graphql::context::{request, viewer};
use crate::graphql::engine::prefetch;
use crate::graphql::ids;
use crate::graphql::types::Ticket;
use crate::service::tickets::{self, Joined};
use crate::service::PageRequest;
use async_graphql::{Context, Object, Result, SimpleObject, ID};
use std::sync::Arc;

/// Ticket queries.
#[derive(Default)]
pub struct TicketQuery;

/// An edge of a ticket list.
#[derive(SimpleObject)]
pub struct TicketEdge {
    /// Opaque cursor.
    cursor: String,
    /// The ticket.
    node: Ticket,
}

/// A page of tickets; `totalCount` costs a count query and runs only when selected.
pub struct TicketConnection {
    nodes: Vec<Ticket>,
    offset: u64,
    page_info: PageInfo,
    actor: Arc<Actor>,
    filter: tickets::TicketFilter,
    total: Option<u64>,
}

/// A page of tickets; `totalCount` costs a count query and runs only when selected.
#[Object]
impl TicketConnection {
    /// Edges with cursors.
    async fn edges(&self) -> Vec<TicketEdge> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, t)| TicketEdge {
                cursor: cursor(self.offset + i as u64),
                node: Ticket(t.0.clone()),
            })
            .collect()
    }

    /// The tickets of this page.
    async fn nodes(&self) -> &[Ticket] {
        &self.nodes
    }

    /// Paging state.
    async fn page_info(&self) -> &PageInfo {
        &self.page_info
    }

    /// Tickets matching, over all pages.
    async fn total_count(&self, ctx: &Context<'_>) -> Result<i64> {
        if let Some(total) = self.total {
            return Ok(total as i64);
        }
        let req = request(ctx)?;
        let reads = &req.state.ticket_reads;
        let total = reads
            .total(&req.state.db, &self.actor, &self.filter)
            .await?;
        Ok(total as i64)
    }
}

#[Object]
impl TicketQuery {
    /// One ticket by global id, database id or number (`TKT-042`, `tkt-42`, `42`); give exactly one.
    async fn ticket(
        &self,
        ctx: &Context<'_>,
        id: Option<ID>,
        database_id: Option<i32>,
        number: Option<String>,
    ) -> Result<Option<Ticket>> {
        let (req, actor) = viewer(ctx)?;
        let db = &req.state.db.conn;
        let db_id = match (id, database_id, number) {
            (Some(id), None, None) => {
                ids::decode(&id, "Ticket", "id").map_err(|_| AppError::not_found("ticket"))?
            }
            (None, Some(db_id), None) => db_id,
            (None, None, Some(number)) => {
                let found = tickets::get_by_number(db, &actor, &number, req.prefix()).await?;
                return Ok(Some(Ticket(found)));
            }
            _ => {
                return Err(
                    AppError::bad_request("give exactly one of id, databaseId and number").into(),
                )
            }
        };
        let selection = ctx.look_ahead();
        let found = if prefetch::ticket_wants_refs(&selection) {
            let reads = &req.state.ticket_reads;
            let (found, refs) = reads
                .one(&req.state.db, &actor, db_id, Joined::REFS)
                .await?;
            prefetch::feed_refs(req, refs);
            found
        } else {
            tickets::get(db, &actor, db_id).await?
        };
        Ok(Some(Ticket(found)))
    }

    /// Visible, non-archived tickets.
    #[allow(clippy::too_many_arguments)]
    async fn tickets(
        &self,
        ctx: &Context<'_>,
        filter: Option<TicketFilter>,
        order_by: Option<TicketOrder>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Result<TicketConnection> {
        let (req, actor) = viewer(ctx)?;
        let filter = filter
            .unwrap_or_default()
            .into_service(&req.state.db.conn, &req.state.custom_fields, &actor)
            .await?;
        let order = match order_by {
            Some(order) => {
                order
                    .into_service(&req.state.db.conn, &req.state.custom_fields, &actor)
                    .await?
            }
            None => tickets::TicketOrder::default(),
        };
        let args = PageArgs {
            first,
            after,
            last,
            before,
        };
        ticket_connection(ctx, filter, order, args).await
    }
}

/// One page of the visible, non-archived tickets matching `filter` (also behind `Project.tickets`).
pub async fn ticket_connection(
    ctx: &Context<'_>,
    filter: tickets::TicketFilter,
    order: tickets::TicketOrder,
    args: PageArgs,
) -> Result<TicketConnection> {
    let (req, actor) = viewer(ctx)?;
    let window = args.window()?;
    let db = &req.state.db;
    // Paging back from the end needs to know where the end is.
    let total = match window {
        Window::Backward { end: None, .. } => {
            Some(req.state.ticket_reads.total(db, &actor, &filter).await?)
        }
        _ => None,
    };
    let page = slice(window, total);
    let selection = ctx.look_ahead();
    let mut request = PageRequest {
        offset: page.offset,
        limit: page.limit + 1,
        with_total: false,
    };
    let mut total = total;
    let wants_refs = prefetch::connection_wants_refs(&selection);
    let joined = if wants_refs {
        Joined {
            project: prefetch::connection_wants(&selection, "project"),
            ..Joined::REFS
        }
    } else {
        Joined::NOTHING
    };
    // A total asked for rides along in the statement of a page read with its people.
    request.with_total = wants_refs && total.is_none() && selection.field("totalCount").exists();
    let query = tickets::TicketQuery::new(&actor, filter.clone(), order, request, joined);
    let found = req.state.ticket_reads.page(db, &actor, query).await?;
    total = total.or(found.total);
    let (mut rows, joined) = if wants_refs {
        (prefetch::feed_refs(req, found), Some(joined))
    } else {
        (found.tickets, None)
    };
    let more = rows.len() as u64 > page.limit;
    rows.truncate(page.limit as usize);
    prefetch::ticket_page(ctx, req, &rows, joined).await?;
    Ok(TicketConnection {
        page_info: page_info(page, rows.len(), more),
        offset: page.offset,
        nodes: rows.into_iter().map(Ticket).collect(),
        actor,
        filter,
        total,
    })
}
