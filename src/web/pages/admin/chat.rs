//! `/admin/chat/`: the Slack and Teams destinations, each changed, switched off or removed in place, and a
//! form for a new one (administrators only), over the service calls REST and GraphQL use. Webhook URLs and
//! bot tokens are set here and never shown again: a blank box keeps the one stored.
use super::Done;
use super::{chosen_project, project_options, typed, Opt};
use crate::domain::Priority;
use crate::error::AppError;
use crate::service::chat::{self, ChatPatch, NewChat, CHAT_EVENTS};
use crate::service::users::Admin;
use crate::state::AppState;
use crate::web::pages::{Form, Lang, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::Response;
use entity::values::{ChatKind, JobStatus};
use entity::{chat_delivery, chat_destination};

/// A checkbox: its value, what it says, and whether it is ticked.
struct Tick {
    value: String,
    label: String,
    checked: bool,
}

/// A destination as the page lists it.
struct Row {
    id: i32,
    name: String,
    kind: String,
    posts_as: String,
    channel: String,
    is_bot: bool,
    projects: Vec<Opt>,
    events: Vec<Tick>,
    priorities: Vec<Tick>,
    team_only: bool,
    active: bool,
    /// How its latest message went, in words, and whether it failed.
    last: String,
    last_failed: bool,
    /// How its latest try went (the answer and its time), once one was made.
    last_try: Option<String>,
}

#[derive(Template)]
#[template(path = "admin_chat.html")]
struct ChatPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    destinations: Vec<Row>,
    kinds: Vec<Opt>,
    projects: Vec<Opt>,
    events: Vec<Tick>,
    priorities: Vec<Tick>,
}

fn listed(value: &serde_json::Value) -> Vec<String> {
    serde_json::from_value(value.clone()).unwrap_or_default()
}

fn ticks(lang: Lang, all: &[&str], checked: &[String]) -> Vec<Tick> {
    all.iter()
        .map(|v| Tick {
            value: (*v).to_string(),
            label: lang.label(v),
            checked: checked.iter().any(|c| c == v),
        })
        .collect()
}

fn priority_names() -> Vec<&'static str> {
    Priority::ALL.iter().map(|p| p.as_str()).collect()
}

/// How a destination's latest message went, as the page says it.
fn last_told(user: &PageUser, last: Option<&chat::Delivery>) -> String {
    let lang = user.lang;
    let Some(d) = last else {
        return lang.t("rules-chat-last-none");
    };
    let error = d.last_error.as_deref().unwrap_or_default();
    let attempts = d.attempts.to_string();
    match d.status {
        JobStatus::Delivered => lang.texts(
            "rules-chat-last-delivered",
            [("event", &d.event), ("when", &user.when(d.delivered_at))],
        ),
        JobStatus::Failed => lang.texts(
            "rules-chat-last-failed",
            [
                ("event", &d.event),
                ("attempts", &attempts),
                ("error", error),
            ],
        ),
        JobStatus::Pending if d.last_error.is_some() => lang.texts(
            "rules-chat-last-retrying",
            [
                ("event", &d.event),
                ("attempts", &attempts),
                ("error", error),
                ("when", &user.when(d.next_attempt_at)),
            ],
        ),
        JobStatus::Pending => lang.t1("rules-chat-last-waiting", "event", &d.event),
    }
}

/// How a destination's latest try went: the answer it met and how long it took.
fn last_tried(user: &PageUser, last: Option<&chat_delivery::Model>) -> Option<String> {
    let t = last?;
    let when = user.when(Some(t.created_at));
    let ms = t.duration_ms.to_string();
    let error = t.error.as_deref().unwrap_or_default();
    Some(match (t.status_code, &t.error) {
        (Some(status), None) => user.lang.texts(
            "rules-chat-last-try-answered",
            [
                ("when", &when),
                ("status", &status.to_string()),
                ("ms", &ms),
            ],
        ),
        (Some(status), Some(_)) => user.lang.texts(
            "rules-chat-last-try-refused",
            [
                ("when", &when),
                ("status", &status.to_string()),
                ("ms", &ms),
                ("error", error),
            ],
        ),
        (None, _) => user.lang.texts(
            "rules-chat-last-try-unanswered",
            [("when", &when), ("ms", &ms), ("error", error)],
        ),
    })
}

