//! `/admin/fields/`: the custom fields, their definitions changed, archived and restored, and new ones made.
use super::Done;
use super::Opt;
use crate::error::AppError;
use crate::service::custom_fields::{self, FieldListFilter, FieldPatch, NewField};
use crate::service::users::Admin;
use crate::state::AppState;
use crate::web::pages::{Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::Response;
use entity::values::{FieldKind, StatusCategory};

/// A field as the page lists it.
struct FieldRow {
    id: i32,
    key: String,
    label: String,
    kind: String,
    project: String,
    choices: String,
    required_from: String,
    team_only: bool,
    position: i32,
    archived: bool,
    /// The rules that ask about it or set it: each with its page (none for a macro) and how it is named.
    named_by: Vec<(Option<String>, String)>,
}

#[derive(Template)]
#[template(path = "admin_fields.html")]
struct FieldsPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    fields: Vec<FieldRow>,
    kinds: Vec<Opt>,
    projects: Vec<Opt>,
    categories: Vec<Opt>,
    max: usize,
}

async fn fields_of_desk(state: &AppState, user: &PageUser) -> PageResult<FieldsPage> {
    Admin::of(&user.actor)?;
    let lang = user.lang;
    let db = &state.db.conn;
    let filter = FieldListFilter {
        project_id: None,
        include_archived: true,
    };
    let projects = crate::service::projects::list(db).await?;
    let project_name = |id: Option<i32>| {
        id.and_then(|id| projects.iter().find(|p| p.id == id))
            .map(|p| p.name.clone())
            .unwrap_or_default()
    };
    use crate::service::automation::fields::{rules_naming, RuleKind};
    let mut naming = rules_naming(db, &user.actor).await?;
    let fields = custom_fields::list(db, &user.actor, filter)
        .await?
        .into_iter()
        .map(|f| FieldRow {
            named_by: naming
                .remove(&f.key)
                .unwrap_or_default()
                .into_iter()
                .map(|r| {
                    // Shared macros have no page of their own (they are managed over the API).
                    let page = match r.kind {
                        RuleKind::Trigger => Some(format!("/admin/triggers/{}/", r.id)),
                        RuleKind::TimeRule => Some(format!("/admin/time-rules/{}/", r.id)),
                        RuleKind::Macro => None,
                    };
                    let said =
                        lang.t1(&format!("rules-named-{}", r.kind.as_str()), "name", &r.name);
                    (page, said)
                })
                .collect(),
            id: f.id,
            label: f.label.clone(),
            kind: lang.label(f.kind.as_str()),
            project: project_name(f.project_id),
            choices: f.choices.join(", "),
            required_from: f.required_from.map(|c| c.to_string()).unwrap_or_default(),
            team_only: f.team_only,
            position: f.position,
            archived: f.archived_at.is_some(),
            key: f.key,
        })
        .collect();
    Ok(FieldsPage {
        layout: Layout::for_user(user),
        section: "fields",
        notes: Default::default(),
        fields,
        kinds: super::enum_options(lang, FieldKind::ALL, FieldKind::as_str, None),
        projects: super::project_options(&projects, None),
        categories: [
            (StatusCategory::Todo, lang.t("rules-required-always")),
            (
                StatusCategory::InProgress,
                lang.t("rules-required-once-started"),
            ),
            (StatusCategory::Done, lang.t("rules-required-to-resolve")),
        ]
        .into_iter()
        .map(|(c, label)| Opt {
            value: c.as_str().to_string(),
            label,
            selected: false,
        })
        .collect(),
        max: state.config.max_custom_fields,
    })
}

/// `GET /admin/fields/`.
#[utoipa::path(get, path = "/admin/fields/", tag = "pages", operation_id = "pageAdminFields",
    summary = "Custom fields: their definitions, archived ones too, and a form for a new one (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn fields_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<FieldsPage>(&state, &user, done).await
}

impl super::DeskPage for FieldsPage {
    const PATH: &'static str = "/admin/fields/";
    const DONE: &'static [(&'static str, &'static str)] = &[("created", "rules-field-added")];

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        fields_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

fn choices(raw: &str) -> Vec<String> {
    raw.split([',', '\n'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

fn category(raw: &str) -> Result<Option<StatusCategory>, AppError> {
    match raw.trim() {
        "" => Ok(None),
        other => StatusCategory::parse(other)
            .map(Some)
            .map_err(|e| AppError::field("required_from", e.message)),
    }
}

/// `POST /admin/fields/` (form: `key`, `label`, `kind`, `project`, `choices` separated by commas,
/// `required_from`, `team_only`): a new field.
#[utoipa::path(post, path = "/admin/fields/", tag = "pages", operation_id = "pageAdminCreateField",
    summary = "Define a custom field (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the fields"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_field(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let made = async {
        let kind =
            FieldKind::parse(form.get("kind")).map_err(|e| AppError::field("kind", e.message))?;
        let project_id = match form.get("project").trim() {
            "" => None,
            raw => Some(
                raw.parse::<i32>()
                    .map_err(|_| AppError::field("project", "choose a project"))?,
            ),
        };
        let input = NewField {
            key: form.get("key").to_string(),
            label: form.get("label").to_string(),
            kind,
            project_id,
            choices: choices(form.get("choices")),
            required_from: category(form.get("required_from"))?,
            team_only: form.opt("team_only").is_some(),
            position: None,
        };
        let max = state.config.max_custom_fields;
        custom_fields::create(&state.db, &state.custom_fields, &user.actor, input, max).await
    }
    .await;
    super::outcome::<FieldsPage, _>(&state, &user, "created", &form, made).await
}

/// `POST /admin/fields/change/` (form: `id`, and `label`, `choices`, `required_from`, `team_only`,
/// `position`; or `archive` / `restore`).
#[utoipa::path(post, path = "/admin/fields/change/", tag = "pages", operation_id = "pageAdminChangeField",
    summary = "Change, archive or restore a custom field (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the fields"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_field(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let changed = async {
        let id = form
            .get("id")
            .parse::<i32>()
            .map_err(|_| AppError::not_found("custom field"))?;
        let patch = if form.opt("archive").is_some() {
            FieldPatch {
                archived: Some(true),
                ..Default::default()
            }
        } else if form.opt("restore").is_some() {
            FieldPatch {
                archived: Some(false),
                ..Default::default()
            }
        } else {
            let listed = choices(form.get("choices"));
            FieldPatch {
                label: form.opt("label").map(str::to_string),
                choices: (!listed.is_empty()).then_some(listed),
                required_from: Some(category(form.get("required_from"))?),
                team_only: Some(form.opt("team_only").is_some()),
                position: match form.get("position").trim() {
                    "" => None,
                    raw => Some(
                        raw.parse::<i32>()
                            .map_err(|_| AppError::field("position", "must be a whole number"))?,
                    ),
                },
                archived: None,
            }
        };
        let max = state.config.max_custom_fields;
        custom_fields::update(&state.db, &state.custom_fields, &user.actor, id, patch, max).await
    }
    .await;
    super::outcome::<FieldsPage, _>(&state, &user, "saved", &form, changed).await
}
