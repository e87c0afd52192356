//! Email texts, one template per occurrence. User text is HTML-escaped in HTML bodies.
use super::mailer::Email;
use crate::sanitize::html_escape;
use entity::{attachment, ticket};

/// What happened, with what the template needs beyond the ticket.
#[derive(Debug, Clone)]
pub enum Occurrence<'a> {
    /// A new ticket.
    Created,
    /// The ticket was assigned to the recipient.
    Assigned,
    /// The status moved.
    StatusChanged {
        /// Old status.
        from: &'a str,
        /// New status.
        to: &'a str,
    },
    /// A comment was added.
    CommentAdded {
        /// Comment author's name.
        author: &'a str,
        /// Comment text.
        body: &'a str,
        /// Whether it is an internal note.
        internal: bool,
        /// The files posted with it (they share its visibility).
        files: &'a [attachment::Model],
    },
    /// A file was attached (only its name is told).
    FileAttached {
        /// Uploader's name.
        uploader: &'a str,
        /// The file's (cleaned) name.
        filename: &'a str,
        /// Whether it is on an internal note.
        internal: bool,
    },
    /// An automation rule's own message.
    Notice {
        /// Its subject line.
        subject: &'a str,
        /// Its text.
        body: &'a str,
    },
    /// A service-level target is at risk or breached.
    Sla {
        /// `first_response` or `resolution`.
        target: &'a str,
        /// Breached (else at risk).
        breached: bool,
        /// The due time.
        due: &'a str,
    },
}

/// A file size for people: bytes, KiB or MiB.
pub fn size_label(bytes: i64) -> String {
    const KIB: i64 = 1024;
    const MIB: i64 = 1024 * 1024;
    match bytes {
        b if b < KIB => format!("{b} bytes"),
        b if b < MIB => format!("{:.1} KiB", b as f64 / KIB as f64),
        b => format!("{:.1} MiB", b as f64 / MIB as f64),
    }
}

/// Render the email about `occurrence` on `t` for `to`, whose display name is `name`.
pub fn render(occurrence: &Occurrence<'_>, t: &ticket::Model, to: &str, name: &str) -> Email {
    let label = format!("{} ({})", t.title, t.ticket_number);
    let (subject, lines): (String, Vec<String>) = match occurrence {
        Occurrence::Created => (
            format!("New Ticket: {label}"),
            vec![
                format!("A new ticket was opened: {label}."),
                format!("Priority: {}", t.priority),
                format!("Status: {}", t.status),
            ],
        ),
        Occurrence::Assigned => (
            format!("Ticket Assigned: {label}"),
            vec![
                format!("The ticket {label} was assigned to you."),
                format!("Status: {}", t.status),
            ],
        ),
        Occurrence::StatusChanged { from, to } => (
            format!("Ticket Status Changed: {label}"),
            vec![
                format!("The status of {label} changed."),
                format!("Status: {from} -> {to}"),
            ],
        ),
        Occurrence::CommentAdded {
            author,
            body,
            internal,
            files,
        } => {
            let mut lines = vec![
                format!("{author} commented on {label}:"),
                String::new(),
                body.to_string(),
            ];
            if !files.is_empty() {
                lines.push(String::new());
                lines.push(if files.len() == 1 {
                    "Attached file:".to_string()
                } else {
                    format!("Attached files ({}):", files.len())
                });
                lines.extend(
                    files
                        .iter()
                        .map(|f| format!("- {} ({})", f.filename, size_label(f.size))),
                );
            }
            let kind = if *internal {
                "New Internal Note"
            } else {
                "New Comment"
            };
            (format!("{kind}: {label}"), lines)
        }
        Occurrence::FileAttached {
            uploader,
            filename,
            internal,
        } => (
            format!(
                "{}: {label}",
                if *internal {
                    "New Internal Attachment"
                } else {
                    "New Attachment"
                }
            ),
            vec![
                format!("{uploader} attached a file to {label}: {filename}"),
                "Open the ticket to see it.".to_string(),
            ],
        ),
        Occurrence::Notice { subject, body } => (
            // One line, whatever the rule's text holds.
            format!("{}: {label}", subject.replace(['\r', '\n'], " ").trim()),
            body.lines().map(str::to_string).collect(),
        ),
        Occurrence::Sla {
            target,
            breached,
            due,
        } => {
            let what = target.replace('_', " ");
            if *breached {
                (
                    format!("SLA Breached: {label}"),
                    vec![
                        format!("The {what} target of {label} was breached."),
                        format!("It was due at {due}."),
                    ],
                )
            } else {
                (
                    format!("SLA At Risk: {label}"),
                    vec![
                        format!("The {what} target of {label} is at risk."),
                        format!("It is due at {due}."),
                    ],
                )
            }
        }
    };
    let text = format!("Hello {name},\n\n{}\n\n-- deskgraph\n", lines.join("\n"));
    let html_lines: Vec<String> = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| format!("<p>{}</p>", html_escape(l)))
        .collect();
    let html = format!(
        "<!DOCTYPE html>\n<html><body>\n<p>Hello {},</p>\n{}\n<p>-- deskgraph</p>\n</body></html>\n",
        html_escape(name),
        html_lines.join("\n")
    );
    Email {
        to: to.to_string(),
        subject,
        text,
        html,
        ticket: Some(t.id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_user_text_in_html_only() {
        let t = ticket::Model {
            id: 1,
            number: 1,
            ticket_number: "TKT-001".into(),
            title: "<b>Printer</b> & co".into(),
            description: String::new(),
            status: entity::values::TicketStatus::New,
            priority: entity::values::Priority::Medium,
            requester_id: 1,
            assignee_id: None,
            assigned_group_id: None,
            project_id: None,
            due_date: None,
            first_responded_at: None,
            resolved_at: None,
            closed_at: None,
            archived_at: None,
            archived_by_id: None,
            public_comment_count: 0,
            all_comment_count: 0,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
            status_changed_at: None,
            merged_into_id: None,
        };
        let email = render(&Occurrence::Created, &t, "a@example.com", "Ann");
        assert_eq!(email.subject, "New Ticket: <b>Printer</b> & co (TKT-001)");
        assert!(email.text.contains("<b>Printer</b> & co"));
        assert!(email.html.contains("&lt;b&gt;Printer&lt;/b&gt; &amp; co"));
        assert!(!email.html.contains("<b>Printer"));
    }
}
