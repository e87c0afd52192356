//! The ticket page's forms: the status buttons and the edit form.
use super::PageForm;
use crate::domain::{Priority, TicketStatus};
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::service::tickets::{self, TicketPatch};
use crate::service::users;
use crate::state::AppState;
use crate::web::pages::{Lang, PageResult, PageUser};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};

/// `POST /tickets/<id>/status/` (form, `status=<value>`): move the ticket and show it again.
#[utoipa::path(post, path = "/tickets/{id}/status/", tag = "pages", operation_id = "pageChangeStatus",
    summary = "Change a ticket's status from its page.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "A move the workflow refuses, or a field it needs left empty: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn change_status(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let outcome: PageResult<Response> = async {
        let status = TicketStatus::parse(form.get("status"))?;
        let before = tickets::get(&state.db.conn, &user.actor, id).await?.status;
        // Resolving may leave a note for the requester, as a public comment written with the move: a note
        // refused (too long, say) leaves the ticket as it was.
        let note = form.get("note").trim();
        let deps = state.write_deps(crate::domain::Channel::Web);
        if status == TicketStatus::Resolved && !note.is_empty() {
            let note = crate::sanitize::text_to_html(note);
            tickets::change_status_noting(deps, &user.actor, id, status, &note).await?;
        } else {
            tickets::change_status(deps, &user.actor, id, status).await?;
        }
        let lang = user.lang;
        let said = match status {
            TicketStatus::Resolved => lang.t("ticket-flash-resolved"),
            TicketStatus::Closed => lang.t("ticket-flash-closed"),
            _ if matches!(before, TicketStatus::Resolved | TicketStatus::Closed) => {
                lang.t("ticket-flash-reopened")
            }
            other => lang.t1("ticket-flash-moved", "status", lang.label(other.as_str())),
        };
        Ok(super::flash::back(id, &said))
    }
    .await;
    super::or_again(&state, &user, id, PageForm::Status, form, outcome).await
}

/// A form field as a change: `None` when the form left it out or it equals `current`.
fn changed<T: PartialEq>(value: Option<T>, current: &T) -> Option<T> {
    value.filter(|v| v != current)
}

fn optional_id(field: &str, text: &str) -> PageResult<Option<i32>> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    text.trim()
        .parse()
        .map(Some)
        .map_err(|_| AppError::field(field, "choose one of the listed values").into())
}

/// `POST /tickets/<id>/edit/` (form): change what the form sends — title, description, priority, due date,
/// project, assignee, group, any subset (the "assign to me" button sends only the assignee). Only fields that
/// differ from the ticket go to the service, which decides what this viewer may change.
#[utoipa::path(post, path = "/tickets/{id}/edit/", tag = "pages", operation_id = "pageEditTicket",
    summary = "Change a ticket's fields from its page (any of title, description, priority, due date, project, assignee,\ngroup; \"Assign to me\" sends only the assignee). Only fields that differ are changed, under the REST rules.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "A bad value: the ticket page again, the form open with what was typed and the message next to its field", content_type = "text/html", body = String),
        (status = 403, description = "A field the user may not change, or no CSRF token: error page", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn edit(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    // The title and description have their own form; the side panel and "assign to me" send the rest.
    let which = if form.opt("title").is_some() || form.opt("description").is_some() {
        PageForm::Edit
    } else {
        PageForm::Details
    };
    let outcome: PageResult<Response> = async {
        let t = tickets::get(&state.db.conn, &user.actor, id).await?;
        let due = match form.opt("due_date").map(str::trim) {
            None => None,
            Some("") => Some(None),
            Some(text) => Some(Some(
                chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                    AppError::field("due_date", "must be a date formatted YYYY-MM-DD")
                })?,
            )),
        };
        let id_field = |name: &str, field: &str| -> PageResult<Option<Option<i32>>> {
            form.opt(name).map(|v| optional_id(field, v)).transpose()
        };
        // A user name typed beside the picker wins over the picker (the team only; anyone else active).
        let by_name = form
            .opt("assigned_username")
            .map(str::trim)
            .filter(|n| !n.is_empty());
        let assignee = match by_name {
            Some(name) => match users::find_assignable(&state.db.conn, &user.actor, name).await? {
                Some(found) => Some(Some(found.id)),
                None => {
                    return Err(AppError::field(
                        "assigned_username",
                        format!("no active user named {name:?}"),
                    )
                    .into())
                }
            },
            None => id_field("assigned_to", "assigned_to")?,
        };
        let patch = TicketPatch {
            title: changed(form.opt("title").map(str::to_string), &t.title),
            // The box holds the description as text: only a text that changed is saved (as HTML again), so
            // saving another field keeps a description's formatting.
            description: form
                .opt("description")
                .filter(|typed| {
                    typed.replace("\r\n", "\n").trim()
                        != crate::sanitize::html_to_text(&t.description)
                })
                .map(crate::sanitize::text_to_html),
            priority: changed(
                form.opt("priority").map(Priority::parse).transpose()?,
                &t.priority,
            ),
            status: None,
            project_id: changed(id_field("project", "project")?, &t.project_id),
            assignee_id: changed(assignee, &t.assignee_id),
            assigned_group_id: changed(
                id_field("assigned_group", "assigned_group")?,
                &t.assigned_group_id,
            ),
            due_date: changed(due, &t.due_date),
            custom_fields: None,
        };
        if patch.fields().is_empty() {
            return Ok(Redirect::to(&format!("/tickets/{id}/")).into_response());
        }
        let said = saved(&patch, user.actor.id(), user.lang);
        tickets::update(
            state.write_deps(crate::domain::Channel::Web),
            &user.actor,
            id,
            patch,
        )
        .await?;
        Ok(super::flash::back(id, &said))
    }
    .await;
    super::or_again(&state, &user, id, which, form, outcome).await
}

