//! `GET /tickets/<id>/`: the ticket page (fields, status buttons for the allowed moves, the comment
//! thread and its form); its forms post to `edit`, the edit form's options come from `choices`.
mod again;
mod choices;
pub mod edit;
pub mod fields;
mod flash;
mod history;
pub(super) mod sla_badge;

pub use edit::{
    apply_macro, change_status, edit, follow, link, merge, resolve_children, split, tag,
};

pub use again::{or_again, PageForm, Refused};

use super::thread::{thread, CommentView};
use super::upload::{self, AttachmentView};
use super::{display_name, html, Layout, PageResult, PageUser};
use crate::domain::{Priority, StatusCategory, Workflow};
use crate::rest::comments::path_id;
use crate::sanitize::sanitize_html;
use crate::service::attachments;
use crate::service::comments::can_read_internal;
use crate::service::tickets::{rules, Joined};
use crate::state::AppState;
use again::Again;
use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use choices::{choice, edit_choices, Choice};
use entity::values::LinkType;
use history::HistoryLine;
use sla_badge::SlaBadges;

/// What the add-comment form shows again after a refused post.
#[derive(Default)]
pub struct CommentDraft {
    /// The text as sent.
    pub body: String,
    /// Whether "internal note" was chosen.
    pub internal: bool,
    /// Why it was refused.
    pub error: Option<String>,
}

/// A status the viewer may move the ticket to.
struct Move {
    value: &'static str,
    label: String,
}

#[derive(Template)]
#[template(path = "ticket.html")]
struct TicketPage {
    layout: Layout,
    /// The confirmation of the action that led here.
    flash: Option<String>,
    /// Resolving is one of the moves offered.
    can_resolve: bool,
    id: i32,
    number: String,
    title: String,
    description_html: String,
    status: String,
    status_label: String,
    priority: String,
    priority_label: String,
    requester: String,
    assignee: String,
    /// The assigned group's name, shown to those who cannot change it.
    group: String,
    project: String,
    due: String,
    created: String,
    updated: String,
    moves: Vec<Move>,
    comments: Vec<CommentView>,
    /// Files on the ticket itself.
    attachments: Vec<AttachmentView>,
    can_internal: bool,
    draft: CommentDraft,
    /// A refused form, shown open as it was sent.
    again: Again,
    /// The custom-fields form is open: it was refused, or a status move needs some of its fields.
    fields_open: bool,
    /// Team, assignee or group: every field.
    can_edit_all: bool,
    /// A team member: may assign anyone active, by name too.
    viewer_is_team: bool,
    /// The requester's own fields (title, description, priority).
    can_edit_own: bool,
    assigned_to_me: bool,
    viewer_id: i32,
    description_text: String,
    priorities: Vec<Choice>,
    projects: Vec<Choice>,
    people: Vec<Choice>,
    groups: Vec<Choice>,
    sla: Option<SlaBadges>,
    history: Vec<HistoryLine>,
    /// The macros a team member may apply.
    macros: Vec<Choice>,
    /// The ticket's tags, for those who may see and set them.
    tags: Vec<String>,
    can_tag: bool,
    /// Links to tickets the viewer may see.
    links: Vec<LinkRow>,
    /// Open children a "resolve them" button would resolve.
    open_children: usize,
    link_types: Vec<Choice>,
    /// "1h 15m", for those who may read time.
    time_spent: Option<String>,
    /// Followers: (user id, name shown).
    followers: Vec<(i32, String)>,
    following: bool,
    /// May add and remove others (works on it, or raised it).
    can_manage_followers: bool,
    /// Where it was merged into: (id, number).
    merged_into: Option<(i32, String)>,
    /// The viewer is the requester, and the desk waits for them.
    waiting_for_viewer: bool,
    /// The custom fields the viewer may see, with their values.
    fields: Vec<fields::FieldInput>,
    /// A team member, and the ticket not merged yet.
    can_merge: bool,
}

/// A link on the ticket page.
struct LinkRow {
    id: i32,
    label: String,
    number: String,
    other_id: i32,
    title: String,
    status: String,
    status_label: String,
    /// A blocking ticket that is not done yet.
    blocking: bool,
    /// A child not resolved or closed yet.
    open_child: bool,
}

