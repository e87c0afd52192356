//! `GET /tickets/`: the ticket queue, with the REST list's filters (`q`, `status`, `priority`,
//! `assigned`) and pages. Words in `q` list the ranked search's hits, best first (see [`read_rows`]).
use super::ticket::sla_badge::{most_urgent, TargetBadge};
use super::{display_name, html, Layout, PageResult, PageUser};
use crate::domain::parse_ticket_number;
use crate::domain::{Priority, StatusCategory, TicketStatus, Workflow};
use crate::rest::tickets::query::ListParams;
use crate::sanitize::html_escape;
use crate::service::sla::{self, SlaState};
use crate::service::tickets::{
    AssigneeFilter, Joined, People, TicketFilter, TicketOrder, TicketQuery, TicketSort,
};
use crate::service::{saved_views, search, users};
use crate::state::AppState;
use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use std::collections::HashMap;

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
    /// SLA: the most urgent target in words ("Resolution due in 25 min"), none without a clock.
    sla: Option<TargetBadge>,
    /// The SLA clock is stopped (a pausing status).
    sla_paused: bool,
    /// Its tags, for the team and the ticket's workers.
    tags: Vec<String>,
    /// Where a word search matched it beyond its title: escaped text, the words in `<mark>`.
    passage: Option<String>,
}

/// A choice in a filter drop-down.
struct Choice {
    value: &'static str,
    label: String,
    selected: bool,
}

/// A macro the queue offers to apply to the ticked tickets.
struct MacroChoice {
    id: i32,
    name: String,
}

/// A saved view of the queue (`?view=`).
struct View {
    value: &'static str,
    label: String,
    current: bool,
}

/// The views: every ticket, mine, my groups', unassigned, and breaching soon (a running SLA clock, the
/// earliest due first); each with the message that names it.
const VIEWS: [(&str, &str); 5] = [
    ("", "queue-view-all"),
    ("mine", "queue-view-mine"),
    ("groups", "queue-view-groups"),
    ("unassigned", "queue-view-unassigned"),
    ("breaching", "queue-view-breaching"),
];

/// A saved view in the views bar.
struct SavedLink {
    id: i32,
    name: String,
    href: String,
    /// The page shows exactly its filters.
    current: bool,
}

/// The queue's orders (`sort=`): the value, the message the drop-down calls it by, and the order it reads in.
/// Ties break on the ticket's id in the same direction.
const SORTS: [(&str, &str, TicketSort, bool); 8] = [
    ("", "queue-sort-newest", TicketSort::CreatedAt, true),
    ("oldest", "queue-sort-oldest", TicketSort::CreatedAt, false),
    (
        "-updated",
        "queue-sort-updated-recently",
        TicketSort::UpdatedAt,
        true,
    ),
    (
        "updated",
        "queue-sort-updated-least",
        TicketSort::UpdatedAt,
        false,
    ),
    ("due", "queue-sort-due-soonest", TicketSort::SlaDue, false),
    ("-due", "queue-sort-due-latest", TicketSort::SlaDue, true),
    (
        "-number",
        "queue-sort-number-highest",
        TicketSort::Number,
        true,
    ),
    (
        "number",
        "queue-sort-number-lowest",
        TicketSort::Number,
        false,
    ),
];

/// A column the queue sorts by from its header: the header links to its order (the first named, or the other
/// one when the list is already in the first), and says which way the list is sorted (`aria-sort`).
struct SortHeader {
    link: String,
    /// `ascending`, `descending`, or empty when the list is not in this column's order.
    aria: &'static str,
}

/// The status in which a ticket waits for its requester (the desk asked them something).
pub(super) const WAITING_FOR_REQUESTER: TicketStatus = TicketStatus::OnHold;

/// What a requester's queue offers: the tickets they may see (their own requests, and any they were given),
/// and those of their requests the desk has put on hold waiting for them.
const REQUESTER_VIEWS: [(&str, &str); 2] = [
    ("", "queue-view-my-requests"),
    ("waiting", "queue-view-waiting"),
];

