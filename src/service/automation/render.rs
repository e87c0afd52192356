//! A comment template rendered for a ticket: the one way rules and macros turn their text into a comment body.
use super::language::{Placeholder, Template};
use crate::error::AppResult;
use crate::sanitize::text_to_html;
use crate::service::comments::MAX_BODY_BYTES;
use crate::service::users;
use entity::ticket;
use sea_orm::ConnectionTrait;
use std::collections::HashMap;

/// `template` for `t` as a comment body (`rule` names what `{{rule.name}}` gives): placeholders filled in,
/// then the whole text escaped into paragraphs, so nothing a title or a name holds becomes markup. People
/// are read only when the template names them. `None` when it renders empty or past a comment's size.
pub async fn render(
    db: &impl ConnectionTrait,
    template: &Template,
    t: &ticket::Model,
    rule: &str,
) -> AppResult<Option<String>> {
    let body = text_to_html(&fill(db, template, t, rule).await?);
    Ok((!body.is_empty() && body.len() <= MAX_BODY_BYTES).then_some(body))
}

/// `template` for `t` as plain text, placeholders filled in (for an email's text; escape it for HTML).
pub async fn fill(
    db: &impl ConnectionTrait,
    template: &Template,
    t: &ticket::Model,
    rule: &str,
) -> AppResult<String> {
    let wants_people = template.placeholders().any(|p| {
        matches!(
            p,
            Placeholder::RequesterName | Placeholder::RequesterUsername | Placeholder::AssigneeName
        )
    });
    let people = if wants_people {
        let ids = [Some(t.requester_id), t.assignee_id];
        users::recipients(db, ids.into_iter().flatten()).await?
    } else {
        HashMap::new()
    };
    let person = |id: Option<i32>| id.and_then(|id| people.get(&id));
    let text = template.render(|p| match p {
        Placeholder::TicketNumber => t.ticket_number.clone(),
        Placeholder::TicketTitle => t.title.clone(),
        Placeholder::TicketStatus => t.status.as_str().to_string(),
        Placeholder::TicketPriority => t.priority.as_str().to_string(),
        Placeholder::RequesterName => person(Some(t.requester_id))
            .map(|r| r.name.clone())
            .unwrap_or_default(),
        Placeholder::RequesterUsername => person(Some(t.requester_id))
            .map(|r| r.username.clone())
            .unwrap_or_default(),
        Placeholder::AssigneeName => person(t.assignee_id)
            .map(|r| r.name.clone())
            .unwrap_or_default(),
        Placeholder::RuleName => rule.to_string(),
    });
    Ok(text)
}
