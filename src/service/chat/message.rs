//! A chat message about a ticket, rendered once, when the change happens: Slack blocks or a Teams Adaptive
//! Card. People's text (titles, names, comment excerpts) cannot format, mention or link: Slack's `&`, `<`
//! and `>` are escaped, so a title cannot say `<!channel>` or hide a link; in Teams it goes in `TextRun`s,
//! which render no markdown.
use crate::service::sla::SlaView;
use chrono::{DateTime, Utc};
use entity::values::ChatKind;
use serde_json::{json, Value};

/// The longest comment or description excerpt a message carries, in characters.
pub const EXCERPT_CHARS: usize = 500;

/// What a message says, in plain text; [`render`] shapes it for the destination.
#[derive(Debug, Clone, PartialEq)]
pub struct News {
    /// `TKT-012`.
    pub number: String,
    /// The ticket's title.
    pub title: String,
    /// What happened: "New ticket", "Status: open → resolved", "Ann commented", …
    pub headline: String,
    /// The text it is about (a comment, a new ticket's description), cut to [`EXCERPT_CHARS`].
    pub excerpt: Option<String>,
    /// The facts under it, label and value: priority, status, requester, assignee, SLA.
    pub facts: Vec<(&'static str, String)>,
    /// The ticket's page, when the public URL is configured.
    pub link: Option<String>,
}

/// Stored HTML (a comment, a description) as plain text of at most [`EXCERPT_CHARS`] characters, `…`
/// marking a cut; `None` when it shows nothing.
pub fn excerpt(html: &str) -> Option<String> {
    let text = crate::sanitize::html_to_text(html);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.chars().count() <= EXCERPT_CHARS {
        return Some(text.to_string());
    }
    let cut: String = text.chars().take(EXCERPT_CHARS - 1).collect();
    Some(format!("{}…", cut.trim_end()))
}

/// A moment as chat readers get it: minutes, UTC.
pub fn moment(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A clock's state in a few words: what was breached, what is at risk or due next, or that it is paused.
pub fn sla_state(view: &SlaView) -> Option<String> {
    let mut breached = Vec::new();
    if view.first_response_breached_at.is_some() {
        breached.push("first response");
    }
    if view.resolution_breached_at.is_some() {
        breached.push("resolution");
    }
    if !breached.is_empty() {
        return Some(format!("Breached: {}", breached.join(", ")));
    }
    if view.paused_since.is_some() {
        return Some("Paused".to_string());
    }
    let due = view.next_due()?;
    let what = if view.at_risk { "At risk, due" } else { "Due" };
    Some(format!("{what} {}", moment(due)))
}

/// The message for a destination of `kind`.
pub fn render(kind: ChatKind, news: &News) -> Value {
    match kind {
        ChatKind::Slack => slack(news),
        ChatKind::Teams => teams(news),
    }
}

/// Text Slack shows as typed: `&`, `<` and `>` escaped, as Slack's formatting rules ask.
fn slack_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Slack: a `text` fallback (notifications, screen readers) and blocks: the linked heading, what happened,
/// the excerpt quoted, and the facts as fields.
fn slack(news: &News) -> Value {
    let name = slack_text(&format!("{} · {}", news.number, news.title));
    let heading = match &news.link {
        // The link text must not close the link early: `|` and `>` are escaped with the rest.
        Some(link) => format!("*<{link}|{}>*", name.replace('|', "¦")),
        None => format!("*{name}*"),
    };
    let mut blocks = vec![json!({
        "type": "section",
        "text": {"type": "mrkdwn", "text": format!("{heading}\n{}", slack_text(&news.headline))},
    })];
    if let Some(excerpt) = &news.excerpt {
        let quoted: Vec<String> = excerpt
            .lines()
            .map(|l| format!("&gt; {}", slack_text(l)))
            .collect();
        blocks.push(json!({
            "type": "section",
            "text": {"type": "mrkdwn", "text": quoted.join("\n")},
        }));
    }
    let fields: Vec<Value> = news
        .facts
        .iter()
        .map(|(label, value)| {
            json!({"type": "mrkdwn", "text": format!("*{label}*\n{}", slack_text(value))})
        })
        .collect();
    if !fields.is_empty() {
        blocks.push(json!({"type": "section", "fields": fields}));
    }
    json!({
        "text": slack_text(&format!("{} {}: {}", news.number, news.headline, news.title)),
        "blocks": blocks,
        "unfurl_links": false,
    })
}

/// A line of Teams text that renders as typed: a `TextRun` takes no markdown.
fn run(text: &str) -> Value {
    json!({"type": "TextRun", "text": text})
}

/// Teams (Workflows incoming webhook): a message with one Adaptive Card (1.4): heading, what happened, the
/// excerpt, a line per fact, and a button to the ticket.
fn teams(news: &News) -> Value {
    let mut body = vec![
        json!({"type": "RichTextBlock", "inlines": [{
            "type": "TextRun", "text": format!("{} · {}", news.number, news.title),
            "weight": "Bolder", "size": "Medium",
        }]}),
        json!({"type": "RichTextBlock", "inlines": [run(&news.headline)]}),
    ];
    if let Some(excerpt) = &news.excerpt {
        body.push(json!({"type": "RichTextBlock", "inlines": [{
            "type": "TextRun", "text": excerpt, "isSubtle": true,
        }]}));
    }
    for (label, value) in &news.facts {
        body.push(
            json!({"type": "RichTextBlock", "spacing": "None", "inlines": [
                {"type": "TextRun", "text": format!("{label}: "), "weight": "Bolder"},
                run(value),
            ]}),
        );
    }
    let mut card = json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": body,
    });
    if let Some(link) = &news.link {
        card["actions"] = json!([{
            "type": "Action.OpenUrl",
            "title": format!("Open {}", news.number),
            "url": link,
        }]);
    }
    json!({
        "type": "message",
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "contentUrl": null,
            "content": card,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn news() -> News {
        News {
            number: "TKT-007".into(),
            title: "<!channel> & <https://evil.example|click>".into(),
            headline: "New ticket".into(),
            excerpt: Some("line one\n<@U123> two".into()),
            facts: vec![("Priority", "urgent".into()), ("Requester", "A <b>".into())],
            link: Some("https://desk.example/tickets/7/".into()),
        }
    }

    #[test]
    fn slack_text_cannot_mention_or_link() {
        let v = slack(&news());
        let all = v.to_string();
        assert!(!all.contains("<!channel>"), "{all}");
        assert!(!all.contains("<@U123>"), "{all}");
        assert!(!all.contains("<https://evil"), "{all}");
        let heading = v["blocks"][0]["text"]["text"].as_str().unwrap_or_default();
        assert!(heading.starts_with("*<https://desk.example/tickets/7/|TKT-007 · &lt;!channel&gt; &amp; &lt;https://evil.example¦click&gt;>*"), "{heading}");
        assert_eq!(
            v["blocks"][1]["text"]["text"],
            "&gt; line one\n&gt; &lt;@U123&gt; two"
        );
        assert_eq!(
            v["blocks"][2]["fields"][1]["text"],
            "*Requester*\nA &lt;b&gt;"
        );
    }

    #[test]
    fn teams_text_is_in_runs_and_links_to_the_ticket() {
        let v = teams(&news());
        let card = &v["attachments"][0]["content"];
        assert_eq!(card["type"], "AdaptiveCard");
        assert_eq!(
            card["body"][0]["inlines"][0]["text"],
            "TKT-007 · <!channel> & <https://evil.example|click>"
        );
        assert_eq!(card["body"][0]["inlines"][0]["type"], "TextRun");
        assert_eq!(card["actions"][0]["url"], "https://desk.example/tickets/7/");
        // No TextBlock anywhere: TextBlocks render markdown.
        assert!(!v.to_string().contains("\"type\":\"TextBlock\""));
    }

    #[test]
    fn excerpts_are_plain_and_cut() {
        assert_eq!(excerpt("<p>Hi &amp; bye</p>").as_deref(), Some("Hi & bye"));
        assert_eq!(excerpt("<p> </p>"), None);
        let long = "x".repeat(EXCERPT_CHARS + 10);
        let cut = excerpt(&long).unwrap_or_default();
        assert_eq!(cut.chars().count(), EXCERPT_CHARS);
        assert!(cut.ends_with('…'));
    }
}