#[derive(Template)]
#[template(path = "queue.html")]
struct QueuePage {
    layout: Layout,
    /// What the last macro applied from here did.
    flash: Option<String>,
    /// The macros a team member may apply to the tickets they tick.
    macros: Vec<MacroChoice>,
    /// A team member: the agent views and the assignee filter.
    team: bool,
    /// The signed-in user's id, for the keyboard's "assign to me".
    me: i32,
    views: Vec<View>,
    view: String,
    /// The user's saved views.
    saved: Vec<SavedLink>,
    /// This page's filters, view and order as a saved view keeps them.
    this_view: String,
    /// The save form's name, and why it was not saved, after a failed save.
    save_name: String,
    save_error: String,
    /// Done tickets are shown too (`closed=1`).
    show_closed: bool,
    /// The drop-down's orders.
    sorts: Vec<Choice>,
    /// The sortable headers.
    by_number: SortHeader,
    by_updated: SortHeader,
    by_sla: SortHeader,
    rows: Vec<Row>,
    q: String,
    /// The tags the list is narrowed to (the team's filter), as typed.
    tag: String,
    /// Whether the rows are a word search's hits, best first.
    ranked: bool,
    /// Said when a word search found nothing and the rows are the substring search's.
    note: Option<String>,
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
#[utoipa::path(get, path = "/tickets/", tag = "pages", operation_id = "pageQueue",
    summary = "Ticket queue with the REST list's filters and paging.",
    params(
        ("q" = Option<String>, Query, description = "Search"),
        ("status" = Option<String>, Query, description = "Status"),
        ("priority" = Option<String>, Query, description = "Priority"),
        ("assigned" = Option<String>, Query, description = "`me`, `any`, `none` or a user id"),
        ("page" = Option<u64>, Query, description = "Page, from 1"),
        ("closed" = Option<String>, Query, description = "`1`: resolved and closed tickets too (without it, and \
            without `status` or `q`, the queue lists the tickets still to do)"),
        ("sort" = Option<String>, Query, description = "Order: empty (newest first), `oldest`, `updated`, \
            `-updated`, `due`, `-due`, `number`, `-number`; an unknown one is the default"),
    ),
    responses(
        (status = 200, description = "HTML page", content_type = "text/html", body = String),
        (status = 303, description = "Not signed in: redirect to the sign-in page"),
    ),
    security(("session" = [])))]
pub async fn page(
    State(state): State<AppState>,
    user: PageUser,
    RawQuery(raw): RawQuery,
) -> PageResult<Response> {
    render(&state, &user, raw, None).await
}

/// A view the user tried to save and could not: what they typed and why.
struct Unsaved {
    name: String,
    error: String,
}

