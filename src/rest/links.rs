//! Links between tickets, additive to the contract: `/api/tickets/{id}/links/` and resolving a parent's
//! children. Thin handlers over `service::links`.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::automation::TicketFailure;
use crate::rest::comments::path_id;
use crate::rest::fields::{id_value, Fields};
use crate::rest::json::JsonObject;
use crate::rest::shapes;
use crate::service::links::{self, LinkView};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use entity::values::LinkType;
use serde::Serialize;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/tickets/{id}/links/", get(list_links).post(add_link))
        .route("/api/tickets/{id}/links/{link_id}/", delete(remove_link))
        .route(
            "/api/tickets/{id}/children/resolve/",
            post(resolve_children),
        )
}

/// The ticket at a link's other end, briefly.
#[derive(Serialize, ToSchema)]
pub struct LinkedTicket {
    /// Ticket id.
    id: i32,
    /// `TKT-042`.
    ticket_number: String,
    /// Title.
    title: String,
    /// Status.
    status: String,
}

/// A link as this ticket sees it.
#[derive(Serialize, ToSchema)]
pub struct Link {
    /// Link id.
    id: i32,
    /// `parent_of`, `child_of`, `relates_to`, `duplicate_of`, `duplicated_by`, `blocks` or `blocked_by`: how this
    /// ticket stands to the other.
    #[serde(rename = "type")]
    link_type: &'static str,
    /// The other ticket.
    ticket: LinkedTicket,
}

impl Link {
    fn of(v: &LinkView) -> Self {
        Link {
            id: v.id,
            link_type: v.link_type.as_str(),
            ticket: LinkedTicket {
                id: v.other.id,
                ticket_number: v.other.ticket_number.clone(),
                title: v.other.title.clone(),
                status: v.other.status.as_str().to_string(),
            },
        }
    }
}

/// `{"type": "child_of", "ticket": 42}`.
#[derive(Serialize, ToSchema)]
pub struct NewLink {
    /// How this ticket stands to the other.
    #[serde(rename = "type")]
    link_type: String,
    /// The other ticket's id.
    ticket: i32,
}

/// What resolving a parent's open children did.
#[derive(Serialize, ToSchema)]
pub struct ChildrenResolved {
    /// The children resolved, as they are now.
    tickets: Vec<shapes::TicketUpdated>,
    /// The children that could not be (the workflow refused, or the caller may not change them).
    failures: Vec<TicketFailure>,
}

/// `GET /api/tickets/{id}/links/`.
#[utoipa::path(get, path = "/api/tickets/{id}/links/", tag = "links", operation_id = "listTicketLinks",
    summary = "A ticket's links to tickets the caller may see, by type and the other ticket's number.",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The links", body = Vec<Link>), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_links(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<axum::Json<Vec<Link>>> {
    let id = path_id(&id, "ticket")?;
    let found = links::of_ticket(&state.db.conn, &actor, id).await?;
    Ok(axum::Json(found.iter().map(Link::of).collect()))
}

/// `POST /api/tickets/{id}/links/` → 201, or 200 when the link was there already.
#[utoipa::path(post, path = "/api/tickets/{id}/links/", tag = "links", operation_id = "addTicketLink",
    summary = "Link a ticket to another (the team, the assignee and the assigned group); linking twice changes nothing.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = NewLink,
    responses((status = 201, description = "Linked", body = Link), (status = 200, description = "Linked already", body = Link), (status = 400, description = "A self-link, an unknown ticket, a second parent or a loop", body = crate::error::bodies::Error), (status = 403, description = "May not change the ticket", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn add_link(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<Link>)> {
    let id = path_id(&id, "ticket")?;
    let fields = Fields(&body);
    let link_type = fields
        .string_not_null("type")?
        .ok_or_else(|| AppError::field("type", "this field is required"))?;
    let link_type = LinkType::parse(&link_type)?;
    let other = body
        .get("ticket")
        .ok_or_else(|| AppError::field("ticket", "this field is required"))?;
    let other = id_value("ticket", other)?;
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let (made, created) = links::add(deps, &actor, id, link_type, other).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(Link::of(&made))))
}

/// `DELETE /api/tickets/{id}/links/{link_id}/` → 204.
#[utoipa::path(delete, path = "/api/tickets/{id}/links/{link_id}/", tag = "links", operation_id = "removeTicketLink",
    summary = "Remove one of a ticket's links.",
    params(("id" = i32, Path, description = "Ticket id"), ("link_id" = i32, Path, description = "Link id")),
    responses((status = 204, description = "Removed"), (status = 403, description = "May not change the ticket", body = crate::error::bodies::Error), (status = 404, description = "No such ticket or link", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn remove_link(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path((id, link_id)): Path<(String, String)>,
) -> AppResult<StatusCode> {
    let id = path_id(&id, "ticket")?;
    let link_id = path_id(&link_id, "link")?;
    let deps = state.write_deps(crate::domain::Channel::Rest);
    links::remove(deps, &actor, id, link_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/tickets/{id}/children/resolve/`: resolve the open children, each as a change by hand.
#[utoipa::path(post, path = "/api/tickets/{id}/children/resolve/", tag = "links", operation_id = "resolveChildren",
    summary = "Resolve a parent's open children the caller may see, one by one; those that cannot be are listed with why.",
    params(("id" = i32, Path, description = "Parent ticket id")),
    responses((status = 200, description = "What was done", body = ChildrenResolved), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn resolve_children(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<axum::Json<ChildrenResolved>> {
    let id = path_id(&id, "ticket")?;
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let mut done = ChildrenResolved {
        tickets: Vec::new(),
        failures: Vec::new(),
    };
    for (child, outcome) in links::resolve_children(deps, &actor, id).await? {
        match outcome {
            Ok(t) => done.tickets.push(shapes::ticket_updated(&t)),
            Err(err) => done.failures.push(TicketFailure::of(child, &err)),
        }
    }
    Ok(axum::Json(done))
}
