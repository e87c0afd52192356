//! A refused form of the ticket page: the page again (400, or 409 for a clash) with that form open, each box as
//! it was sent and the messages next to the boxes they are about, instead of an error page that loses what was
//! typed. Every form of the page goes through [`or_again`]; the template asks [`Again`] what to show.
use super::choices::Choice;
use super::{render_ticket, CommentDraft};
use crate::error::AppError;
use crate::state::AppState;
use crate::web::pages::{field_messages, Form, PageError, PageResult, PageUser};
use axum::response::Response;
use std::collections::BTreeMap;

/// One of the ticket page's forms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PageForm {
    /// The status buttons and the resolution note.
    Status,
    /// The side panel: priority, assignee (by list or by name), group, project, due date; also "assign to me".
    Details,
    /// Title and description.
    Edit,
    /// The custom fields.
    Fields,
    /// Adding tags.
    Tags,
    /// Linking another ticket.
    Links,
    /// Adding a follower.
    Followers,
    /// Merging into another ticket.
    Merge,
    /// Splitting ticked comments off.
    Split,
}

impl PageForm {
    /// Whether the form shows `field`'s message next to that field's box; any other message heads the form.
    fn beside(self, field: &str) -> bool {
        match self {
            PageForm::Details => matches!(
                field,
                "priority"
                    | "assigned_to"
                    | "assigned_username"
                    | "assigned_group"
                    | "project"
                    | "due_date"
            ),
            PageForm::Edit => matches!(field, "title" | "description"),
            PageForm::Fields => field.starts_with("custom_fields."),
            _ => false,
        }
    }

    /// A form of one box, whose message needs no field name before it.
    fn single(self) -> bool {
        matches!(
            self,
            PageForm::Tags
                | PageForm::Links
                | PageForm::Followers
                | PageForm::Merge
                | PageForm::Split
        )
    }
}

/// What a refused form sent and why it was refused.
pub struct Refused {
    /// Which form.
    pub which: PageForm,
    /// The form as posted.
    pub form: Form,
    /// The first message of each field named.
    pub errors: BTreeMap<String, String>,
    /// The service's message.
    pub message: String,
}

/// What the ticket page's template shows of a refused form (nothing when none was).
#[derive(Default)]
pub struct Again(pub Option<Refused>);

impl Again {
    fn of(&self, which: PageForm) -> Option<&Refused> {
        self.0.as_ref().filter(|r| r.which == which)
    }

    /// The form was refused: show it open.
    pub fn open(&self, which: PageForm) -> bool {
        self.of(which).is_some()
    }

    /// What the refused form sent as `name`, else `current`.
    pub fn or<'a>(&'a self, which: PageForm, name: &str, current: &'a str) -> &'a str {
        self.of(which)
            .and_then(|r| r.form.opt(name))
            .unwrap_or(current)
    }

    /// The refused form sent `name` (a ticked box).
    pub fn sent(&self, which: PageForm, name: &str) -> bool {
        self.of(which).is_some_and(|r| r.form.opt(name).is_some())
    }

    /// The message about `field`, shown next to its box.
    pub fn error(&self, which: PageForm, field: &str) -> Option<&str> {
        self.of(which)
            .filter(|_| which.beside(field))
            .and_then(|r| r.errors.get(field))
            .map(String::as_str)
    }

    /// The message heading the refused form: none when every message stands next to its box.
    pub fn said(&self, which: PageForm) -> Option<&str> {
        let r = self.of(which)?;
        let elsewhere: Vec<&String> = r
            .errors
            .iter()
            .filter(|(field, _)| !which.beside(field))
            .map(|(_, m)| m)
            .collect();
        match elsewhere.as_slice() {
            [] if !r.errors.is_empty() => None,
            [only] if which.single() => Some(only.as_str()),
            _ => Some(&r.message),
        }
    }

    /// The options of a select of the refused form, chosen as it sent `name`.
    pub(super) fn choose(&self, which: PageForm, name: &str, choices: &mut [Choice]) {
        if let Some(sent) = self.of(which).and_then(|r| r.form.opt(name)) {
            for c in choices {
                c.selected = c.value == sent;
            }
        }
    }
}

/// What a post of `which` led to: when what it sent was refused (bad input, a status move the workflow
/// refuses, a clash), the ticket page again with that form open as sent and the messages; anything else as it
/// is (a redirect, or the error page for a ticket the user may not see or change).
pub async fn or_again(
    state: &AppState,
    user: &PageUser,
    id: i32,
    which: PageForm,
    form: Form,
    outcome: PageResult<Response>,
) -> PageResult<Response> {
    let err = match outcome {
        Err(PageError::App(err)) => err,
        other => return other,
    };
    let status = err.status();
    let (message, fields) = match err {
        AppError::Validation { message, fields } | AppError::Conflict { message, fields } => {
            (message, fields)
        }
        AppError::InvalidTransition { message, .. } => (message, Default::default()),
        err => return Err(err.into()),
    };
    let refused = Refused {
        which,
        form,
        errors: field_messages(fields),
        message,
    };
    let draft = CommentDraft::default();
    render_ticket(state, user, id, draft, Some(refused), status, None).await
}