/// Render the page of ticket `id` for `user`, with the comment form showing `draft` and a `refused` form open
/// as it was sent.
pub async fn render_ticket(
    state: &AppState,
    user: &PageUser,
    id: i32,
    draft: CommentDraft,
    refused: Option<Refused>,
    status: StatusCode,
    flash: Option<String>,
) -> PageResult<Response> {
    let db = &state.db.conn;
    let actor = &user.actor;
    let lang = user.lang;
    // The page shows the ticket's tags too: they come in its one statement.
    let joined = Joined {
        tags: true,
        ..Joined::DETAIL
    };
    let (t, mut found) = state.ticket_reads.one(&state.db, actor, id, joined).await?;
    let listed = attachments::list_visible_of(db, actor, &t, &found).await?;
    let now = chrono::Utc::now();
    let sla = found
        .clocks
        .get(&t.id)
        .map(|v| sla_badge::badges(v, now, user.zone, user.lang));
    let people = found.people;
    let project = t.project_id.and_then(|id| found.projects.get(&id));
    let name = |id: Option<i32>| {
        id.and_then(|id| people.get(&id))
            .map(display_name)
            .unwrap_or_default()
    };
    // Staying put is allowed by the workflow but is no move worth a button; a merged ticket takes no changes.
    let merged = t.merged_into_id.is_some();
    let moves: Vec<Move> = rules::allowed_transitions(actor, &t)
        .into_iter()
        .filter(|s| *s != t.status && !merged)
        .map(|s| Move {
            value: s.as_str(),
            label: lang.label(s.as_str()),
        })
        .collect();
    let can_edit_all = rules::can_update_all(actor, &t);
    let (mut projects, mut people_choices, mut groups) =
        edit_choices(state, actor, &t, can_edit_all, lang).await?;
    let group = match t.assigned_group_id.filter(|_| !can_edit_all) {
        Some(id) => crate::service::users::group_by_id(db, id)
            .await?
            .map(|g| g.name)
            .unwrap_or_default(),
        None => String::new(),
    };
    let mut priorities: Vec<Choice> = Priority::ALL
        .iter()
        .map(|p| {
            choice(
                p.as_str().to_string(),
                lang.label(p.as_str()),
                *p == t.priority,
            )
        })
        .collect();
    let history = history::lines(db, actor, &t, user.zone, user.lang).await?;
    let macros = if actor.is_team() {
        crate::service::automation::macros::list(db, &state.macros, actor)
            .await?
            .iter()
            .map(|m| choice(m.id.to_string(), m.name.clone(), false))
            .collect()
    } else {
        Vec::new()
    };
    let can_tag = crate::service::tags::can_tag(actor, &t);
    let tags = found.tags.remove(&t.id).unwrap_or_default();
    let links: Vec<LinkRow> = crate::service::links::of_ticket(db, actor, t.id)
        .await?
        .into_iter()
        .map(|l| {
            let open = l.other.status.category() != StatusCategory::Done;
            LinkRow {
                id: l.id,
                label: lang.label(l.link_type.as_str()),
                number: l.other.ticket_number.clone(),
                other_id: l.other.id,
                title: l.other.title.clone(),
                status: l.other.status.to_string(),
                status_label: lang.label(l.other.status.as_str()),
                blocking: l.link_type == LinkType::BlockedBy && open,
                open_child: l.link_type == LinkType::ParentOf && open,
            }
        })
        .collect();
    let open_children = if can_edit_all {
        links.iter().filter(|l| l.open_child).count()
    } else {
        0
    };
    let time_spent = if can_read_internal(actor, &t) {
        let (_, minutes) = crate::service::time_spent::of_ticket(db, actor, t.id).await?;
        Some(lang.duration(minutes))
    } else {
        None
    };
    let followers: Vec<(i32, String)> = crate::service::followers::of_ticket(db, actor, t.id)
        .await?
        .iter()
        .map(|u| (u.id, display_name(u)))
        .collect();
    let following = followers.iter().any(|(id, _)| *id == actor.id());
    let can_manage_followers = can_edit_all || t.requester_id == actor.id();
    let merged_into = crate::service::tickets::merged_into(db, &t)
        .await?
        .map(|m| (m.id, m.ticket_number));
    let can_merge = rules::can_archive(actor) && merged_into.is_none();
    let defined = state.custom_fields.active(db).await?;
    let shown = crate::service::custom_fields::of_ticket(db, actor, &defined, &t).await?;
    let mut fields = fields::inputs(db, actor, &shown, lang, user.zone).await;
    let mut link_types: Vec<Choice> = LinkType::ALL
        .iter()
        .map(|t| choice(t.as_str().to_string(), lang.label(t.as_str()), false))
        .collect();
    let mut again = Again(refused);
    if let Some(r) = again.0.as_ref().filter(|r| r.which == PageForm::Fields) {
        fields::refill(&mut fields, &r.form, &r.errors);
    }
    // A status move held back by fields it needs: their messages stand next to them, in the fields form opened,
    // and the status buttons name them by their labels.
    let mut fields_open = again.open(PageForm::Fields);
    if let Some(r) = again.0.as_mut().filter(|r| r.which == PageForm::Status) {
        let mut needed = Vec::new();
        for f in &mut fields {
            let key = format!("custom_fields.{}", f.name.trim_start_matches("cf."));
            if let Some(e) = r.errors.get(&key) {
                f.error = e.clone();
                needed.push(f.label.clone());
            }
        }
        if !needed.is_empty() {
            fields_open = true;
            r.message = lang.t1("ticket-status-needs-fields", "fields", needed.join(", "));
        }
    }
    let form = PageForm::Details;
    again.choose(form, "priority", &mut priorities);
    again.choose(form, "assigned_to", &mut people_choices);
    again.choose(form, "assigned_group", &mut groups);
    again.choose(form, "project", &mut projects);
    again.choose(PageForm::Links, "type", &mut link_types);
    let mut files = upload::views(state, user, &listed);
    let mut comments = thread(state, user, &t).await?;
    for c in &mut comments {
        c.attachments = files.remove(&Some(c.id)).unwrap_or_default();
    }
    let page = TicketPage {
        layout: Layout::for_user(user),
        flash,
        can_resolve: moves.iter().any(|m| m.value == "resolved"),
        id: t.id,
        number: t.ticket_number.clone(),
        title: t.title.clone(),
        description_html: sanitize_html(&t.description),
        status: t.status.to_string(),
        status_label: lang.label(t.status.as_str()),
        priority: t.priority.to_string(),
        priority_label: lang.label(t.priority.as_str()),
        requester: name(Some(t.requester_id)),
        assignee: name(t.assignee_id),
        group,
        project: project.map(|p| p.name.clone()).unwrap_or_default(),
        due: t.due_date.map(|d| d.to_string()).unwrap_or_default(),
        created: user.date(&t.created_at),
        updated: user.date(&t.updated_at),
        moves,
        comments,
        attachments: files.remove(&None).unwrap_or_default(),
        can_internal: can_read_internal(actor, &t),
        draft,
        again,
        fields_open,
        can_edit_all,
        viewer_is_team: user.actor.is_team(),
        can_edit_own: rules::can_update(actor, &t) && !merged,
        assigned_to_me: t.assignee_id == Some(actor.id()),
        viewer_id: actor.id(),
        description_text: crate::sanitize::html_to_text(&t.description),
        priorities,
        projects,
        people: people_choices,
        groups,
        sla,
        history,
        macros,
        tags,
        can_tag,
        links,
        open_children,
        link_types,
        time_spent,
        followers,
        following,
        can_manage_followers,
        waiting_for_viewer: t.status == super::queue::WAITING_FOR_REQUESTER
            && t.requester_id == actor.id(),
        merged_into,
        can_merge,
        fields,
    };
    Ok(html(status, &page))
}

/// The ticket page.
#[utoipa::path(get, path = "/tickets/{id}/", tag = "pages", operation_id = "pageTicket",
    summary = "Ticket page: fields, allowed status moves and the comment thread.",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    headers: axum::http::HeaderMap,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let flash = flash::take(&headers);
    let shown = flash.is_some();
    let mut response = render_ticket(
        &state,
        &user,
        id,
        CommentDraft::default(),
        None,
        StatusCode::OK,
        flash,
    )
    .await?;
    if shown {
        flash::clear(&mut response, id);
    }
    Ok(response)
}