/// The queue for the query string `raw`; with `unsaved`, the save form says why the view was not saved (400).
async fn render(
    state: &AppState,
    user: &PageUser,
    raw: Option<String>,
    unsaved: Option<Unsaved>,
) -> PageResult<Response> {
    let mut params = ListParams::parse(raw.as_deref())?;
    params
        .resolve_fields(&state.db.conn, &state.custom_fields, &user.actor)
        .await?;
    let wanted = |name: &str| {
        url::form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    // The queue is the work still to do: done tickets (resolved, closed) show when asked for, by the toggle, a
    // status or a search.
    let show_closed = wanted("closed") == "1";
    if !show_closed && params.filter.statuses.is_empty() && params.kept("q").trim().is_empty() {
        params.filter.statuses = TicketStatus::ALL
            .iter()
            .copied()
            .filter(|s| s.category() != StatusCategory::Done)
            .collect();
    }
    // Requesters see their own world: their requests, no agent views, no assignee filter.
    let team = user.actor.is_team();
    let offered: &[(&str, &str)] = if team { &VIEWS } else { &REQUESTER_VIEWS };
    let view = offered
        .iter()
        .map(|(v, _)| *v)
        .find(|v| *v == wanted("view"))
        .unwrap_or("");
    let asked = wanted("sort");
    // An unknown order is the default one, as the REST list's `ordering` is.
    let mut sort = SORTS
        .iter()
        .find(|(value, ..)| *value == asked)
        .map_or("", |(value, ..)| *value);
    match view {
        "mine" => params.filter.assignee = Some(AssigneeFilter::Me),
        "groups" => params.filter.in_my_groups = true,
        "unassigned" => params.filter.assignee = Some(AssigneeFilter::Nobody),
        "waiting" => {
            params.filter.statuses = vec![WAITING_FOR_REQUESTER];
            params.filter.requester_id = Some(user.actor.id());
        }
        "breaching" => {
            params.filter.sla = Some(SlaState::Running);
            if asked.is_empty() {
                sort = "due";
            }
        }
        _ => {}
    }
    let order = SORTS
        .iter()
        .find(|(value, ..)| *value == sort)
        .map(|(_, _, by, descending)| TicketOrder {
            sort: *by,
            descending: *descending,
        })
        .unwrap_or_default();
    let read = read_rows(state, user, &params, order).await?;
    let (items, people, clocks, count) = (read.tickets, read.people, read.clocks, read.count);
    let (mut passages, mut tags) = (read.passages, read.tags);
    let name = |id: Option<i32>| {
        id.and_then(|id| people.get(&id))
            .map(display_name)
            .unwrap_or_default()
    };
    let now = chrono::Utc::now();
    let rows = items
        .iter()
        .map(|t| Row {
            tags: tags.remove(&t.id).unwrap_or_default(),
            passage: passages.remove(&t.id),
            id: t.id,
            number: t.ticket_number.clone(),
            title: t.title.clone(),
            status: t.status.to_string(),
            status_label: user.lang.label(t.status.as_str()),
            priority: t.priority.to_string(),
            priority_label: user.lang.label(t.priority.as_str()),
            requester: name(Some(t.requester_id)),
            assignee: name(t.assignee_id),
            updated: user.date(&t.updated_at),
            sla: clocks
                .get(&t.id)
                .and_then(|c| most_urgent(c, now, user.zone, user.lang)),
            // A done ticket's clock has stopped for good: "Paused" is for a clock that will run again.
            sla_paused: t.status.category() != StatusCategory::Done
                && clocks.get(&t.id).is_some_and(|c| c.paused_since.is_some()),
        })
        .collect();
    let lang = user.lang;
    let any = || ("", lang.t("queue-any"));
    let statuses: Vec<_> = std::iter::once(any())
        .chain(
            TicketStatus::ALL
                .iter()
                .map(|s| (s.as_str(), lang.label(s.as_str()))),
        )
        .collect();
    let priorities: Vec<_> = std::iter::once(any())
        .chain(
            Priority::ALL
                .iter()
                .map(|p| (p.as_str(), lang.label(p.as_str()))),
        )
        .collect();
    let assigned = [
        ("", lang.t("queue-assigned-anyone")),
        ("me", lang.t("queue-assigned-me")),
        ("any", lang.t("queue-assigned-someone")),
        ("none", lang.t("queue-assigned-nobody")),
    ];
    // Pages keep the view and the sort beside the filters; a header's link keeps the view and the filters.
    let mut in_view = if view.is_empty() {
        String::new()
    } else {
        format!("&view={view}")
    };
    if show_closed {
        in_view.push_str("&closed=1");
    }
    let sorted = |sort: &str| {
        if sort.is_empty() {
            String::new()
        } else {
            format!("&sort={sort}")
        }
    };
    let link = |page: u64| params.link_at("/tickets/", page) + &in_view + &sorted(sort);
    // A column's orders, the one a first click asks for first.
    let header = |first: &str, second: &str| {
        let (to, aria) = match sort {
            s if s == first => (second, sort_direction(first)),
            s if s == second => (first, sort_direction(second)),
            _ => (first, ""),
        };
        SortHeader {
            link: params.link_at("/tickets/", 1) + &in_view + &sorted(to),
            aria,
        }
    };
    let sorts: Vec<_> = SORTS
        .iter()
        .map(|(value, id, ..)| (*value, lang.t(id)))
        .collect();
    let views: Vec<View> = offered
        .iter()
        .map(|(value, id)| View {
            value,
            label: lang.t(id),
            current: *value == view,
        })
        .collect();
    let flash = match (
        wanted("changed").parse::<u32>(),
        wanted("failed").parse::<u32>(),
    ) {
        (Ok(changed), Ok(0)) => Some(lang.tn("queue-macro-applied", "changed", changed)),
        (Ok(changed), Ok(failed)) => Some(lang.t2(
            "queue-macro-applied-failed",
            "changed",
            changed,
            "failed",
            failed,
        )),
        _ => wanted("changing")
            .parse::<u32>()
            .ok()
            .map(|n| lang.tn("queue-bulk-started", "n", n)),
    };
    let macros = if team {
        crate::service::automation::macros::list(&state.db.conn, &state.macros, &user.actor)
            .await?
            .iter()
            .map(|m| MacroChoice {
                id: m.id,
                name: m.name.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let this_view = saved_views::normalise(raw.as_deref().unwrap_or(""));
    let saved: Vec<SavedLink> = saved_views::list(&state.db.conn, &state.saved_views, &user.actor)
        .await?
        .iter()
        .map(|v| SavedLink {
            current: v.query == this_view,
            href: if v.query.is_empty() {
                "/tickets/".to_string()
            } else {
                format!("/tickets/?{}", v.query)
            },
            id: v.id,
            name: v.name.clone(),
        })
        .collect();
    let views = if saved.iter().any(|v| v.current) {
        views
            .into_iter()
            .map(|v| View {
                current: false,
                ..v
            })
            .collect()
    } else {
        views
    };
    let status = if unsaved.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let (save_name, save_error) = unsaved.map_or_else(Default::default, |u| (u.name, u.error));
    let page = QueuePage {
        saved,
        this_view,
        save_name,
        save_error,
        layout: Layout::for_user(user),
        flash,
        macros,
        team,
        me: user.actor.id(),
        views,
        view: view.to_string(),
        show_closed,
        sorts: choices(&sorts, sort),
        by_number: header("-number", "number"),
        by_updated: header("-updated", "updated"),
        by_sla: header("due", "-due"),
        rows,
        q: params.kept("q").to_string(),
        tag: params.kept("tag").to_string(),
        ranked: read.ranked,
        note: read.note,
        statuses: choices(&statuses, params.kept("status")),
        priorities: choices(&priorities, params.kept("priority")),
        assigned: choices(&assigned, &params.kept("assigned").to_ascii_lowercase()),
        count,
        page: params.page,
        pages: count.div_ceil(params.limit).max(1),
        previous: (params.page > 1).then(|| link(params.page - 1)),
        next: (params.page.saturating_mul(params.limit) < count).then(|| link(params.page + 1)),
    };
    Ok(html(status, &page))
}

/// Which way a `sort` value reads, for `aria-sort`.
fn sort_direction(sort: &str) -> &'static str {
    if sort.starts_with('-') {
        "descending"
    } else {
        "ascending"
    }
}

/// The queue's tickets, with what its rows show of them.
struct Read {
    tickets: Vec<entity::ticket::Model>,
    people: crate::FastMap<i32, entity::user::Model>,
    clocks: crate::FastMap<i32, crate::service::sla::SlaView>,
    count: u64,
    passages: HashMap<i32, String>,
    /// Tags of the tickets whose tags the viewer may see.
    tags: crate::FastMap<i32, Vec<String>>,
    ranked: bool,
    note: Option<String>,
}

/// A search of words (not a ticket number) in the default order lists the ranked search's hits, best first,
/// each with where it matched beyond its title (`service::search`). When the words find nothing (a part of a
/// word, a code), the list is the contract's substring search, and says so.
async fn read_rows(
    state: &AppState,
    user: &PageUser,
    params: &ListParams,
    order: TicketOrder,
) -> PageResult<Read> {
    let q = params.kept("q").trim();
    let words = !q.is_empty()
        && order == TicketOrder::default()
        && parse_ticket_number(q, &state.config.ticket_prefix).is_none();
    let mut note = None;
    // A search string the word search refuses (too long, too many words) is still a fine substring to look for.
    let wanted = words.then(|| search::Search::parse(q));
    if let Some(Err(_)) = wanted {
        let too_much = user.lang.t2(
            "queue-note-too-much",
            "chars",
            search::MAX_CHARS,
            "words",
            search::MAX_TERMS,
        );
        let contain = user.lang.t1("queue-note-contain", "q", q);
        note = Some(format!("{too_much} {contain}"));
    }
    if let Some(Ok(wanted)) = wanted {
        let page = params.page_request();
        let window = search::Window {
            offset: page.offset,
            limit: page.limit,
            highlights: true,
        };
        let filter = TicketFilter {
            query: None,
            ..params.filter.clone()
        };
        let reads = &state.ticket_reads;
        let found = search::search(&state.db, reads, &user.actor, &wanted, &filter, window).await?;
        if found.total > 0 {
            let tickets: Vec<_> = found.hits.iter().map(|h| h.ticket.clone()).collect();
            let ids: Vec<i32> = tickets.iter().map(|t| t.id).collect();
            let named: Vec<i32> = tickets
                .iter()
                .flat_map(|t| [Some(t.requester_id), t.assignee_id])
                .flatten()
                .collect();
            let db = &state.db.conn;
            let people = users::people(db, &user.actor, named).await?;
            let tags = crate::service::tags::of_tickets(db, &user.actor, &ids).await?;
            let clocks = sla::views(db, ids).await?;
            let passages = found
                .hits
                .into_iter()
                .filter_map(|h| {
                    let title = html_escape(&h.ticket.title);
                    let beyond = h
                        .highlights
                        .into_iter()
                        .find(|p| p.replace("<mark>", "").replace("</mark>", "") != title)?;
                    Some((h.ticket.id, beyond))
                })
                .collect();
            return Ok(Read {
                tickets,
                people: people.into_iter().collect(),
                clocks: clocks.into_iter().collect(),
                count: found.total,
                passages,
                tags: tags.into_iter().collect(),
                ranked: true,
                note,
            });
        }
        let none = user.lang.t("queue-note-no-words");
        let contain = user.lang.t1("queue-note-contain", "q", q);
        note = Some(format!("{none} {contain}"));
    }
    let joined = Joined {
        people: Some(People::Records),
        sla: true,
        tags: true,
        ..Joined::NOTHING
    };
    let query = TicketQuery::new(
        &user.actor,
        params.filter.clone(),
        order,
        params.page_request(),
        joined,
    );
    let found = state
        .ticket_reads
        .page(&state.db, &user.actor, query)
        .await?;
    Ok(Read {
        count: found.total.unwrap_or_default(),
        tickets: found.tickets,
        people: found.people,
        clocks: found.clocks,
        passages: HashMap::new(),
        tags: found.tags,
        ranked: false,
        note,
    })
}

/// `POST /tickets/bulk/` (form: `macro=<id>`, `ticket=<id>`…): apply a macro to the tickets ticked in the
/// queue (at most 100, each on its own), then back to the queue with what it did.
#[utoipa::path(post, path = "/tickets/bulk/", tag = "pages", operation_id = "pageBulkMacro",
    summary = "Apply a macro to the tickets ticked in the queue (team members; at most 100).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the queue, with how many changed and failed")),
    security(("session" = [], "csrf" = [])))]