/// The confirmation of an edit: what changed when it was one field (the side panel saves one at a time).
fn saved(patch: &TicketPatch, me: i32, lang: Lang) -> String {
    if patch.fields().len() != 1 {
        return lang.t("ticket-flash-saved");
    }
    if let Some(priority) = patch.priority {
        lang.t1(
            "ticket-flash-priority",
            "priority",
            lang.label(priority.as_str()),
        )
    } else if let Some(assignee) = patch.assignee_id {
        lang.t(match assignee {
            Some(id) if id == me => "ticket-flash-assigned-you",
            Some(_) => "ticket-flash-assignee",
            None => "ticket-flash-unassigned",
        })
    } else if let Some(group) = patch.assigned_group_id {
        lang.t(if group.is_some() {
            "ticket-flash-group"
        } else {
            "ticket-flash-group-removed"
        })
    } else if let Some(project) = patch.project_id {
        lang.t(if project.is_some() {
            "ticket-flash-project"
        } else {
            "ticket-flash-project-removed"
        })
    } else if let Some(due) = patch.due_date {
        match due {
            Some(day) => lang.t1("ticket-flash-due", "day", day),
            None => lang.t("ticket-flash-due-removed"),
        }
    } else {
        lang.t("ticket-flash-saved")
    }
}

/// `POST /tickets/<id>/macro/` (form, `macro=<id>`): apply one of the viewer's macros to the ticket.
#[utoipa::path(post, path = "/tickets/{id}/macro/", tag = "pages", operation_id = "pageApplyMacro",
    summary = "Apply a macro to a ticket from its page (team members).",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub async fn apply_macro(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    use crate::service::automation::macros;
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let macro_id = path_id(form.get("macro"), "macro")?;
    let m = macros::get(&state.db.conn, &user.actor, macro_id).await?;
    let deps = state.write_deps(crate::domain::Channel::Web);
    for (_, outcome) in macros::apply(deps, &user.actor, macro_id, &[id]).await? {
        outcome?;
    }
    Ok(super::flash::back(
        id,
        &user.lang.t1("ticket-flash-macro", "name", &m.name),
    ))
}

