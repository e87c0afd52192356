//! `/api/tickets/`: list, detail, create, update and archive, as thin adapters over `service::tickets`.
mod body;
#[cfg(test)]
mod fuzz;
pub mod query;

use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::idempotency;
use crate::rest::json::JsonObject;
use crate::rest::shapes::{self, TicketExtras};
use crate::service::tickets::{self, Joined, TicketQuery};
use crate::service::{comments, custom_fields};
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;
use query::ListParams;

/// The ticket routes.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/tickets/", get(list).post(create))
        .route(
            "/api/tickets/{id}/",
            get(detail).patch(update).put(update).delete(archive),
        )
}

/// A path id that is not a positive number names no ticket: 404, like any unknown id.
fn ticket_id(raw: &str) -> AppResult<i32> {
    raw.parse::<i32>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| AppError::not_found("ticket"))
}

#[utoipa::path(get, path = "/api/tickets/", tag = "tickets", operation_id = "listTickets",
    summary = "List visible tickets, newest first.",
    params(
        ("q" = Option<String>, Query, description = "Text in title or description, or a ticket number (`TKT-042`, `42`)."),
        ("status" = Option<String>, Query, description = "Status, or several separated by commas."),
        ("priority" = Option<String>, Query, description = "Priority, or several separated by commas."),
        ("assigned" = Option<String>, Query, description = "`me`, `any`, `none` or a user id."),
        ("tag" = Option<String>, Query, description = "Tickets carrying every one of these tags, separated by commas (the team's filter: 403 for requesters)."),
        ("tag_any" = Option<String>, Query, description = "Tickets carrying at least one of these tags, separated by commas (the team's filter)."),
        ("field.<key>" = Option<String>, Query, description = "Tickets whose custom field `<key>` equals this (also `field.<key>.gte`, `.lte` and `.set=true|false`; see /api/custom-fields/)."),
        ("ordering" = Option<String>, Query, description = "`created_at` (default, descending), `updated_at`, `due_date`, `ticket_number` or `field.<key>`; a leading `-` for descending."),
        ("page" = Option<u32>, Query, minimum = 1, description = "Page number (default 1)."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Page size (default 20)."),
    ),
    responses((status = 200, description = "One page of tickets", body = shapes::Page), (status = 403, description = "A tag filter from someone who is not on the team", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
async fn list(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    RawQuery(raw): RawQuery,
) -> AppResult<Response> {
    let mut params = ListParams::parse(raw.as_deref())?;
    params
        .resolve_fields(&state.db.conn, &state.custom_fields, &actor)
        .await?;
    let query = TicketQuery::new(
        &actor,
        params.filter.clone(),
        params.order,
        params.page_request(),
        Joined::USERNAMES,
    );
    let page = state.ticket_reads.page(&state.db, &actor, query).await?;
    let count = page.total.unwrap_or_default();
    let body = shapes::Page {
        count,
        next: params.next(count),
        previous: params.previous(),
        results: page
            .tickets
            .iter()
            .map(|t| shapes::ticket_list_item(t, &page.usernames))
            .collect(),
    };
    // Serialised here, while the page it borrows from is alive.
    Ok(Json(body).into_response())
}

#[utoipa::path(get, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "getTicket",
    summary = "A visible ticket in detail.",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The ticket", body = shapes::TicketDetail)),
    security(("bearer" = [])))]
async fn detail(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<Response> {
    let (t, found) = state
        .ticket_reads
        .one(&state.db, &actor, ticket_id(&id)?, Joined::DETAIL)
        .await?;
    let t = &t;
    let comments_count = u64::try_from(comments::visible_count(&actor, t)).unwrap_or(0);
    let sla = found.clocks.get(&t.id);
    let listed =
        crate::service::attachments::list_visible_of(&state.db.conn, &actor, t, &found).await?;
    let extras = TicketExtras {
        people: &found.people,
        project: t.project_id.and_then(|id| found.projects.get(&id)),
        comments_count,
        sla,
        attachments: crate::rest::attachments::items(&state, &actor, &listed),
        merged_into: tickets::merged_into(&state.db.conn, t)
            .await?
            .map(crate::rest::merge::MergedRef::of),
        custom_fields: crate::rest::custom_fields::values(
            &custom_fields::of_ticket(
                &state.db.conn,
                &actor,
                &*state.custom_fields.active(&state.db.conn).await?,
                t,
            )
            .await?,
        ),
    };
    // Serialised here, while the row it borrows from is alive.
    Ok(Json(shapes::ticket_detail(t, &extras)).into_response())
}

#[utoipa::path(post, path = "/api/tickets/", tag = "tickets", operation_id = "createTicket",
    summary = "Open a ticket.",
    description = "With an `Idempotency-Key`, the create is safe to send again: within 24 hours, the same body \
        under the same key from the same account answers the first 201 again (same body) and creates nothing.",
    params(("Idempotency-Key" = Option<String>, Header,
        description = "1-255 visible ASCII characters (e.g. a UUID), chosen by the client for this create.")),
    request_body = crate::rest::openapi::request_bodies::TicketCreate,
    responses(
        (status = 201, description = "Created (or, sent again under its `Idempotency-Key`, the first answer)", body = shapes::TicketCreated),
        (status = 409, description = "The `Idempotency-Key` was already used for a different body (`conflict`)", body = crate::error::bodies::Error),
    ),
    security(("bearer" = [])))]
async fn create(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    headers: HeaderMap,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, Json<shapes::TicketCreated>)> {
    let mut input = body::new_ticket(&body)?;
    input.idempotency_key = idempotency::key(&headers)?;
    let created = tickets::create(
        state.write_deps(crate::domain::Channel::Rest),
        &actor,
        input,
    )
    .await
    .map_err(idempotency::name_header)?;
    Ok((StatusCode::CREATED, Json(shapes::ticket_created(&created))))
}

/// PATCH and PUT alike: a partial change (`openapi::aliases` documents the PUT).
#[utoipa::path(patch, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "updateTicket",
    summary = "Change some fields of a ticket.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = crate::rest::openapi::request_bodies::TicketPatch,
    responses((status = 200, description = "Updated", body = shapes::TicketUpdated),
        (status = 409, description = "The ticket was merged into another (`conflict`)", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
/// PATCH and PUT alike: a partial change.
async fn update(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<Json<shapes::TicketUpdated>> {
    let id = ticket_id(&id)?;
    let patch = body::ticket_patch(&body)?;
    let saved = tickets::update(
        state.write_deps(crate::domain::Channel::Rest),
        &actor,
        id,
        patch,
    )
    .await?;
    Ok(Json(shapes::ticket_updated(&saved)))
}

#[utoipa::path(delete, path = "/api/tickets/{id}/", tag = "tickets", operation_id = "archiveTicket",
    summary = "Archive a ticket (team members only).",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 204, description = "Archived")),
    security(("bearer" = [])))]
async fn archive(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    tickets::archive(
        state.write_deps(crate::domain::Channel::Rest),
        &actor,
        ticket_id(&id)?,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}