pub async fn bulk_macro(
    State(state): State<AppState>,
    user: PageUser,
    body: axum::body::Bytes,
) -> PageResult<Response> {
    use crate::service::automation::macros;
    let form = user.form(&body)?;
    let macro_id = crate::rest::comments::path_id(form.get("macro"), "macro")?;
    let tickets = ticked(&form)?;
    let deps = state.write_deps(crate::domain::Channel::Web);
    let outcomes = macros::apply(deps, &user.actor, macro_id, &tickets).await?;
    let failed = outcomes.iter().filter(|(_, o)| o.is_err()).count();
    let changed = outcomes.len() - failed;
    let back = format!("/tickets/?changed={changed}&failed={failed}");
    Ok(axum::response::IntoResponse::into_response(
        axum::response::Redirect::to(&back),
    ))
}

/// The tickets ticked in the queue's form (`ticket=<id>`…): at least one.
fn ticked(form: &super::Form) -> Result<Vec<i32>, crate::error::AppError> {
    let tickets: Vec<i32> = form
        .all("ticket")
        .iter()
        .filter_map(|v| v.parse::<i32>().ok())
        .collect();
    if tickets.is_empty() {
        return Err(crate::error::AppError::field(
            "ticket",
            "tick the tickets to change",
        ));
    }
    Ok(tickets)
}

