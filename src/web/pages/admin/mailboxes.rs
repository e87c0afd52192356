//! `/admin/mail/`: the mailboxes the help desk fetches mail from, each changed, switched off or removed in
//! place with how its last reading went, and a form for a new one (administrators only), over the service
//! calls REST and GraphQL use. The secret is set here and never shown again: a blank box keeps it. The page also
//! says how a mail server hands messages in (`deskgraph mail-in`), and whether it may do so over HTTP, and
//! holds each project's rules for mail: what a reply to a resolved ticket does, and which strangers it takes.
use super::Done;
use super::{chosen_project, project_options, typed, Opt};
use crate::error::AppError;
use crate::service::mailboxes::{self, MailboxPatch, NewMailbox, DEFAULT_FAILED_FOLDER};
use crate::service::project_mail::{self, MailRulesPatch};
use crate::service::users::Admin;
use crate::state::AppState;
use crate::web::pages::{Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::Response;
use entity::values::{ResolvedReply, UnknownSenders};

/// A project's rules for mail, as the page's form shows them.
struct ProjectRules {
    id: i32,
    name: String,
    resolved_reply: Vec<Opt>,
    /// The project's own choice; none selected: the service's setting.
    unknown_senders: Vec<Opt>,
    /// One per line.
    sender_domains: String,
}

/// A mailbox as the page lists it.
struct Row {
    id: i32,
    name: String,
    url: String,
    done_folder: String,
    failed_folder: String,
    projects: Vec<Opt>,
    active: bool,
    /// "Read at …", "Not read yet", or why the last attempt failed.
    state: String,
    failing: bool,
}

#[derive(Template)]
#[template(path = "admin_mail.html")]
struct MailPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    mailboxes: Vec<Row>,
    projects: Vec<Opt>,
    default_failed: &'static str,
    /// Whether a mail server may hand messages over HTTP (`DESKGRAPH_MAIL_IN_SECRET` is set); never the secret.
    mail_server_open: bool,
    /// The address `deskgraph mail-in --url` is given: the public URL, when one is configured.
    mail_server_url: String,
    /// Each project's rules for mail.
    project_rules: Vec<ProjectRules>,
    /// What the service does with strangers where a project says nothing, in words.
    service_strangers: String,
}

async fn mail_of_desk(state: &AppState, user: &PageUser) -> PageResult<MailPage> {
    let lang = user.lang;
    let list = mailboxes::list(&state.db, &user.actor).await?;
    let projects = crate::service::projects::list(&state.db.conn).await?;
    let project_opts = |chosen: Option<i32>| project_options(&projects, chosen);
    let rows = list
        .iter()
        .map(|m| Row {
            id: m.id,
            name: m.name.clone(),
            url: m.url.clone(),
            done_folder: m.done_folder.clone().unwrap_or_default(),
            failed_folder: m.failed_folder.clone(),
            projects: project_opts(m.project_id),
            active: m.active,
            state: match (&m.last_error, &m.checked_at) {
                (Some(why), _) => lang.t1("rules-mail-failing", "why", why),
                (None, Some(at)) => {
                    lang.t1("rules-mail-read-at", "at", at.format("%Y-%m-%d %H:%M UTC"))
                }
                (None, None) => lang.t("rules-mail-not-read"),
            },
            failing: m.last_error.is_some(),
        })
        .collect();
    let ids: Vec<i32> = projects.iter().map(|p| p.id).collect();
    let mut rules = project_mail::of_projects(&state.db, &user.actor, &ids).await?;
    let project_rules = projects
        .iter()
        .filter_map(|p| rules.remove(&p.id).map(|r| (p, r)))
        .map(|(p, r)| ProjectRules {
            id: p.id,
            name: p.name.clone(),
            resolved_reply: ResolvedReply::ALL
                .iter()
                .map(|v| Opt {
                    value: v.as_str().to_string(),
                    label: lang.t(&format!("rules-mail-resolved-{v}")),
                    selected: *v == r.resolved_reply,
                })
                .collect(),
            unknown_senders: UnknownSenders::ALL
                .iter()
                .map(|v| Opt {
                    value: v.as_str().to_string(),
                    label: lang.t(&format!("rules-mail-strangers-{v}")),
                    selected: Some(*v) == r.unknown_senders,
                })
                .collect(),
            sender_domains: r.sender_domains.join("\n"),
        })
        .collect();
    let service_strangers = if state.config.mail_in_open {
        UnknownSenders::Create
    } else {
        UnknownSenders::Refuse
    };
    Ok(MailPage {
        project_rules,
        service_strangers: lang.t(&format!("rules-mail-strangers-{service_strangers}")),
        layout: Layout::for_user(user),
        section: "mail",
        notes: Default::default(),
        mailboxes: rows,
        projects: project_opts(None),
        default_failed: DEFAULT_FAILED_FOLDER,
        mail_server_open: state.config.mail_in_secret.is_some(),
        mail_server_url: state
            .config
            .accounts
            .public_url
            .clone()
            .unwrap_or_else(|| lang.t("rules-mail-server-this-address")),
    })
}