async fn chat_of_desk(state: &AppState, user: &PageUser) -> PageResult<ChatPage> {
    let lang = user.lang;
    let list = chat::list(&state.db, &user.actor).await?;
    let mut latest = chat::latest_deliveries(&state.db, &user.actor).await?;
    let mut tries = chat::latest_attempts(&state.db, &user.actor).await?;
    let projects = crate::service::projects::list(&state.db.conn).await?;
    let project_opts = |chosen: Option<i32>| project_options(&projects, chosen);
    let destinations = list
        .iter()
        .map(|d: &chat_destination::Model| {
            let last = latest.remove(&d.id);
            Row {
                id: d.id,
                last_failed: last.as_ref().is_some_and(|l| {
                    l.status == JobStatus::Failed
                        || l.last_error.is_some() && l.status == JobStatus::Pending
                }),
                last: last_told(user, last.as_ref()),
                last_try: last_tried(user, tries.remove(&d.id).as_ref()),
                name: d.name.clone(),
                kind: lang.label(d.kind.as_str()),
                posts_as: if d.token.is_some() {
                    lang.t("rules-chat-posts-as-bot")
                } else {
                    lang.t("rules-chat-posts-as-webhook")
                },
                channel: d.channel.clone().unwrap_or_default(),
                is_bot: d.token.is_some(),
                projects: project_opts(d.project_id),
                events: ticks(lang, &CHAT_EVENTS, &listed(&d.events)),
                priorities: ticks(lang, &priority_names(), &listed(&d.priorities)),
                team_only: d.team_only,
                active: d.active,
            }
        })
        .collect();
    Ok(ChatPage {
        layout: Layout::for_user(user),
        section: "chat",
        notes: Default::default(),
        destinations,
        kinds: super::enum_options(lang, ChatKind::ALL, ChatKind::as_str, None),
        projects: project_opts(None),
        events: ticks(lang, &CHAT_EVENTS, &[]),
        priorities: ticks(lang, &priority_names(), &[]),
    })
}

/// `GET /admin/chat/`.
#[utoipa::path(get, path = "/admin/chat/", tag = "pages", operation_id = "pageAdminChat",
    summary = "Slack and Teams destinations, and a form for a new one (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn chat_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<ChatPage>(&state, &user, done).await
}

impl super::DeskPage for ChatPage {
    const PATH: &'static str = "/admin/chat/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("created", "rules-chat-added"),
        ("deleted", "rules-chat-removed"),
    ];

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        chat_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

fn priorities(form: &Form) -> Result<Vec<Priority>, AppError> {
    form.all("priority")
        .iter()
        .map(|p| Priority::parse(p).map_err(|e| AppError::field("priorities", e.message)))
        .collect()
}

/// `POST /admin/chat/` (form: `name`, `kind`, `webhook_url`, or `token` and `channel`, `project`, `event`…,
/// `priority`…, `team_only`): a new destination.
#[utoipa::path(post, path = "/admin/chat/", tag = "pages", operation_id = "pageAdminCreateChat",
    summary = "Add a Slack or Teams destination (administrators only); nothing ticked means every event or priority.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the destinations"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_chat(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let made = async {
        let kind =
            ChatKind::parse(form.get("kind")).map_err(|e| AppError::field("kind", e.message))?;
        let input = NewChat {
            name: form.get("name").to_string(),
            kind,
            url: typed(&form, "webhook_url"),
            token: typed(&form, "token"),
            channel: typed(&form, "channel"),
            project_id: chosen_project(&form)?,
            events: form.all("event"),
            priorities: priorities(&form)?,
            team_only: Some(form.opt("team_only").is_some()),
            active: Some(true),
        };
        let allow_private = state.config.webhook_allow_private;
        chat::create(&state.db, allow_private, &user.actor, input).await
    }
    .await;
    super::outcome::<ChatPage, _>(&state, &user, "created", &form, made).await
}

/// `POST /admin/chat/change/` (form: `id`, and `name`, `webhook_url` or `token` (blank: unchanged), `channel`,
/// `project`, `event`…, `priority`…, `team_only`, `active`; or `delete`).
#[utoipa::path(post, path = "/admin/chat/change/", tag = "pages", operation_id = "pageAdminChangeChat",
    summary = "Change or remove a chat destination (administrators only); a blank URL or token keeps the stored one.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the destinations"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_chat(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let id = super::form_id(&form, "chat destination")?;
    if form.opt("delete").is_some() {
        let gone = chat::delete(&state.db, &user.actor, id).await;
        return super::outcome::<ChatPage, _>(&state, &user, "deleted", &form, gone).await;
    }
    let changed = async {
        let patch = ChatPatch {
            name: form.opt("name").map(str::to_string),
            url: typed(&form, "webhook_url").map(Some),
            token: typed(&form, "token").map(Some),
            channel: form.opt("channel").map(|c| Some(c.to_string())),
            project_id: Some(chosen_project(&form)?),
            events: Some(form.all("event")),
            priorities: Some(priorities(&form)?),
            team_only: Some(form.opt("team_only").is_some()),
            active: Some(form.opt("active").is_some()),
        };
        let allow_private = state.config.webhook_allow_private;
        chat::update(&state.db, allow_private, &user.actor, id, patch).await
    }
    .await;
    super::outcome::<ChatPage, _>(&state, &user, "saved", &form, changed).await
}