/// `POST /tickets/bulk/change/` (form: `ticket=<id>`…, and any of `status`, `priority`, `assign` = `me` |
/// `nobody`): start a bulk change of the tickets ticked in the queue, made in the background ticket by ticket
/// as the signed-in team member (the job REST and GraphQL start); then back to the queue, which says so.
#[utoipa::path(post, path = "/tickets/bulk/change/", tag = "pages", operation_id = "pageBulkChange",
    summary = "Change the status, priority or assignee of the tickets ticked in the queue, in the background (team members).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Started: back to the queue, which says how many tickets are being changed"),
        (status = 400, description = "No ticket ticked, or nothing to change", content_type = "text/html", body = String),
        (status = 403, description = "Not a team member", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn bulk_change(
    State(state): State<AppState>,
    user: PageUser,
    body: axum::body::Bytes,
) -> PageResult<Response> {
    use crate::service::tickets::bulk;
    let form = user.form(&body)?;
    let tickets = ticked(&form)?;
    let mut changes = serde_json::Map::new();
    for key in ["status", "priority"] {
        let value = form.get(key).trim();
        if !value.is_empty() {
            changes.insert(key.to_string(), serde_json::Value::from(value));
        }
    }
    match form.get("assign") {
        "me" => {
            changes.insert("assigned_to".into(), user.actor.id().into());
        }
        "nobody" => {
            changes.insert("assigned_to".into(), serde_json::Value::Null);
        }
        _ => {}
    }
    let job = bulk::start(
        &state.db,
        &state.ticket_reads,
        crate::domain::Channel::Web,
        &user.actor,
        bulk::Target::Ids(tickets),
        &serde_json::Value::Object(changes),
    )
    .await?;
    let back = format!("/tickets/?changing={}", bulk::total(&job));
    Ok(axum::response::IntoResponse::into_response(
        axum::response::Redirect::to(&back),
    ))
}

/// `POST /tickets/views/` (form: `name`, `query`): save the queue's filters, view and order (`query`, the queue's
/// query string) as one of the user's views, replacing their view of that name; then open it. A bad name answers
/// the queue with the message next to the field (400).
#[utoipa::path(post, path = "/tickets/views/", tag = "pages", operation_id = "pageSaveView",
    summary = "Save the queue's filters as a named view of the signed-in user.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Saved: to the queue with the view's filters"),
        (status = 400, description = "The queue, with the message next to the name", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn save_view(
    State(state): State<AppState>,
    user: PageUser,
    body: axum::body::Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    let query = form.get("query");
    match saved_views::save(
        &state.db,
        &state.saved_views,
        &user.actor,
        form.get("name"),
        query,
    )
    .await
    {
        Ok(saved) => Ok(axum::response::IntoResponse::into_response(
            axum::response::Redirect::to(&format!("/tickets/?{}", saved.query)),
        )),
        Err(crate::error::AppError::Validation { fields, message }) => {
            let error = fields
                .get("name")
                .and_then(|m| m.first().cloned())
                .unwrap_or(message);
            let unsaved = Unsaved {
                name: form.get("name").to_string(),
                error,
            };
            render(
                &state,
                &user,
                Some(saved_views::normalise(query)),
                Some(unsaved),
            )
            .await
        }
        Err(other) => Err(other.into()),
    }
}

/// `POST /tickets/views/{id}/remove/`: remove one of the user's saved views, then back to the queue. Another
/// user's view is not theirs: 404.
#[utoipa::path(post, path = "/tickets/views/{id}/remove/", tag = "pages", operation_id = "pageRemoveView",
    summary = "Remove one of the signed-in user's saved views.",
    params(("id" = i32, Path, description = "The saved view")),
    responses(
        (status = 303, description = "Removed: to the queue"),
        (status = 404, description = "No such view of this user", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn remove_view(
    State(state): State<AppState>,
    user: PageUser,
    axum::extract::Path(id): axum::extract::Path<String>,
    body: axum::body::Bytes,
) -> PageResult<Response> {
    user.form(&body)?;
    let id = crate::rest::comments::path_id(&id, "saved view")?;
    saved_views::remove(&state.db, &state.saved_views, &user.actor, id).await?;
    Ok(axum::response::IntoResponse::into_response(
        axum::response::Redirect::to("/tickets/"),
    ))
}
