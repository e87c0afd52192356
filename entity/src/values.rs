//! The closed sets of values stored as text: ticket status and priority, comment type, asset kind and
//! status, an outbox row's job and its state, SLA event targets and kinds, and a stored blob's state. Each is a Rust enum stored as its lowercase spelling, so rows come back typed and an unknown
//! stored value fails the read instead of travelling on as a string.
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// A value outside an enum's set, as typed by a client: the field it was given for and a message
/// listing the allowed values. The application turns it into its validation error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownValue {
    /// The input field, as the REST contract names it.
    pub field: &'static str,
    /// `"<value>" is not one of: <allowed>`.
    pub message: String,
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for UnknownValue {}

macro_rules! stored_enum {
    ($(#[$meta:meta])* $name:ident, $field:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize)]
        #[cfg_attr(feature = "graphql", derive(async_graphql::Enum))]
        #[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vmeta])* #[sea_orm(string_value = $text)] $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stored and REST spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parse a client's spelling (trimmed, case-insensitive), or name the field and the allowed values.
            pub fn parse(value: &str) -> Result<Self, UnknownValue> {
                let lowered = value.trim().to_ascii_lowercase();
                match lowered.as_str() {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownValue {
                        field: $field,
                        message: format!("\"{}\" is not one of: {}", value, [$($text),+].join(", ")),
                    }),
                }
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

stored_enum!(
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

stored_enum!(
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

stored_enum!(
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

stored_enum!(
    /// Who may read a comment.
    CommentType, "comment_type" {
        /// Visible to everyone who can see the ticket.
        Public => "public",
        /// Visible to the team, the assignee and the assigned group only.
        Internal => "internal",
    }
);

stored_enum!(
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

stored_enum!(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T>(
        all: &[T],
        text: fn(T) -> &'static str,
        parse: fn(&str) -> Result<T, UnknownValue>,
    ) where
        T: Copy + PartialEq + std::fmt::Debug + ActiveEnum<Value = String> + Serialize,
    {
        for &v in all {
            assert_eq!(v.to_value(), text(v), "stored spelling");
            assert_eq!(T::try_from_value(&text(v).to_string()), Ok(v));
            assert_eq!(
                serde_json::to_value(v).ok(),
                Some(serde_json::json!(text(v)))
            );
            assert_eq!(parse(&format!(" {} ", text(v).to_uppercase())), Ok(v));
        }
        assert!(T::try_from_value(&"bogus".to_string()).is_err());
    }

    #[test]
    fn stored_serialised_and_parsed_spellings_agree() {
        round_trips(TicketStatus::ALL, TicketStatus::as_str, TicketStatus::parse);
        round_trips(
            StatusCategory::ALL,
            StatusCategory::as_str,
            StatusCategory::parse,
        );
        round_trips(Priority::ALL, Priority::as_str, Priority::parse);
        round_trips(CommentType::ALL, CommentType::as_str, CommentType::parse);
        round_trips(AssetType::ALL, AssetType::as_str, AssetType::parse);
        round_trips(AssetStatus::ALL, AssetStatus::as_str, AssetStatus::parse);
    }

    #[test]
    fn an_unknown_spelling_names_the_field_and_the_choices() {
        let err = Priority::parse("urgent").err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("priority: \"urgent\" is not one of: low, medium, high, critical")
        );
    }
}

stored_enum!(
    /// What an outbox row asks the worker to do.
    JobKind, "kind" {
        /// POST the row's body to a webhook endpoint.
        Webhook => "webhook",
        /// Send the row's email.
        Email => "email",
        /// Judge a ticket's SLA clocks at their next deadline.
        SlaCheck => "sla_check",
        /// Re-clock the open tickets of a priority after its policy changed.
        SlaReclock => "sla_reclock",
        /// Run a time rule over the tickets whose wait has passed.
        TimeRule => "time_rule",
        /// Change the next tickets of a bulk change.
        BulkChange => "bulk_change",
        /// Post the row's message to a chat destination.
        Chat => "chat",
    }
);

stored_enum!(
    /// Where an outbox row stands.
    JobStatus, "status" {
        /// Waiting for (another) attempt.
        Pending => "pending",
        /// Done; never run again.
        Delivered => "delivered",
        /// Gave up after the configured attempts; kept for inspection and redelivery.
        Failed => "failed",
    }
);

stored_enum!(
    /// Where a bulk change stands.
    BulkStatus, "status" {
        /// Waiting for the worker.
        Queued => "queued",
        /// Some of its tickets are done.
        Running => "running",
        /// Every ticket was tried.
        Done => "done",
    }
);

stored_enum!(
    /// Which SLA target a due time or event is about.
    SlaTarget, "target" {
        /// The first public reply of a team member.
        FirstResponse => "first_response",
        /// Resolving the ticket.
        Resolution => "resolution",
    }
);

stored_enum!(
    /// What an SLA event reports.
    SlaEventKind, "kind" {
        /// `AT_RISK_PERCENT` of the target used.
        AtRisk => "at_risk",
        /// The target passed without being met.
        Breached => "breached",
    }
);

stored_enum!(
    /// Where a blob's bytes stand in the storage backend.
    BlobState, "state" {
        /// An upload is writing them.
        Writing => "writing",
        /// Complete.
        Stored => "stored",
        /// The collector is deleting them.
        Collecting => "collecting",
    }
);

stored_enum!(
    /// How two tickets are linked, as stored: from the `source` ticket to the `target`.
    LinkKind, "type" {
        /// The source is the target's parent.
        ParentOf => "parent_of",
        /// The two are related (either way round).
        RelatesTo => "relates_to",
        /// The source reports what the target already does.
        DuplicateOf => "duplicate_of",
        /// The source must be done before the target.
        Blocks => "blocks",
    }
);

stored_enum!(
    /// A link as one of its two tickets sees it.
    LinkType, "type" {
        /// This ticket is the other's parent.
        ParentOf => "parent_of",
        /// This ticket is a child of the other.
        ChildOf => "child_of",
        /// The two are related.
        RelatesTo => "relates_to",
        /// This ticket duplicates the other.
        DuplicateOf => "duplicate_of",
        /// The other ticket duplicates this one.
        DuplicatedBy => "duplicated_by",
        /// This ticket blocks the other.
        Blocks => "blocks",
        /// The other ticket blocks this one.
        BlockedBy => "blocked_by",
    }
);

impl LinkType {
    /// The stored kind, and whether this ticket is its source.
    pub fn stored(self) -> (LinkKind, bool) {
        match self {
            LinkType::ParentOf => (LinkKind::ParentOf, true),
            LinkType::ChildOf => (LinkKind::ParentOf, false),
            LinkType::RelatesTo => (LinkKind::RelatesTo, true),
            LinkType::DuplicateOf => (LinkKind::DuplicateOf, true),
            LinkType::DuplicatedBy => (LinkKind::DuplicateOf, false),
            LinkType::Blocks => (LinkKind::Blocks, true),
            LinkType::BlockedBy => (LinkKind::Blocks, false),
        }
    }

    /// How a ticket sees a stored link of `kind`, being its source or not.
    pub fn seen(kind: LinkKind, from_source: bool) -> LinkType {
        match (kind, from_source) {
            (LinkKind::ParentOf, true) => LinkType::ParentOf,
            (LinkKind::ParentOf, false) => LinkType::ChildOf,
            (LinkKind::RelatesTo, _) => LinkType::RelatesTo,
            (LinkKind::DuplicateOf, true) => LinkType::DuplicateOf,
            (LinkKind::DuplicateOf, false) => LinkType::DuplicatedBy,
            (LinkKind::Blocks, true) => LinkType::Blocks,
            (LinkKind::Blocks, false) => LinkType::BlockedBy,
        }
    }
}

stored_enum!(
    /// The type of a custom field's values.
    FieldKind, "kind" {
        /// One line, at most 200 characters.
        Text => "text",
        /// Several lines, at most 10,000 characters (not filterable).
        LongText => "long_text",
        /// A finite number.
        Number => "number",
        /// A calendar date.
        Date => "date",
        /// A moment, stored in UTC.
        Datetime => "datetime",
        /// Yes or no.
        Boolean => "boolean",
        /// One of the field's choices.
        Choice => "choice",
        /// Any number of the field's choices.
        MultiChoice => "multi_choice",
        /// A user, by id.
        User => "user",
        /// An asset, by id.
        Asset => "asset",
    }
);

stored_enum!(
    /// The chat service a destination posts to.
    ChatKind, "kind" {
        /// Slack: an incoming webhook, or a bot token and a channel.
        Slack => "slack",
        /// Microsoft Teams: an incoming webhook (Workflows) taking Adaptive Cards.
        Teams => "teams",
    }
);

stored_enum!(
    /// What a reply by mail to a resolved ticket does (a closed ticket is done for good: a reply to it always
    /// opens a follow-up).
    ResolvedReply, "resolved_reply" {
        /// The reply is a comment, and when it comes from the requester the ticket opens again.
        Reopen => "reopen",
        /// The reply opens a new ticket, related to the resolved one, which stays resolved.
        FollowUp => "follow_up",
    }
);

stored_enum!(
    /// Which senders without an account may write to the help desk (an account is made for them).
    UnknownSenders, "unknown_senders" {
        /// Anyone.
        Create => "create",
        /// Only addresses at the project's listed domains (or their subdomains).
        KnownDomains => "known_domains",
        /// None: only the desk's accounts.
        Refuse => "refuse",
    }
);