/// `POST /tickets/<id>/tags/` (form): `add=<names separated by commas>` puts tags on, `remove=<name>` takes one
/// off (the team, the assignee and the assigned group).
#[utoipa::path(post, path = "/tickets/{id}/tags/", tag = "pages", operation_id = "pageTagTicket",
    summary = "Add tags to a ticket (`add`, separated by commas) or take one off (`remove`) from its page.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "A bad tag: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
        (status = 403, description = "Not the team's, or no CSRF token: error page", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn tag(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    use crate::service::tags::{self, Edit};
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let outcome: PageResult<Response> = async {
        let (edit, said) = match (form.opt("add"), form.opt("remove")) {
            (Some(add), _) if !add.trim().is_empty() => {
                let names: Vec<String> = add
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect();
                (Edit::Add(names), user.lang.t("ticket-flash-tags-added"))
            }
            (_, Some(remove)) if !remove.trim().is_empty() => (
                Edit::Remove(vec![remove.to_string()]),
                user.lang
                    .t1("ticket-flash-tag-removed", "tag", remove.trim()),
            ),
            _ => return Ok(Redirect::to(&format!("/tickets/{id}/")).into_response()),
        };
        tags::change(
            state.write_deps(crate::domain::Channel::Web),
            &user.actor,
            id,
            edit,
        )
        .await?;
        Ok(super::flash::back(id, &said))
    }
    .await;
    super::or_again(&state, &user, id, PageForm::Tags, form, outcome).await
}

/// `POST /tickets/<id>/links/` (form): `type` and `ticket` (a number in any spelling) make a link; `remove=<link
/// id>` removes one (the team, the assignee and the assigned group).
#[utoipa::path(post, path = "/tickets/{id}/links/", tag = "pages", operation_id = "pageLinkTicket",
    summary = "Link a ticket to another (`type`, `ticket` number) or remove a link (`remove`) from its page.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "A bad type or ticket, a second parent or a loop: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
        (status = 403, description = "May not change the ticket, or no CSRF token: error page", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn link(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    use crate::service::links;
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let outcome: PageResult<Response> = async {
        let deps = state.write_deps(crate::domain::Channel::Web);
        if let Some(remove) = form.opt("remove").filter(|r| !r.trim().is_empty()) {
            links::remove(deps, &user.actor, id, path_id(remove, "link")?).await?;
            return Ok(super::flash::back(
                id,
                &user.lang.t("ticket-flash-link-removed"),
            ));
        }
        let link_type = entity::values::LinkType::parse(form.get("type"))?;
        let number = form.get("ticket").trim();
        if number.is_empty() {
            return Err(AppError::field("ticket", "name the ticket to link, e.g. TKT-12").into());
        }
        let other = match tickets::get_by_number(
            &state.db.conn,
            &user.actor,
            number,
            &state.config.ticket_prefix,
        )
        .await
        {
            Ok(t) => t,
            Err(AppError::NotFound(_)) => {
                return Err(AppError::field("ticket", format!("no ticket {number:?}")).into())
            }
            Err(err) => return Err(err.into()),
        };
        links::add(deps, &user.actor, id, link_type, other.id).await?;
        Ok(super::flash::back(
            id,
            &user
                .lang
                .t1("ticket-flash-linked", "number", &other.ticket_number),
        ))
    }
    .await;
    super::or_again(&state, &user, id, PageForm::Links, form, outcome).await
}

/// `POST /tickets/<id>/merge/` (form): merge the ticket into `into` (a number in any spelling; team members),
/// then on to the target's page.
#[utoipa::path(post, path = "/tickets/{id}/merge/", tag = "pages", operation_id = "pageMergeTicket",
    summary = "Merge a ticket into another (`into`, a ticket number) from its page.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "On to the target's page"),
        (status = 400, description = "No such target, the ticket itself, or a merged target: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
        (status = 403, description = "Not a team member, or no CSRF token: error page", content_type = "text/html", body = String),
        (status = 409, description = "Merged already: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn merge(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let outcome: PageResult<Response> = async {
        let into = form.get("into").trim();
        if into.is_empty() {
            return Err(
                AppError::field("into", "name the ticket to merge into, e.g. TKT-12").into(),
            );
        }
        let deps = state.write_deps(crate::domain::Channel::Web);
        let into = tickets::MergeTarget::Number(into.to_string());
        let merged = tickets::merge(deps, &user.actor, id, into).await?;
        Ok(super::flash::back(
            merged.target.id,
            &user.lang.t2(
                "ticket-flash-merged",
                "source",
                &merged.source.ticket_number,
                "target",
                &merged.target.ticket_number,
            ),
        ))
    }
    .await;
    super::or_again(&state, &user, id, PageForm::Merge, form, outcome).await
}

/// `POST /tickets/<id>/split/` (form): the comments ticked `split_<comment id>` move to a new ticket (`title`
/// optional; team members), then on to the new ticket's page.
#[utoipa::path(post, path = "/tickets/{id}/split/", tag = "pages", operation_id = "pageSplitTicket",
    summary = "Split the ticked comments (`split_<comment id>`) off into a new ticket (`title`) from the page.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "On to the new ticket's page"),
        (status = 400, description = "No comment ticked, or one that is not a live comment of the ticket: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
        (status = 403, description = "Not a team member, or no CSRF token: error page", content_type = "text/html", body = String),
        (status = 409, description = "The ticket was merged: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn split(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let outcome: PageResult<Response> = async {
        let input = tickets::SplitOff {
            comment_ids: form.ids_named("split_"),
            title: form.opt("title").map(str::to_string),
        };
        let deps = state.write_deps(crate::domain::Channel::Web);
        let made = tickets::split(deps, &user.actor, id, input).await?;
        Ok(super::flash::back(
            made.id,
            &user
                .lang
                .t1("ticket-flash-split", "number", &made.ticket_number),
        ))
    }
    .await;
    super::or_again(&state, &user, id, PageForm::Split, form, outcome).await
}

/// `POST /tickets/<id>/children/resolve/` (form): resolve the ticket's open children.
#[utoipa::path(post, path = "/tickets/{id}/children/resolve/", tag = "pages", operation_id = "pageResolveChildren",
    summary = "Resolve a parent's open children from its page.",
    params(("id" = i32, Path, description = "Parent ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub async fn resolve_children(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    user.form(&body)?;
    let deps = state.write_deps(crate::domain::Channel::Web);
    let outcomes = crate::service::links::resolve_children(deps, &user.actor, id).await?;
    let done = outcomes.iter().filter(|(_, o)| o.is_ok()).count();
    let failed = outcomes.len() - done;
    let said = match (done, failed) {
        (n, 0) => user.lang.tn("ticket-flash-children", "n", n),
        (n, f) => user
            .lang
            .t2("ticket-flash-children-failed", "n", n, "failed", f),
    };
    Ok(super::flash::back(id, &said))
}

/// `POST /tickets/<id>/followers/` (form): `follow=me` or `unfollow=me` for oneself; `add=<user name or email>`
/// adds someone; `remove=<user id>` removes them.
#[utoipa::path(post, path = "/tickets/{id}/followers/", tag = "pages", operation_id = "pageFollowTicket",
    summary = "Follow or unfollow a ticket, or add or remove a follower, from its page.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "No such active user: the ticket page again, the form open with what was typed and the message", content_type = "text/html", body = String),
        (status = 403, description = "May not add others, or no CSRF token: error page", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn follow(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    use crate::service::followers::{self, Whom};
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let outcome: PageResult<Response> = async {
        let db = &state.db;
        let said = if form.opt("follow").is_some() {
            followers::follow(db, &user.actor, id, Whom::Me).await?;
            user.lang.t("ticket-flash-following")
        } else if form.opt("unfollow").is_some() {
            followers::unfollow(db, &user.actor, id, None).await?;
            user.lang.t("ticket-flash-unfollowed")
        } else if let Some(remove) = form.opt("remove").filter(|r| !r.trim().is_empty()) {
            followers::unfollow(db, &user.actor, id, Some(path_id(remove, "follower")?)).await?;
            user.lang.t("ticket-flash-follower-removed")
        } else {
            let name = form.get("add").trim();
            if name.is_empty() {
                return Ok(Redirect::to(&format!("/tickets/{id}/")).into_response());
            }
            let whom = if name.contains('@') {
                Whom::Email(name.to_string())
            } else {
                Whom::Username(name.to_string())
            };
            let (added, _) = followers::follow(db, &user.actor, id, whom).await?;
            user.lang
                .t1("ticket-flash-follower-added", "name", &added.username)
        };
        Ok(super::flash::back(id, &said))
    }
    .await;
    super::or_again(&state, &user, id, PageForm::Followers, form, outcome).await
}
