//! Domain values parsed once at the edge and trusted inside: statuses, priorities, comment types,
//! asset kinds and ticket numbers.
use crate::error::{AppError, AppResult};
use async_graphql::Enum;
use serde::{Deserialize, Serialize};

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident, $field:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Enum, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stored and REST spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parse the REST spelling (case-insensitive), or a 400 naming the field and the allowed values.
            pub fn parse(value: &str) -> AppResult<Self> {
                let lowered = value.trim().to_ascii_lowercase();
                match lowered.as_str() {
                    $($text => Ok($name::$variant),)+
                    _ => Err(AppError::field(
                        $field,
                        format!("\"{}\" is not one of: {}", value, [$($text),+].join(", ")),
                    )),
                }
            }

            /// Parse a value read back from the database; unknown values are an internal error.
            pub fn from_db(value: &str) -> AppResult<Self> {
                Self::parse(value).map_err(|_| AppError::internal(anyhow::anyhow!(
                    "unexpected {} value in database: {value}", $field
                )))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// Ticket workflow status.
    TicketStatus, "status" {
        /// Just raised.
        New => "new",
        /// Acknowledged, waiting for work.
        Open => "open",
        /// Being worked on.
        InProgress => "in_progress",
        /// Paused, waiting on someone.
        OnHold => "on_hold",
        /// Cannot proceed.
        Blocked => "blocked",
        /// Solved, awaiting closure.
        Resolved => "resolved",
        /// Finished; terminal.
        Closed => "closed",
    }
);

string_enum!(
    /// The category a status belongs to; the workflow is defined on categories.
    StatusCategory, "status_category" {
        /// Not started.
        Todo => "todo",
        /// Under way.
        InProgress => "in_progress",
        /// Finished.
        Done => "done",
    }
);

string_enum!(
    /// Ticket priority.
    Priority, "priority" {
        /// Low.
        Low => "low",
        /// Medium (default).
        Medium => "medium",
        /// High.
        High => "high",
        /// Critical.
        Critical => "critical",
    }
);

string_enum!(
    /// Who may read a comment.
    CommentType, "comment_type" {
        /// Visible to everyone who can see the ticket.
        Public => "public",
        /// Visible to the team, the assignee and the assigned group only.
        Internal => "internal",
    }
);

string_enum!(
    /// Kind of inventory item.
    AssetType, "type" {
        /// Hardware.
        Hardware => "hardware",
        /// Software.
        Software => "software",
        /// License.
        License => "license",
        /// Network equipment.
        Network => "network",
        /// Peripheral.
        Peripheral => "peripheral",
        /// Mobile device.
        Mobile => "mobile",
        /// Anything else.
        Other => "other",
    }
);

string_enum!(
    /// Where an inventory item is in its life.
    AssetStatus, "status" {
        /// In use.
        InUse => "in_use",
        /// In stock (default).
        InStock => "in_stock",
        /// Being repaired.
        InRepair => "in_repair",
        /// Retired.
        Retired => "retired",
        /// Lost.
        Lost => "lost",
    }
);

impl TicketStatus {
    /// The category of this status.
    pub fn category(self) -> StatusCategory {
        match self {
            TicketStatus::New | TicketStatus::Open => StatusCategory::Todo,
            TicketStatus::InProgress | TicketStatus::OnHold | TicketStatus::Blocked => {
                StatusCategory::InProgress
            }
            TicketStatus::Resolved | TicketStatus::Closed => StatusCategory::Done,
        }
    }

    /// Statuses reachable from this one (moving to the same status is always allowed separately).
    pub fn allowed_next(self) -> &'static [TicketStatus] {
        use TicketStatus::*;
        match self {
            New | Open => &[Open, InProgress, OnHold, Blocked, Resolved],
            InProgress | OnHold | Blocked => &[InProgress, OnHold, Blocked, Open, Resolved],
            Resolved => &[Closed, Open],
            Closed => &[],
        }
    }

    /// Whether moving to `next` is allowed by the workflow.
    pub fn can_move_to(self, next: TicketStatus) -> bool {
        self == next || self.allowed_next().contains(&next)
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
