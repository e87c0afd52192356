//! Email texts, one template per occurrence. User text is HTML-escaped in HTML bodies.
use super::mailer::Email;
use crate::i18n::Lang;
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

/// A file size for people: bytes, KiB or MiB, in `lang`.
pub fn size_label(bytes: i64, lang: Lang) -> String {
    const KIB: i64 = 1024;
    const MIB: i64 = 1024 * 1024;
    match bytes {
        b if b < KIB => lang.tn("email-size-bytes", "n", b),
        b if b < MIB => lang.t1(
            "email-size-kib",
            "n",
            lang.decimal(format!("{:.1}", b as f64 / KIB as f64)),
        ),
        b => lang.t1(
            "email-size-mib",
            "n",
            lang.decimal(format!("{:.1}", b as f64 / MIB as f64)),
        ),
    }
}

/// A stored value (`in_progress`) as an email in `lang` names it: English emails give it as stored, as they
/// always have; others in the language's words.
fn value(lang: Lang, stored: &str) -> String {
    match lang {
        Lang::En => stored.to_string(),
        _ => lang.label(stored),
    }
}

/// A moment (RFC 3339) as an email in `lang` writes it: English emails as stored, as they always have; others
/// in the language's way, in UTC, which they say.
fn moment(lang: Lang, stored: &str) -> String {
    match (lang, chrono::DateTime::parse_from_rfc3339(stored)) {
        (Lang::En, _) | (_, Err(_)) => stored.to_string(),
        (_, Ok(at)) => format!(
            "{} UTC",
            at.with_timezone(&chrono::Utc).format(lang.moment_format())
        ),
    }
}

/// Render the email about `occurrence` on `t` for `to`, whose display name is `name`, in `lang`.
pub fn render(
    occurrence: &Occurrence<'_>,
    t: &ticket::Model,
    to: &str,
    name: &str,
    lang: Lang,
) -> Email {
    let label = format!("{} ({})", t.title, t.ticket_number);
    let about = |key: &str| lang.t1(key, "ticket", &label);
    let (subject, lines): (String, Vec<String>) = match occurrence {
        Occurrence::Created => (
            about("email-created-subject"),
            vec![
                about("email-created"),
                lang.t1(
                    "email-priority",
                    "value",
                    value(lang, &t.priority.to_string()),
                ),
                lang.t1("email-status", "value", value(lang, &t.status.to_string())),
            ],
        ),
        Occurrence::Assigned => (
            about("email-assigned-subject"),
            vec![
                about("email-assigned"),
                lang.t1("email-status", "value", value(lang, &t.status.to_string())),
            ],
        ),
        Occurrence::StatusChanged { from, to } => (
            about("email-status-subject"),
            vec![
                about("email-status-changed"),
                lang.texts(
                    "email-status-from-to",
                    [("from", &value(lang, from)), ("to", &value(lang, to))],
                ),
            ],
        ),
        Occurrence::CommentAdded {
            author,
            body,
            internal,
            files,
        } => {
            let mut lines = vec![
                lang.texts("email-commented", [("author", author), ("ticket", &label)]),
                String::new(),
                body.to_string(),
            ];
            if !files.is_empty() {
                lines.push(String::new());
                lines.push(lang.tn("email-files", "n", files.len()));
                lines.extend(
                    files
                        .iter()
                        .map(|f| format!("- {} ({})", f.filename, size_label(f.size, lang))),
                );
            }
            let kind = if *internal {
                "email-note-subject"
            } else {
                "email-comment-subject"
            };
            (about(kind), lines)
        }
        Occurrence::FileAttached {
            uploader,
            filename,
            internal,
        } => (
            about(if *internal {
                "email-internal-attachment-subject"
            } else {
                "email-attachment-subject"
            }),
            vec![
                lang.texts(
                    "email-attached",
                    [
                        ("uploader", uploader),
                        ("ticket", &label),
                        ("filename", filename),
                    ],
                ),
                lang.t("email-open-ticket"),
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
            let what = match *target {
                "first_response" => lang.t("email-sla-first-response"),
                "resolution" => lang.t("email-sla-resolution"),
                other => other.replace('_', " "),
            };
            let (subject, said, when) = if *breached {
                (
                    "email-sla-breached-subject",
                    "email-sla-breached",
                    "email-sla-was-due",
                )
            } else {
                (
                    "email-sla-risk-subject",
                    "email-sla-risk",
                    "email-sla-is-due",
                )
            };
            (
                about(subject),
                vec![
                    lang.texts(said, [("target", &what), ("ticket", &label)]),
                    lang.t1(when, "due", moment(lang, due)),
                ],
            )
        }
    };
    let hello = lang.t1("email-hello", "name", name);
    let text = format!("{hello}\n\n{}\n\n-- deskgraph\n", lines.join("\n"));
    let html_lines: Vec<String> = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| format!("<p>{}</p>", html_escape(l)))
        .collect();
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"{}\"><body>\n<p>{}</p>\n{}\n<p>-- deskgraph</p>\n</body></html>\n",
        lang.code(),
        html_escape(&hello),
        html_lines.join("\n")
    );
    Email {
        to: to.to_string(),
        subject,
        text,
        html,
        ticket: Some(t.id),
        answers: None,
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
        let email = render(&Occurrence::Created, &t, "a@example.com", "Ann", Lang::En);
        assert_eq!(email.subject, "New Ticket: <b>Printer</b> & co (TKT-001)");
        assert!(email.text.contains("<b>Printer</b> & co"));
        assert!(email.html.contains("&lt;b&gt;Printer&lt;/b&gt; &amp; co"));
        assert!(!email.html.contains("<b>Printer"));
    }

    #[test]
    fn sizes_and_file_counts_follow_the_language() {
        assert_eq!(size_label(12, Lang::En), "12 bytes");
        assert_eq!(size_label(1536, Lang::En), "1.5 KiB");
        assert_eq!(size_label(1536, Lang::De), "1,5 KiB");
        assert_eq!(size_label(3 * 1024 * 1024, Lang::De), "3,0 MiB");
        assert_eq!(Lang::En.tn("email-files", "n", 1), "Attached file:");
        assert_eq!(Lang::En.tn("email-files", "n", 2), "Attached files (2):");
        assert_eq!(
            Lang::De.tn("email-files", "n", 2),
            "Angehängte Dateien (2):"
        );
        assert_eq!(
            moment(Lang::De, "2026-11-30T14:05:09.5Z"),
            "30.11.2026 14:05 UTC"
        );
        assert_eq!(
            moment(Lang::En, "2026-11-30T14:05:09.5Z"),
            "2026-11-30T14:05:09.5Z"
        );
        assert_eq!(moment(Lang::De, "soon"), "soon");
    }
}
