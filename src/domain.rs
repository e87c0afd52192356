//! Domain values parsed once at the edge and trusted inside: statuses, priorities, comment types,
//! asset kinds and ticket numbers.
pub use entity::values::{
    AssetStatus, AssetType, CommentType, Priority, StatusCategory, TicketStatus, UnknownValue,
};

/// The ticket workflow, defined on status categories. The statuses themselves are stored values
/// (`entity::values`); the rules about moving between them live here.
pub trait Workflow: Sized {
    /// The category of this status.
    fn category(self) -> StatusCategory;
    /// Statuses reachable from this one (moving to the same status is always allowed separately).
    fn allowed_next(self) -> &'static [TicketStatus];
    /// Whether moving to `next` is allowed by the workflow.
    fn can_move_to(self, next: TicketStatus) -> bool;
}

impl Workflow for TicketStatus {
    fn category(self) -> StatusCategory {
        match self {
            TicketStatus::New | TicketStatus::Open => StatusCategory::Todo,
            TicketStatus::InProgress | TicketStatus::OnHold | TicketStatus::Blocked => {
                StatusCategory::InProgress
            }
            TicketStatus::Resolved | TicketStatus::Closed => StatusCategory::Done,
        }
    }

    fn allowed_next(self) -> &'static [TicketStatus] {
        use TicketStatus::*;
        match self {
            New | Open => &[Open, InProgress, OnHold, Blocked, Resolved],
            InProgress | OnHold | Blocked => &[InProgress, OnHold, Blocked, Open, Resolved],
            Resolved => &[Closed, Open],
            Closed => &[],
        }
    }

    fn can_move_to(self, next: TicketStatus) -> bool {
        self == next || self.allowed_next().contains(&next)
    }
}

/// The door a change came through: what automation rules can ask of a write (`channel is email`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// The server-rendered web interface.
    Web,
    /// The REST contract under `/api/` and the web comment endpoints.
    Rest,
    /// The GraphQL API.
    Graphql,
    /// Mail to the help desk.
    Email,
    /// An automation rule.
    Rule,
    /// The service itself: the command line, the demo data, the worker.
    System,
}

impl Channel {
    /// Every channel, in declaration order.
    pub const ALL: &'static [Channel] = &[
        Channel::Web,
        Channel::Rest,
        Channel::Graphql,
        Channel::Email,
        Channel::Rule,
        Channel::System,
    ];

    /// The spelling rules and webhooks use.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Web => "web",
            Channel::Rest => "rest",
            Channel::Graphql => "graphql",
            Channel::Email => "email",
            Channel::Rule => "rule",
            Channel::System => "system",
        }
    }
}

/// Formats `<PREFIX>-<N>` with N zero-padded to at least three digits.
pub fn format_ticket_number(prefix: &str, number: i64) -> String {
    format!("{prefix}-{number:03}")
}

/// Reads a ticket number typed by a person: `TKT-042`, `tkt-42` or `42` all give 42.
pub fn parse_ticket_number(input: &str, prefix: &str) -> Option<i64> {
    let trimmed = input.trim();
    let digits = match trimmed.rsplit_once('-') {
        Some((head, tail)) if head.eq_ignore_ascii_case(prefix) => tail,
        Some(_) => return None,
        None => trimmed,
    };
    // 19 digits hold every i64; `parse` refuses the ones beyond it (a limit of 18 digits used to refuse
    // numbers that `format_ticket_number` writes).
    if digits.is_empty() || digits.len() > 19 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticket_numbers_pad_and_parse() {
        assert_eq!(format_ticket_number("TKT", 1), "TKT-001");
        assert_eq!(format_ticket_number("TKT", 1042), "TKT-1042");
        assert_eq!(parse_ticket_number("TKT-042", "TKT"), Some(42));
        assert_eq!(parse_ticket_number("tkt-42", "TKT"), Some(42));
        assert_eq!(parse_ticket_number("42", "TKT"), Some(42));
        assert_eq!(parse_ticket_number("ABC-42", "TKT"), None);
        assert_eq!(parse_ticket_number("4x2", "TKT"), None);
        assert_eq!(parse_ticket_number("99999999999999999999", "TKT"), None);
    }

    #[test]
    fn workflow_table() {
        assert!(TicketStatus::New.can_move_to(TicketStatus::Resolved));
        assert!(!TicketStatus::New.can_move_to(TicketStatus::Closed));
        assert!(TicketStatus::Resolved.can_move_to(TicketStatus::Open));
        assert!(!TicketStatus::Closed.can_move_to(TicketStatus::Open));
        assert!(TicketStatus::Closed.can_move_to(TicketStatus::Closed));
    }
}
