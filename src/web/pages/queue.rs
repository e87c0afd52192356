//! `GET /tickets/`: the ticket queue, with the REST list's filters (`q`, `status`, `priority`,
//! `assigned`) and pages.
use super::{display_name, html, label, Layout, PageResult, PageUser};
use crate::domain::{Priority, TicketStatus};
use crate::rest::tickets::query::ListParams;
use crate::service::tickets::{self, counts, TicketOrder};
use crate::state::AppState;
use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

/// One row of the queue.
struct Row {
    id: i32,
    number: String,
    title: String,
    status: String,
    status_label: String,
    priority: String,
    priority_label: String,
    requester: String,
    assignee: String,
    updated: String,
}

/// A choice in a filter drop-down.
struct Choice {
    value: &'static str,
    label: String,
    selected: bool,
}

#[derive(Template)]
#[template(path = "queue.html")]
struct QueuePage {
    layout: Layout,
    rows: Vec<Row>,
    q: String,
    statuses: Vec<Choice>,
    priorities: Vec<Choice>,
    assigned: Vec<Choice>,
    count: u64,
    page: u64,
    pages: u64,
    previous: Option<String>,
    next: Option<String>,
}

fn choices(all: &[(&'static str, String)], current: &str) -> Vec<Choice> {
    all.iter()
        .map(|(value, label)| Choice {
            value,
            label: label.clone(),
            selected: *value == current,
        })
        .collect()
}

/// The queue page.
pub async fn page(
    State(state): State<AppState>,
    user: PageUser,
    RawQuery(raw): RawQuery,
) -> PageResult<Response> {
    let params = ListParams::parse(raw.as_deref())?;
    let db = &state.db.conn;
    let (items, total) = tickets::list(
        &state.db,
        &user.actor,
        &params.filter,
        TicketOrder::default(),
        params.page_request(),
        &state.config.ticket_prefix,
    )
    .await?;
    let count = total.unwrap_or_default();
    let people = counts::people_of(db, &user.actor, &items).await?;
    let name = |id: Option<i32>| {
        id.and_then(|id| people.get(&id))
            .map(display_name)
            .unwrap_or_default()
    };
    let rows = items
        .iter()
        .map(|t| Row {
            id: t.id,
            number: t.ticket_number.clone(),
            title: t.title.clone(),
            status: t.status.clone(),
            status_label: label(&t.status),
            priority: t.priority.clone(),
            priority_label: label(&t.priority),
            requester: name(Some(t.requester_id)),
            assignee: name(t.assignee_id),
            updated: crate::web::comments::web_date(&t.updated_at),
        })
        .collect();
    let any = || ("", "Any".to_string());
    let statuses: Vec<_> = std::iter::once(any())
        .chain(
            TicketStatus::ALL
                .iter()
                .map(|s| (s.as_str(), label(s.as_str()))),
        )
        .collect();
    let priorities: Vec<_> = std::iter::once(any())
        .chain(
            Priority::ALL
                .iter()
                .map(|p| (p.as_str(), label(p.as_str()))),
        )
        .collect();
    let assigned = [
        ("", "Anyone or nobody".to_string()),
        ("me", "Me".to_string()),
        ("any", "Someone".to_string()),
        ("none", "Nobody".to_string()),
    ];
    let base = "/tickets/";
    let page = QueuePage {
        layout: Layout::for_user(&user),
        rows,
        q: params.kept("q").to_string(),
        statuses: choices(&statuses, params.kept("status")),
        priorities: choices(&priorities, params.kept("priority")),
        assigned: choices(&assigned, &params.kept("assigned").to_ascii_lowercase()),
        count,
        page: params.page,
        pages: count.div_ceil(params.limit).max(1),
        previous: (params.page > 1).then(|| params.link_at(base, params.page - 1)),
        next: (params.page.saturating_mul(params.limit) < count)
            .then(|| params.link_at(base, params.page + 1)),
    };
    Ok(html(StatusCode::OK, &page))
}
