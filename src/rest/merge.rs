//! Merging and splitting tickets, additive to the contract: `POST /api/tickets/{id}/merge/` and
//! `POST /api/tickets/{id}/split/`. Thin handlers over `service::tickets`; the ticket detail names the target
//! of a merged ticket (`merged_into`).
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::fields::id_value;
use crate::rest::json::JsonObject;
use crate::service::tickets::{self, MergedInto};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::routing::post;
use serde::Serialize;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/tickets/{id}/merge/", post(merge))
        .route("/api/tickets/{id}/split/", post(split))
}

/// The ticket a merged ticket went into.
#[derive(Serialize, ToSchema)]
pub struct MergedRef {
    /// Ticket id.
    id: i32,
    /// `TKT-042`.
    ticket_number: String,
}

impl MergedRef {
    /// The reference to `into`.
    pub fn of(into: MergedInto) -> Self {
        MergedRef {
            id: into.id,
            ticket_number: into.ticket_number,
        }
    }
}

/// `{"into": 42}`: the ticket to merge this one into.
#[derive(Serialize, ToSchema)]
pub struct MergeRequest {
    /// The target ticket's id.
    into: i32,
}

/// A merged ticket.
#[derive(Serialize, ToSchema)]
pub struct MergedTicket {
    /// Ticket id.
    id: i32,
    /// `TKT-042`.
    ticket_number: String,
    /// `closed`.
    status: &'static str,
    /// The ticket it went into.
    merged_into: MergedRef,
}

/// `POST /api/tickets/{id}/merge/` → 200.
#[utoipa::path(post, path = "/api/tickets/{id}/merge/", tag = "tickets", operation_id = "mergeTicket",
    summary = "Merge a ticket into another (team members only; final).",
    description = "Comments, attachments and time entries move to the target with their authors and times; tags \
        and followers are added to it (the merged ticket's requester becomes a follower); links are re-pointed where \
        they still make sense. The merged ticket is closed, its detail carries `merged_into`, and later comments \
        and email replies to it land on the target. Each requester is told in a public comment.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = MergeRequest,
    responses((status = 200, description = "Merged", body = MergedTicket),
        (status = 400, description = "No such target, the ticket itself, or a target merged itself (`into`)", body = crate::error::bodies::Error),
        (status = 403, description = "Not a team member", body = crate::error::bodies::Error),
        (status = 404, description = "No such ticket", body = crate::error::bodies::Error),
        (status = 409, description = "Merged already", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn merge(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<MergedTicket>> {
    let id = path_id(&id, "ticket")?;
    let into = body
        .get("into")
        .ok_or_else(|| AppError::field("into", "this field is required"))?;
    let into = id_value("into", into)?;
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let merged = tickets::merge(deps, &actor, id, tickets::MergeTarget::Id(into)).await?;
    Ok(axum::Json(MergedTicket {
        id: merged.source.id,
        ticket_number: merged.source.ticket_number,
        status: merged.source.status.as_str(),
        merged_into: MergedRef {
            id: merged.target.id,
            ticket_number: merged.target.ticket_number,
        },
    }))
}

/// `{"comments": [7, 9], "title": "Printer on floor 2"}`: the comments to split off, and the new ticket's title.
#[derive(Serialize, ToSchema)]
pub struct SplitRequest {
    /// Ids of live comments of the ticket (1 to 100).
    comments: Vec<i32>,
    /// The new ticket's title (default: the original's, with "(split from TKT-5)").
    title: Option<String>,
}

/// `POST /api/tickets/{id}/split/` → 201 with the new ticket.
#[utoipa::path(post, path = "/api/tickets/{id}/split/", tag = "tickets", operation_id = "splitTicket",
    summary = "Split comments off a ticket into a new one (team members only).",
    description = "The chosen comments, with their files and the time logged on them, move to a new ticket of the \
        same requester, project, group, assignee and priority, linked `relates_to` the original.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = SplitRequest,
    responses((status = 201, description = "The new ticket", body = crate::rest::shapes::TicketCreated),
        (status = 400, description = "No comments, too many, or one that is not a live comment of the ticket (`comments`); a bad title", body = crate::error::bodies::Error),
        (status = 403, description = "Not a team member", body = crate::error::bodies::Error),
        (status = 404, description = "No such ticket", body = crate::error::bodies::Error),
        (status = 409, description = "The ticket was merged", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn split(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<(
    axum::http::StatusCode,
    axum::Json<crate::rest::shapes::TicketCreated>,
)> {
    let id = path_id(&id, "ticket")?;
    let listed = body
        .get("comments")
        .ok_or_else(|| AppError::field("comments", "this field is required"))?
        .as_array()
        .ok_or_else(|| AppError::field("comments", "expected a list of comment ids"))?;
    let comment_ids = listed
        .iter()
        .map(|v| id_value("comments", v))
        .collect::<AppResult<Vec<i32>>>()?;
    let title = crate::rest::fields::Fields(&body).string_not_null("title")?;
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let input = tickets::SplitOff { comment_ids, title };
    let made = tickets::split(deps, &actor, id, input).await?;
    Ok((
        axum::http::StatusCode::CREATED,
        axum::Json(crate::rest::shapes::ticket_created(&made)),
    ))
}
