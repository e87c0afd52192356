//! `/admin/audit/`: the audit trail, newest first, filtered by what changed, the change and who made it
//! (administrators only), over the same service read as GraphQL's `auditEvents`.
use crate::service::audit::{self, story, AuditFilter};
use crate::service::users::{self, Admin};
use crate::state::AppState;
use crate::web::pages::{display_name, html, Layout, PageResult, PageUser};
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

/// Entries per page.
const PAGE: u64 = 50;
/// Longest rendering of an entry's changes before it is cut.
const MAX_CHANGES_CHARS: usize = 400;

/// One entry as the page shows it.
pub struct Row {
    when: String,
    who: String,
    action: String,
    what: String,
    ticket_id: Option<i32>,
    changes: String,
}

#[derive(Template)]
#[template(path = "admin_audit.html")]
struct AuditPage {
    layout: Layout,
    section: &'static str,
    entity_type: String,
    entity_id: String,
    action: String,
    actor: String,
    total: u64,
    rows: Vec<Row>,
    previous: Option<String>,
    next: Option<String>,
}

/// The page's filters, as typed in its form (each optional; unknown or malformed values filter nothing
/// away silently: an unknown person or a non-numeric id matches no entry).
#[derive(Deserialize, Default)]
pub struct AuditQuery {
    entity_type: Option<String>,
    entity_id: Option<String>,
    action: Option<String>,
    actor: Option<String>,
    page: Option<String>,
}

fn given(value: &Option<String>) -> String {
    value.as_deref().unwrap_or("").trim().to_string()
}

/// A changed value as the page shows it: text as it is, nothing as a dash, anything else as JSON.
fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "—".to_string(),
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `changes` in words, one `field: old → new` per field (`{field: [old, new]}`), cut to
/// [`MAX_CHANGES_CHARS`].
fn compact(changes: &serde_json::Value) -> String {
    let text = match changes {
        serde_json::Value::Object(map) => map
            .iter()
            .map(
                |(field, change)| match change.as_array().map(Vec::as_slice) {
                    Some([old, new]) => format!("{field}: {} → {}", shown(old), shown(new)),
                    _ => format!("{field}: {}", shown(change)),
                },
            )
            .collect::<Vec<_>>()
            .join("; "),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    if text.chars().count() <= MAX_CHANGES_CHARS {
        return text;
    }
    let cut: String = text.chars().take(MAX_CHANGES_CHARS).collect();
    format!("{cut}…")
}

/// `GET /admin/audit/`.
#[utoipa::path(get, path = "/admin/audit/", tag = "pages", operation_id = "pageAdminAudit",
    summary = "The audit trail, newest first, filtered by entity, action and person (administrators only).",
    params(
        ("entity_type" = Option<String>, Query, description = "`ticket`, `comment`, `project`, `user`, …"),
        ("entity_id" = Option<String>, Query, description = "Id of the entity"),
        ("action" = Option<String>, Query, description = "`create`, `update`, `archive`, …"),
        ("actor" = Option<String>, Query, description = "User name of who made the change"),
        ("page" = Option<String>, Query, description = "Page number, default 1"),
    ),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn audit_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(query): Query<AuditQuery>,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let db = &state.db.conn;
    let (entity_type, entity_id, action, actor) = (
        given(&query.entity_type),
        given(&query.entity_id),
        given(&query.action),
        given(&query.actor),
    );
    // A filter that names nothing that exists matches nothing: an id no entity has.
    const NOTHING: i32 = -1;
    let actor_id = if actor.is_empty() {
        None
    } else {
        Some(
            users::find_by_username(db, &actor)
                .await?
                .map_or(NOTHING, |u| u.id),
        )
    };
    let filter = AuditFilter {
        entity_type: (!entity_type.is_empty()).then(|| entity_type.clone()),
        entity_id: (!entity_id.is_empty()).then(|| entity_id.parse::<i32>().unwrap_or(NOTHING)),
        actor_id,
        action: (!action.is_empty()).then(|| action.clone()),
    };
    let page = given(&query.page).parse::<u64>().unwrap_or(1).max(1);
    let offset = (page - 1).saturating_mul(PAGE);
    let total = audit::count(db, &user.actor, &filter).await?;
    let entries = audit::list(db, &user.actor, &filter, offset, PAGE).await?;
    let people = users::people(db, &user.actor, entries.iter().filter_map(|e| e.actor_id)).await?;
    let lang = user.lang;
    let rows = entries
        .iter()
        .map(|e| Row {
            when: e.created_at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            who: match (story::rule_name(&e.changes), e.actor_id) {
                (Some(rule), _) => lang.t1("admin-audit-rule", "rule", rule),
                (None, Some(id)) => people
                    .get(&id)
                    .map(display_name)
                    .unwrap_or_else(|| lang.t1("admin-audit-user", "id", id)),
                (None, None) => lang.t("admin-audit-system"),
            },
            action: e.action.clone(),
            what: format!("{} {}", e.entity_type, e.entity_id),
            ticket_id: e.ticket_id,
            changes: compact(&e.changes),
        })
        .collect();
    let link = |p: u64| {
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        out.append_pair("entity_type", &entity_type)
            .append_pair("entity_id", &entity_id)
            .append_pair("action", &action)
            .append_pair("actor", &actor)
            .append_pair("page", &p.to_string());
        format!("/admin/audit/?{}", out.finish())
    };
    let page = AuditPage {
        layout: Layout::for_user(&user),
        section: "audit",
        previous: (page > 1).then(|| link(page - 1)),
        next: (offset.saturating_add(PAGE) < total).then(|| link(page + 1)),
        entity_type,
        entity_id,
        action,
        actor,
        total,
        rows,
    };
    Ok(html(StatusCode::OK, &page))
}