/// `GET /admin/mail/`.
#[utoipa::path(get, path = "/admin/mail/", tag = "pages", operation_id = "pageAdminMail",
    summary = "The mailboxes mail is fetched from, and a form for a new one (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn mail_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<MailPage>(&state, &user, done).await
}

impl super::DeskPage for MailPage {
    const PATH: &'static str = "/admin/mail/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("created", "rules-mail-added"),
        ("deleted", "rules-mail-removed"),
    ];

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        mail_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

/// `POST /admin/mail/` (form: `name`, `url`, `secret`, `done_folder`, `failed_folder`, `project`): a new
/// mailbox.
#[utoipa::path(post, path = "/admin/mail/", tag = "pages", operation_id = "pageAdminCreateMailbox",
    summary = "Add a mailbox to fetch mail from (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the mailboxes"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_mailbox(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let made = async {
        let input = NewMailbox {
            name: form.get("name").to_string(),
            url: form.get("url").to_string(),
            secret: form.get("secret").to_string(),
            done_folder: typed(&form, "done_folder"),
            failed_folder: typed(&form, "failed_folder"),
            project_id: chosen_project(&form)?,
            active: Some(true),
        };
        mailboxes::create(&state.db, &user.actor, input).await
    }
    .await;
    super::outcome::<MailPage, _>(&state, &user, "created", &form, made).await
}

/// `POST /admin/mail/change/` (form: `id`, and `name`, `url`, `secret` (blank: unchanged), `done_folder`
/// (blank: flag seen), `failed_folder`, `project`, `active`; or `delete`).
#[utoipa::path(post, path = "/admin/mail/change/", tag = "pages", operation_id = "pageAdminChangeMailbox",
    summary = "Change or remove a mailbox (administrators only); a blank secret keeps the stored one.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the mailboxes"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_mailbox(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let id = super::form_id(&form, "mailbox")?;
    if form.opt("delete").is_some() {
        let gone = mailboxes::delete(&state.db, &user.actor, id).await;
        return super::outcome::<MailPage, _>(&state, &user, "deleted", &form, gone).await;
    }
    let changed = async {
        let patch = MailboxPatch {
            name: form.opt("name").map(str::to_string),
            url: form.opt("url").map(str::to_string),
            secret: typed(&form, "secret"),
            done_folder: form.opt("done_folder").map(|_| typed(&form, "done_folder")),
            failed_folder: form.opt("failed_folder").map(str::to_string),
            project_id: Some(chosen_project(&form)?),
            active: Some(form.opt("active").is_some()),
        };
        mailboxes::update(&state.db, &user.actor, id, patch).await
    }
    .await;
    super::outcome::<MailPage, _>(&state, &user, "saved", &form, changed).await
}

/// `POST /admin/mail/project/` (form: `project_id`, `resolved_reply`, `unknown_senders` (blank: the
/// service's setting), `sender_domains` (one per line)): a project's rules for mail.
#[utoipa::path(post, path = "/admin/mail/project/", tag = "pages", operation_id = "pageAdminProjectMailRules",
    summary = "Change how mail to a project is taken in (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the mail page"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_project_mail(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let id = super::form_key(&form, "project_id", "project")?;
    let changed = async {
        let enum_field = |e: entity::values::UnknownValue| AppError::field(e.field, e.message);
        let resolved_reply = typed(&form, "resolved_reply")
            .map(|v| ResolvedReply::parse(&v).map_err(enum_field))
            .transpose()?;
        let unknown_senders = typed(&form, "unknown_senders")
            .map(|v| UnknownSenders::parse(&v).map_err(enum_field))
            .transpose()?;
        let patch = MailRulesPatch {
            resolved_reply,
            unknown_senders: Some(unknown_senders),
            sender_domains: Some(
                form.get("sender_domains")
                    .split([',', '\n'])
                    .map(str::to_string)
                    .collect(),
            ),
        };
        project_mail::update(&state.db, &user.actor, id, patch).await
    }
    .await;
    super::outcome::<MailPage, _>(&state, &user, "saved", &form, changed).await
}
