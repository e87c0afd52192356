//! The rule language: conditions on a ticket write and actions on the ticket, as administrators write them
//! in JSON (docs/automation.md). A rule is parsed once, when it is saved, into these typed values; a value
//! that does not fit is refused with the JSON path that holds it (`conditions.all[1].value`). What is
//! stored is the canonical JSON [`Conditions::to_json`] and [`actions_to_json`] give back, so reading a
//! stored rule never meets a value the parser would refuse.
use crate::domain::{Priority, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::service::tags;
use chrono::NaiveDate;
use serde_json::{json, Map, Value as Json};

/// Conditions in one list at most.
pub const MAX_CONDITIONS: usize = 50;
/// Actions of one rule at most.
pub const MAX_ACTIONS: usize = 20;
/// Values of one `one_of` at most.
pub const MAX_CHOICES: usize = 100;
/// Characters of a text value at most.
pub const MAX_TEXT: usize = 500;
/// Characters of a comment template at most.
pub const MAX_TEMPLATE: usize = 10_000;
/// Days ahead a due date may be set at most.
pub const MAX_DUE_DAYS: i64 = 3_650;

/// What happened to the ticket.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// It was opened.
    Created,
    /// Its fields changed.
    Updated,
    /// A comment was added to it.
    CommentAdded,
    /// A service-level target is close (`sla.target` names it).
    SlaAtRisk,
    /// A service-level target was missed.
    SlaBreached,
}

impl Event {
    /// Every event.
    pub const ALL: &'static [Event] = &[
        Event::Created,
        Event::Updated,
        Event::CommentAdded,
        Event::SlaAtRisk,
        Event::SlaBreached,
    ];

    /// The rules' spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Created => "created",
            Event::Updated => "updated",
            Event::CommentAdded => "comment_added",
            Event::SlaAtRisk => "sla_at_risk",
            Event::SlaBreached => "sla_breached",
        }
    }
}

/// The role of whoever made the change.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Neither agent nor administrator.
    Requester,
    /// A team member who is not an administrator.
    Agent,
    /// An administrator.
    Admin,
    /// The service itself (the SLA checks).
    System,
}

impl Role {
    /// The rules' spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Requester => "requester",
            Role::Agent => "agent",
            Role::Admin => "admin",
            Role::System => "system",
        }
    }
}

/// A ticket field a condition or an action names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TicketField {
    /// `ticket.title`.
    Title,
    /// `ticket.description` (its text, markup left out).
    Description,
    /// `ticket.status`.
    Status,
    /// `ticket.priority` (ordered low < medium < high < critical).
    Priority,
    /// `ticket.project` (project id or null).
    Project,
    /// `ticket.assigned_to` (user id or null).
    AssignedTo,
    /// `ticket.assigned_group` (group id or null).
    AssignedGroup,
    /// `ticket.requester` (user id).
    Requester,
    /// `ticket.due_date` (date or null).
    DueDate,
}

impl TicketField {
    const ALL: [TicketField; 9] = [
        TicketField::Title,
        TicketField::Description,
        TicketField::Status,
        TicketField::Priority,
        TicketField::Project,
        TicketField::AssignedTo,
        TicketField::AssignedGroup,
        TicketField::Requester,
        TicketField::DueDate,
    ];

    /// The REST spelling, as in the ticket's JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            TicketField::Title => "title",
            TicketField::Description => "description",
            TicketField::Status => "status",
            TicketField::Priority => "priority",
            TicketField::Project => "project",
            TicketField::AssignedTo => "assigned_to",
            TicketField::AssignedGroup => "assigned_group",
            TicketField::Requester => "requester",
            TicketField::DueDate => "due_date",
        }
    }

    fn kind(self) -> Kind {
        match self {
            TicketField::Title | TicketField::Description => Kind::Text,
            TicketField::Status => Kind::Choice(STATUSES, false),
            TicketField::Priority => Kind::Choice(PRIORITIES, true),
            TicketField::Project
            | TicketField::AssignedTo
            | TicketField::AssignedGroup
            | TicketField::Requester => Kind::Ref,
            TicketField::DueDate => Kind::Date,
        }
    }
}

/// The prefix of a custom field's subject: `ticket.fields.<key>`.
pub const FIELD_PREFIX: &str = "ticket.fields.";

/// What a condition asks about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// `event`: created, updated or comment_added.
    Event,
    /// `channel`: the door the change came through.
    Channel,
    /// `actor.role`: requester, agent or admin.
    ActorRole,
    /// `actor.group`: a group id the actor belongs to.
    ActorGroup,
    /// `comment.internal`: on `comment_added`, whether the comment is an internal note.
    CommentInternal,
    /// `sla.target`: on `sla_at_risk` and `sla_breached`, `first_response` or `resolution`.
    SlaTarget,
    /// `time.business_hours`: whether the write happened within the business hours of the ticket's SLA
    /// policy (always, for a ticket without one).
    BusinessHours,
    /// `ticket.tags`: the tags the ticket carries (`contains` a tag, `is_not`: does not carry it, `one_of`).
    Tags,
    /// A field of the ticket as it is after the change.
    Ticket(TicketField),
    /// `ticket.fields.<key>`: a custom field's value as it is after the change (typed by the field's kind
    /// when the rule is saved, see `automation::fields`).
    Field(String),
}

impl Subject {
    fn parse(name: &str) -> Option<Subject> {
        Some(match name {
            "event" => Subject::Event,
            "channel" => Subject::Channel,
            "actor.role" => Subject::ActorRole,
            "actor.group" => Subject::ActorGroup,
            "comment.internal" => Subject::CommentInternal,
            "sla.target" => Subject::SlaTarget,
            "time.business_hours" => Subject::BusinessHours,
            "ticket.tags" => Subject::Tags,
            other if other.starts_with(FIELD_PREFIX) => {
                let key = &other[FIELD_PREFIX.len()..];
                let fits = !key.is_empty()
                    && key.chars().count() <= crate::service::custom_fields::MAX_KEY_CHARS
                    && !key.chars().any(|c| c.is_whitespace() || c.is_control());
                return fits.then(|| Subject::Field(key.to_string()));
            }
            other => {
                let field = other.strip_prefix("ticket.")?;
                Subject::Ticket(TicketField::ALL.into_iter().find(|f| f.as_str() == field)?)
            }
        })
    }

    /// The spelling in a rule.
    pub fn name(&self) -> String {
        match self {
            Subject::Event => "event".into(),
            Subject::Channel => "channel".into(),
            Subject::ActorRole => "actor.role".into(),
            Subject::ActorGroup => "actor.group".into(),
            Subject::CommentInternal => "comment.internal".into(),
            Subject::SlaTarget => "sla.target".into(),
            Subject::BusinessHours => "time.business_hours".into(),
            Subject::Tags => "ticket.tags".into(),
            Subject::Ticket(field) => format!("ticket.{}", field.as_str()),
            Subject::Field(key) => format!("{FIELD_PREFIX}{key}"),
        }
    }

    fn kind(&self) -> Kind {
        match self {
            Subject::Event => Kind::Choice(EVENTS, false),
            Subject::Channel => Kind::Choice(CHANNELS, false),
            Subject::ActorRole => Kind::Choice(ROLES, false),
            Subject::ActorGroup => Kind::Ref,
            Subject::CommentInternal => Kind::Bool,
            Subject::SlaTarget => Kind::Choice(SLA_TARGETS, false),
            Subject::BusinessHours => Kind::Bool,
            Subject::Tags => Kind::Tag,
            Subject::Ticket(field) => field.kind(),
            Subject::Field(_) => Kind::Custom,
        }
    }

    /// Whether `changed`, `changed_from` and `changed_to` apply: only to the ticket's fields, its own and
    /// custom ones.
    fn can_change(&self) -> bool {
        matches!(self, Subject::Ticket(_) | Subject::Field(_))
    }
}

const STATUSES: &[&str] = &[
    "new",
    "open",
    "in_progress",
    "on_hold",
    "blocked",
    "resolved",
    "closed",
];
const PRIORITIES: &[&str] = &["low", "medium", "high", "critical"];
const EVENTS: &[&str] = &[
    "created",
    "updated",
    "comment_added",
    "sla_at_risk",
    "sla_breached",
];
const CHANNELS: &[&str] = &["web", "rest", "graphql", "email", "rule", "system"];
const ROLES: &[&str] = &["requester", "agent", "admin", "system"];
const SLA_TARGETS: &[&str] = &["first_response", "resolution"];

/// The type of a subject's values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// Free text: compared without regard to case.
    Text,
    /// One of a closed set; ordered when the flag is set (priorities).
    Choice(&'static [&'static str], bool),
    /// An id, or null.
    Ref,
    /// A date, or null.
    Date,
    /// True or false.
    Bool,
    /// A tag name (normalised).
    Tag,
    /// A custom field's value: any JSON scalar when parsed, typed by the field's kind when the rule is saved.
    Custom,
}

/// How a condition compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    /// Equal to the value.
    Is,
    /// Not equal to the value.
    IsNot,
    /// Equal to one of the values.
    OneOf,
    /// Text containing the value, ignoring case.
    Contains,
    /// Text starting with the value, ignoring case.
    StartsWith,
    /// After the value (dates) or above it (priorities).
    GreaterThan,
    /// Before the value (dates) or below it (priorities).
    LessThan,
    /// The write changed the field.
    Changed,
    /// The write changed the field from the value.
    ChangedFrom,
    /// The write changed the field to the value.
    ChangedTo,
}

impl Operator {
    const ALL: [Operator; 10] = [
        Operator::Is,
        Operator::IsNot,
        Operator::OneOf,
        Operator::Contains,
        Operator::StartsWith,
        Operator::GreaterThan,
        Operator::LessThan,
        Operator::Changed,
        Operator::ChangedFrom,
        Operator::ChangedTo,
    ];

    /// The rules' spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Is => "is",
            Operator::IsNot => "is_not",
            Operator::OneOf => "one_of",
            Operator::Contains => "contains",
            Operator::StartsWith => "starts_with",
            Operator::GreaterThan => "greater_than",
            Operator::LessThan => "less_than",
            Operator::Changed => "changed",
            Operator::ChangedFrom => "changed_from",
            Operator::ChangedTo => "changed_to",
        }
    }

    fn applies_to(self, subject: &Subject) -> bool {
        let kind = subject.kind();
        if kind == Kind::Tag {
            return matches!(self, Operator::Contains | Operator::IsNot | Operator::OneOf);
        }
        if kind == Kind::Custom {
            // Which of these fits the field's kind is checked when the rule is saved.
            return true;
        }
        match self {
            Operator::Is | Operator::IsNot | Operator::OneOf => true,
            Operator::Contains | Operator::StartsWith => kind == Kind::Text,
            Operator::GreaterThan | Operator::LessThan => {
                matches!(kind, Kind::Date | Kind::Choice(_, true))
            }
            Operator::Changed | Operator::ChangedFrom | Operator::ChangedTo => subject.can_change(),
        }
    }
}

/// A value a condition compares with, or a field's value on a ticket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// No value: an unset field.
    Null,
    /// Text, or a choice's spelling.
    Text(String),
    /// An id.
    Id(i32),
    /// A date.
    Date(NaiveDate),
    /// True or false.
    Bool(bool),
    /// A custom field's value in its canonical JSON (a string, number or boolean), compared by the kind of
    /// the ticket's value (`automation::fields`).
    Field(Json),
}

impl Value {
    fn to_json(&self) -> Json {
        match self {
            Value::Field(j) => j.clone(),
            Value::Null => Json::Null,
            Value::Text(t) => json!(t),
            Value::Id(id) => json!(id),
            Value::Date(d) => json!(d.to_string()),
            Value::Bool(b) => json!(b),
        }
    }
}

/// What a condition is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// Nothing (`changed`).
    None,
    /// One value.
    One(Value),
    /// Several (`one_of`).
    Many(Vec<Value>),
}

/// One condition: `{"field": "ticket.title", "operator": "contains", "value": "vpn"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// What it asks about.
    pub subject: Subject,
    /// How it compares.
    pub operator: Operator,
    /// With what.
    pub operand: Operand,
}

/// `{"all": [...], "any": [...]}`: every condition of `all`, and one of `any` when it has any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    /// Conditions that must all hold.
    pub all: Vec<Condition>,
    /// Conditions of which one must hold, unless there are none.
    pub any: Vec<Condition>,
}

/// A due date an action sets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DueDate {
    /// None.
    Clear,
    /// This date.
    On(NaiveDate),
    /// This many days after the day of the change (UTC).
    InDays(i64),
}

/// A piece of a comment template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Text as written.
    Text(String),
    /// A placeholder, `{{ticket.number}}`.
    Placeholder(Placeholder),
}

/// What a template can name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placeholder {
    /// `{{ticket.number}}`: TKT-042.
    TicketNumber,
    /// `{{ticket.title}}`.
    TicketTitle,
    /// `{{ticket.status}}`.
    TicketStatus,
    /// `{{ticket.priority}}`.
    TicketPriority,
    /// `{{requester.full_name}}` (the username when no full name is set).
    RequesterName,
    /// `{{requester.username}}`.
    RequesterUsername,
    /// `{{assignee.full_name}}` (empty when nobody is assigned).
    AssigneeName,
    /// `{{rule.name}}`.
    RuleName,
}

impl Placeholder {
    const ALL: [Placeholder; 8] = [
        Placeholder::TicketNumber,
        Placeholder::TicketTitle,
        Placeholder::TicketStatus,
        Placeholder::TicketPriority,
        Placeholder::RequesterName,
        Placeholder::RequesterUsername,
        Placeholder::AssigneeName,
        Placeholder::RuleName,
    ];

    /// The spelling between the braces.
    pub fn as_str(self) -> &'static str {
        match self {
            Placeholder::TicketNumber => "ticket.number",
            Placeholder::TicketTitle => "ticket.title",
            Placeholder::TicketStatus => "ticket.status",
            Placeholder::TicketPriority => "ticket.priority",
            Placeholder::RequesterName => "requester.full_name",
            Placeholder::RequesterUsername => "requester.username",
            Placeholder::AssigneeName => "assignee.full_name",
            Placeholder::RuleName => "rule.name",
        }
    }
}

/// A comment template: text with placeholders, rendered as plain text (escaped, never markup or code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    /// The template as written.
    pub source: String,
    /// Its pieces.
    pub parts: Vec<Part>,
}

impl Template {
    /// Parse `source`, refusing a placeholder it does not know or an unclosed `{{` (named by `path`).
    pub fn parse(path: &str, source: &str) -> AppResult<Template> {
        let mut parts = Vec::new();
        let mut rest = source;
        while let Some(open) = rest.find("{{") {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_string()));
            }
            let after = &rest[open + 2..];
            let close = after
                .find("}}")
                .ok_or_else(|| AppError::field(path, "a \"{{\" is not closed by \"}}\""))?;
            let name = after[..close].trim();
            let placeholder = Placeholder::ALL
                .into_iter()
                .find(|p| p.as_str() == name)
                .ok_or_else(|| {
                    AppError::field(
                        path,
                        format!(
                            "unknown placeholder \"{{{{{name}}}}}\"; known: {}",
                            Placeholder::ALL.map(|p| p.as_str()).join(", ")
                        ),
                    )
                })?;
            parts.push(Part::Placeholder(placeholder));
            rest = &after[close + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Ok(Template {
            source: source.to_string(),
            parts,
        })
    }

    /// The text with each placeholder replaced by `value` of it: plain text, for the caller to escape.
    pub fn render(&self, value: impl Fn(Placeholder) -> String) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.clone(),
                Part::Placeholder(p) => value(*p),
            })
            .collect()
    }

    /// The placeholders it uses.
    pub fn placeholders(&self) -> impl Iterator<Item = Placeholder> + '_ {
        self.parts.iter().filter_map(|p| match p {
            Part::Placeholder(p) => Some(*p),
            Part::Text(_) => None,
        })
    }
}

/// How a rule picks an assignee among a group's members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// The member with the fewest open tickets assigned (ties: the lowest id).
    LeastLoaded,
    /// Each member in turn, by id.
    RoundRobin,
}

/// Who a rule's email goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotifyTarget {
    /// The ticket's requester.
    Requester,
    /// The ticket's assignee (nobody when unassigned).
    Assignee,
    /// The members of the ticket's assigned group.
    AssignedGroup,
    /// One account.
    User(i32),
    /// The members of one group.
    Group(i32),
    /// A chat destination, by id: the subject and text as a message in its channel.
    Chat(i32),
    /// A webhook endpoint, by id: a signed `rule.notice` delivery with the subject and text.
    Webhook(i32),
}

/// One thing a rule does to the ticket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `{"set": "status", "value": "open"}` (refused by the workflow, it is skipped).
    SetStatus(TicketStatus),
    /// `{"set": "priority", "value": "high"}`.
    SetPriority(Priority),
    /// `{"set": "assigned_to", "value": 7}` or null.
    SetAssignee(Option<i32>),
    /// `{"set": "assigned_group", "value": 3}` or null.
    SetGroup(Option<i32>),
    /// `{"set": "project", "value": 2}` or null.
    SetProject(Option<i32>),
    /// `{"set": "due_date", "value": "2026-12-24" | 3 | null}` (a number: days from the change).
    SetDueDate(DueDate),
    /// `{"comment": "Thanks, {{requester.full_name}}", "internal": false}`.
    Comment {
        /// The text.
        template: Template,
        /// An internal note rather than a public reply.
        internal: bool,
    },
    /// `{"assign": "least_loaded" | "round_robin", "group": 3}`: an active team member of the group (absent:
    /// the ticket's assigned group), or nothing when it has none.
    Assign {
        /// How.
        spread: Spread,
        /// Which group; `None`: the ticket's.
        group: Option<i32>,
    },
    /// `{"add_tags": ["vpn", "urgent"]}`: put tags on (names normalised; free tags off does not stop a rule).
    AddTags(Vec<String>),
    /// `{"remove_tags": ["waiting"]}`: take tags off.
    RemoveTags(Vec<String>),
    /// `{"set_field": "serial", "value": …}`: set a custom field's value (null clears it), typed by the
    /// field's kind when the rule is saved and checked again, as a person's value is, when it runs.
    SetField {
        /// The field's key.
        key: String,
        /// Its value, as canonical JSON.
        value: Json,
    },
    /// `{"notify": "assignee" | "requester" | "assigned_group" | {"user": 7} | {"group": 3} | {"chat": 2} |
    /// {"webhook": 4}, "subject": …, "body": …}`: an email (plain text, templates filled in) to the active people
    /// named who have an address, a message in a chat destination's channel, or a webhook delivery.
    Notify {
        /// Who.
        to: NotifyTarget,
        /// The subject line (the ticket's number and title follow it).
        subject: Template,
        /// The text.
        body: Template,
    },
}

fn field_error(path: &str, message: impl Into<String>) -> AppError {
    AppError::field(path, message.into())
}

fn object<'a>(path: &str, value: &'a Json) -> AppResult<&'a Map<String, Json>> {
    value
        .as_object()
        .ok_or_else(|| field_error(path, "must be an object"))
}

fn only_keys(path: &str, map: &Map<String, Json>, allowed: &[&str]) -> AppResult<()> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(field_error(
            &format!("{path}.{key}"),
            format!("unknown key; known: {}", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

fn text_value(path: &str, value: &Json) -> AppResult<String> {
    let text = value
        .as_str()
        .ok_or_else(|| field_error(path, "must be a string"))?;
    if text.chars().count() > MAX_TEXT {
        return Err(field_error(path, format!("at most {MAX_TEXT} characters")));
    }
    Ok(text.to_string())
}

fn id_or_null(path: &str, value: &Json) -> AppResult<Option<i32>> {
    if value.is_null() {
        return Ok(None);
    }
    value
        .as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .filter(|n| *n > 0)
        .map(Some)
        .ok_or_else(|| field_error(path, "must be a positive integer id or null"))
}

fn date_value(path: &str, value: &Json) -> AppResult<NaiveDate> {
    value
        .as_str()
        .and_then(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
        .ok_or_else(|| field_error(path, "must be a date, YYYY-MM-DD"))
}

/// One value of `kind` at `path`.
fn value_of(kind: Kind, path: &str, value: &Json) -> AppResult<Value> {
    match kind {
        Kind::Text => Ok(Value::Text(text_value(path, value)?)),
        Kind::Choice(choices, _) => {
            let text = value.as_str().map(|s| s.trim().to_ascii_lowercase());
            match text {
                Some(t) if choices.contains(&t.as_str()) => Ok(Value::Text(t)),
                _ => Err(field_error(
                    path,
                    format!("must be one of: {}", choices.join(", ")),
                )),
            }
        }
        Kind::Ref => Ok(id_or_null(path, value)?.map_or(Value::Null, Value::Id)),
        Kind::Date if value.is_null() => Ok(Value::Null),
        Kind::Date => Ok(Value::Date(date_value(path, value)?)),
        Kind::Bool => value
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| field_error(path, "must be true or false")),
        Kind::Tag => {
            let name = value
                .as_str()
                .ok_or_else(|| field_error(path, "must be a tag name"))?;
            Ok(Value::Text(tags::normalise(path, name)?))
        }
        Kind::Custom => match value {
            Json::Null => Ok(Value::Null),
            Json::String(s) if s.chars().count() > MAX_TEXT => {
                Err(field_error(path, format!("at most {MAX_TEXT} characters")))
            }
            Json::String(_) | Json::Number(_) | Json::Bool(_) => Ok(Value::Field(value.clone())),
            _ => Err(field_error(
                path,
                "must be a string, number, true, false or null",
            )),
        },
    }
}

impl Condition {
    fn parse(path: &str, raw: &Json) -> AppResult<Condition> {
        let map = object(path, raw)?;
        only_keys(path, map, &["field", "operator", "value"])?;
        let field_path = format!("{path}.field");
        let field = map
            .get("field")
            .and_then(Json::as_str)
            .ok_or_else(|| field_error(&field_path, "this field is required"))?;
        let subject =
            Subject::parse(field).ok_or_else(|| {
                field_error(
                    &field_path,
                    format!(
                    "unknown field \"{field}\"; known: event, channel, actor.role, actor.group, \
                     comment.internal, sla.target, time.business_hours, ticket.tags, \
                     ticket.fields.<key>, {}",
                    TicketField::ALL.map(|f| format!("ticket.{}", f.as_str())).join(", ")
                ),
                )
            })?;
        let operator_path = format!("{path}.operator");
        let name = map
            .get("operator")
            .and_then(Json::as_str)
            .ok_or_else(|| field_error(&operator_path, "this field is required"))?;
        let operator = Operator::ALL
            .into_iter()
            .find(|o| o.as_str() == name)
            .ok_or_else(|| {
                field_error(
                    &operator_path,
                    format!(
                        "unknown operator \"{name}\"; known: {}",
                        Operator::ALL.map(|o| o.as_str()).join(", ")
                    ),
                )
            })?;
        if !operator.applies_to(&subject) {
            return Err(field_error(
                &operator_path,
                format!("\"{name}\" does not apply to {field}"),
            ));
        }
        let value_path = format!("{path}.value");
        let raw_value = map.get("value");
        let kind = subject.kind();
        let operand = match (operator, raw_value) {
            (Operator::Changed, None) => Operand::None,
            (Operator::Changed, Some(_)) => {
                return Err(field_error(&value_path, "\"changed\" takes no value"))
            }
            (_, None) => return Err(field_error(&value_path, "this field is required")),
            (Operator::OneOf, Some(list)) => {
                let items = list
                    .as_array()
                    .filter(|l| !l.is_empty() && l.len() <= MAX_CHOICES)
                    .ok_or_else(|| {
                        field_error(
                            &value_path,
                            format!("must be a list of 1 to {MAX_CHOICES} values"),
                        )
                    })?;
                Operand::Many(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| value_of(kind, &format!("{value_path}[{i}]"), v))
                        .collect::<AppResult<_>>()?,
                )
            }
            (_, Some(v)) => {
                let value = value_of(kind, &value_path, v)?;
                let ordered = matches!(operator, Operator::GreaterThan | Operator::LessThan);
                if ordered && value == Value::Null {
                    return Err(field_error(&value_path, "must not be null"));
                }
                if subject == Subject::ActorGroup && value == Value::Null {
                    return Err(field_error(&value_path, "must be a group id"));
                }
                Operand::One(value)
            }
        };
        Ok(Condition {
            subject,
            operator,
            operand,
        })
    }

    fn to_json(&self) -> Json {
        let mut map = Map::new();
        map.insert("field".into(), json!(self.subject.name()));
        map.insert("operator".into(), json!(self.operator.as_str()));
        match &self.operand {
            Operand::None => {}
            Operand::One(v) => {
                map.insert("value".into(), v.to_json());
            }
            Operand::Many(vs) => {
                map.insert(
                    "value".into(),
                    Json::Array(vs.iter().map(Value::to_json).collect()),
                );
            }
        }
        Json::Object(map)
    }
}

fn condition_list(path: &str, raw: Option<&Json>) -> AppResult<Vec<Condition>> {
    let Some(raw) = raw.filter(|r| !r.is_null()) else {
        return Ok(Vec::new());
    };
    let list = raw
        .as_array()
        .ok_or_else(|| field_error(path, "must be a list"))?;
    if list.len() > MAX_CONDITIONS {
        return Err(field_error(
            path,
            format!("at most {MAX_CONDITIONS} conditions"),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, c)| Condition::parse(&format!("{path}[{i}]"), c))
        .collect()
}

impl Conditions {
    /// Parse `{"all": [...], "any": [...]}` (either list may be left out), named `conditions` in errors.
    pub fn parse(raw: &Json) -> AppResult<Conditions> {
        let map = object("conditions", raw)?;
        only_keys("conditions", map, &["all", "any"])?;
        Ok(Conditions {
            all: condition_list("conditions.all", map.get("all"))?,
            any: condition_list("conditions.any", map.get("any"))?,
        })
    }

    /// Refuse what only a write has (the event, channel, actor, comment, SLA event, `changed*`): a time rule
    /// looks at the ticket as it stands. The error names the condition's path.
    pub fn ticket_only(&self) -> AppResult<()> {
        for (list, name) in [(&self.all, "all"), (&self.any, "any")] {
            for (i, c) in list.iter().enumerate() {
                let path = format!("conditions.{name}[{i}]");
                if !matches!(
                    c.subject,
                    Subject::Ticket(_) | Subject::Tags | Subject::Field(_)
                ) {
                    return Err(field_error(
                        &format!("{path}.field"),
                        "a time rule looks only at the ticket's fields (ticket.*)",
                    ));
                }
                if matches!(
                    c.operator,
                    Operator::Changed | Operator::ChangedFrom | Operator::ChangedTo
                ) {
                    return Err(field_error(
                        &format!("{path}.operator"),
                        "a time rule sees no change: use is, is_not, one_of, ...",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether a condition asks about the ticket's tags (they are read only then).
    pub fn uses_tags(&self) -> bool {
        self.all
            .iter()
            .chain(&self.any)
            .any(|c| c.subject == Subject::Tags)
    }

    /// The keys of the custom fields the conditions ask about (their values are read only then).
    pub fn fields_named(&self) -> impl Iterator<Item = &str> + '_ {
        self.all
            .iter()
            .chain(&self.any)
            .filter_map(|c| match &c.subject {
                Subject::Field(key) => Some(key.as_str()),
                _ => None,
            })
    }

    /// Whether a condition asks whether the write came within business hours (the writes then work it out).
    pub fn uses_business_hours(&self) -> bool {
        self.all
            .iter()
            .chain(&self.any)
            .any(|c| c.subject == Subject::BusinessHours)
    }

    /// The statuses `all` allows, when it names them (`ticket.status` `is` or `one_of`); `None` when any
    /// status may do. Lets a scan read only the tickets that can match.
    pub fn statuses(&self) -> Option<Vec<String>> {
        let mut allowed: Option<Vec<String>> = None;
        for c in &self.all {
            if c.subject != Subject::Ticket(TicketField::Status) {
                continue;
            }
            let named: Vec<String> = match (&c.operator, &c.operand) {
                (Operator::Is, Operand::One(Value::Text(s))) => vec![s.clone()],
                (Operator::OneOf, Operand::Many(values)) => values
                    .iter()
                    .filter_map(|v| match v {
                        Value::Text(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => continue,
            };
            allowed = Some(match allowed {
                None => named,
                Some(before) => before.into_iter().filter(|s| named.contains(s)).collect(),
            });
        }
        allowed
    }

    /// The canonical JSON, as stored.
    pub fn to_json(&self) -> Json {
        json!({
            "all": self.all.iter().map(Condition::to_json).collect::<Vec<_>>(),
            "any": self.any.iter().map(Condition::to_json).collect::<Vec<_>>(),
        })
    }
}

impl Action {
    /// Whether it puts tags on or takes them off.
    pub fn is_tagging(&self) -> bool {
        matches!(self, Action::AddTags(_) | Action::RemoveTags(_))
    }

    /// Whether it sets a custom field.
    pub fn is_set_field(&self) -> bool {
        matches!(self, Action::SetField { .. })
    }

    /// Whether it puts tags on or takes them off (which reads the ticket's tags).
    pub fn edits_tags(&self) -> bool {
        matches!(self, Action::AddTags(_) | Action::RemoveTags(_))
    }

    /// Whether it may change the ticket's custom field values: sets one, or moves the ticket to a project
    /// whose fields differ.
    pub fn moves_fields(&self) -> bool {
        matches!(self, Action::SetField { .. } | Action::SetProject(_))
    }

    fn parse(path: &str, raw: &Json) -> AppResult<Action> {
        let map = object(path, raw)?;
        if let Some(how) = map.get("assign") {
            only_keys(path, map, &["assign", "group"])?;
            let spread = match how.as_str() {
                Some("least_loaded") => Spread::LeastLoaded,
                Some("round_robin") => Spread::RoundRobin,
                _ => {
                    return Err(field_error(
                        &format!("{path}.assign"),
                        "must be \"least_loaded\" or \"round_robin\"",
                    ))
                }
            };
            let group = match map.get("group") {
                None => None,
                Some(v) => id_or_null(&format!("{path}.group"), v)?,
            };
            return Ok(Action::Assign { spread, group });
        }
        if let Some(to) = map.get("notify") {
            only_keys(path, map, &["notify", "subject", "body"])?;
            let to_path = format!("{path}.notify");
            let id_of = |v: &Json| {
                v.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .filter(|n| *n > 0)
            };
            let to = match to {
                Json::String(s) if s == "requester" => NotifyTarget::Requester,
                Json::String(s) if s == "assignee" => NotifyTarget::Assignee,
                Json::String(s) if s == "assigned_group" => NotifyTarget::AssignedGroup,
                Json::Object(o) if o.len() == 1 && o.get("user").and_then(id_of).is_some() => {
                    NotifyTarget::User(o.get("user").and_then(id_of).unwrap_or_default())
                }
                Json::Object(o) if o.len() == 1 && o.get("group").and_then(id_of).is_some() => {
                    NotifyTarget::Group(o.get("group").and_then(id_of).unwrap_or_default())
                }
                Json::Object(o) if o.len() == 1 && o.get("chat").and_then(id_of).is_some() => {
                    NotifyTarget::Chat(o.get("chat").and_then(id_of).unwrap_or_default())
                }
                Json::Object(o) if o.len() == 1 && o.get("webhook").and_then(id_of).is_some() => {
                    NotifyTarget::Webhook(o.get("webhook").and_then(id_of).unwrap_or_default())
                }
                _ => {
                    return Err(field_error(
                        &to_path,
                        "must be \"requester\", \"assignee\", \"assigned_group\", {\"user\": id}, {\"group\": id}, {\"chat\": id} or {\"webhook\": id}",
                    ))
                }
            };
            let template = |key: &str, max: usize| -> AppResult<Template> {
                let key_path = format!("{path}.{key}");
                let source = map
                    .get(key)
                    .and_then(Json::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .ok_or_else(|| field_error(&key_path, "must be a non-empty string"))?;
                if source.chars().count() > max {
                    return Err(field_error(&key_path, format!("at most {max} characters")));
                }
                Template::parse(&key_path, source)
            };
            return Ok(Action::Notify {
                to,
                subject: template("subject", MAX_TEXT)?,
                body: template("body", MAX_TEMPLATE)?,
            });
        }
        if let Some(key) = map.get("set_field") {
            only_keys(path, map, &["set_field", "value"])?;
            let key_path = format!("{path}.set_field");
            let key = key
                .as_str()
                .filter(|k| {
                    !k.is_empty()
                        && k.chars().count() <= crate::service::custom_fields::MAX_KEY_CHARS
                })
                .ok_or_else(|| field_error(&key_path, "must be a custom field's key"))?;
            let value = map
                .get("value")
                .ok_or_else(|| field_error(&format!("{path}.value"), "this field is required"))?;
            return Ok(Action::SetField {
                key: key.to_string(),
                value: value.clone(),
            });
        }
        for key in ["add_tags", "remove_tags"] {
            let Some(names) = map.get(key) else {
                continue;
            };
            only_keys(path, map, &[key])?;
            let names_path = format!("{path}.{key}");
            let names: Vec<&str> = names
                .as_array()
                .filter(|names| !names.is_empty())
                .and_then(|names| names.iter().map(Json::as_str).collect())
                .ok_or_else(|| field_error(&names_path, "must be a non-empty list of tag names"))?;
            let names = tags::normalise_all(&names_path, &names)?;
            return Ok(if key == "add_tags" {
                Action::AddTags(names)
            } else {
                Action::RemoveTags(names)
            });
        }
        if let Some(template) = map.get("comment") {
            only_keys(path, map, &["comment", "internal"])?;
            let template_path = format!("{path}.comment");
            let source = template
                .as_str()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| field_error(&template_path, "must be a non-empty string"))?;
            if source.chars().count() > MAX_TEMPLATE {
                return Err(field_error(
                    &template_path,
                    format!("at most {MAX_TEMPLATE} characters"),
                ));
            }
            let internal = match map.get("internal") {
                None | Some(Json::Null) => false,
                Some(v) => v.as_bool().ok_or_else(|| {
                    field_error(&format!("{path}.internal"), "must be true or false")
                })?,
            };
            return Ok(Action::Comment {
                template: Template::parse(&template_path, source)?,
                internal,
            });
        }
        only_keys(path, map, &["set", "value"])?;
        let set_path = format!("{path}.set");
        let field = map.get("set").and_then(Json::as_str).ok_or_else(|| {
            field_error(
                path,
                "an action is {\"set\": <field>, \"value\": …} or {\"comment\": <template>}",
            )
        })?;
        let value_path = format!("{path}.value");
        let value = map
            .get("value")
            .ok_or_else(|| field_error(&value_path, "this field is required"))?;
        let text = || {
            value
                .as_str()
                .ok_or_else(|| field_error(&value_path, "must be a string"))
        };
        Ok(match field {
            "status" => Action::SetStatus(
                TicketStatus::parse(text()?).map_err(|e| field_error(&value_path, e.message))?,
            ),
            "priority" => Action::SetPriority(
                Priority::parse(text()?).map_err(|e| field_error(&value_path, e.message))?,
            ),
            "assigned_to" => Action::SetAssignee(id_or_null(&value_path, value)?),
            "assigned_group" => Action::SetGroup(id_or_null(&value_path, value)?),
            "project" => Action::SetProject(id_or_null(&value_path, value)?),
            "due_date" => Action::SetDueDate(match value {
                Json::Null => DueDate::Clear,
                Json::Number(n) => DueDate::InDays(
                    n.as_i64()
                        .filter(|d| (0..=MAX_DUE_DAYS).contains(d))
                        .ok_or_else(|| {
                            field_error(
                                &value_path,
                                format!("a number of days must be 0 to {MAX_DUE_DAYS}"),
                            )
                        })?,
                ),
                other => DueDate::On(date_value(&value_path, other)?),
            }),
            other => {
                return Err(field_error(
                    &set_path,
                    format!(
                        "cannot set \"{other}\"; settable: status, priority, assigned_to, \
                         assigned_group, project, due_date"
                    ),
                ))
            }
        })
    }

    fn to_json(&self) -> Json {
        let set = |field: &str, value: Json| json!({"set": field, "value": value});
        let id = |v: &Option<i32>| v.map_or(Json::Null, |id| json!(id));
        match self {
            Action::SetStatus(s) => set("status", json!(s.as_str())),
            Action::SetPriority(p) => set("priority", json!(p.as_str())),
            Action::SetAssignee(v) => set("assigned_to", id(v)),
            Action::SetGroup(v) => set("assigned_group", id(v)),
            Action::SetProject(v) => set("project", id(v)),
            Action::SetDueDate(DueDate::Clear) => set("due_date", Json::Null),
            Action::SetDueDate(DueDate::On(d)) => set("due_date", json!(d.to_string())),
            Action::SetDueDate(DueDate::InDays(n)) => set("due_date", json!(n)),
            Action::AddTags(names) => json!({ "add_tags": names }),
            Action::RemoveTags(names) => json!({ "remove_tags": names }),
            Action::SetField { key, value } => json!({"set_field": key, "value": value}),
            Action::Comment { template, internal } => {
                json!({"comment": template.source, "internal": internal})
            }
            Action::Assign { spread, group } => {
                let how = match spread {
                    Spread::LeastLoaded => "least_loaded",
                    Spread::RoundRobin => "round_robin",
                };
                json!({"assign": how, "group": group})
            }
            Action::Notify { to, subject, body } => {
                let to = match to {
                    NotifyTarget::Requester => json!("requester"),
                    NotifyTarget::Assignee => json!("assignee"),
                    NotifyTarget::AssignedGroup => json!("assigned_group"),
                    NotifyTarget::User(id) => json!({ "user": id }),
                    NotifyTarget::Group(id) => json!({ "group": id }),
                    NotifyTarget::Chat(id) => json!({ "chat": id }),
                    NotifyTarget::Webhook(id) => json!({ "webhook": id }),
                };
                json!({"notify": to, "subject": subject.source, "body": body.source})
            }
        }
    }
}

/// Parse a rule's action list (at least one), named `actions` in errors.
pub fn parse_actions(raw: &Json) -> AppResult<Vec<Action>> {
    let list = raw
        .as_array()
        .ok_or_else(|| field_error("actions", "must be a list"))?;
    if list.is_empty() || list.len() > MAX_ACTIONS {
        return Err(field_error(
            "actions",
            format!("must hold 1 to {MAX_ACTIONS} actions"),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, a)| Action::parse(&format!("actions[{i}]"), a))
        .collect()
}

/// The canonical JSON of `actions`, as stored.
pub fn actions_to_json(actions: &[Action]) -> Json {
    Json::Array(actions.iter().map(Action::to_json).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_reads_back_as_it_was_saved() {
        let raw = json!({
            "all": [
                {"field": "event", "operator": "is", "value": "created"},
                {"field": "ticket.title", "operator": "contains", "value": "VPN"},
                {"field": "ticket.priority", "operator": "one_of", "value": ["HIGH", "critical"]},
                {"field": "ticket.fields.serial", "operator": "starts_with", "value": "XK"},
                {"field": "ticket.fields.cost", "operator": "is", "value": null},
            ],
            "any": [{"field": "ticket.status", "operator": "changed"}]
        });
        let parsed = Conditions::parse(&raw).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            Conditions::parse(&parsed.to_json()).unwrap_or_else(|e| panic!("{e:?}")),
            parsed
        );
        assert_eq!(
            parsed.all[2].operand,
            Operand::Many(vec![
                Value::Text("high".into()),
                Value::Text("critical".into()),
            ])
        );
        let actions = parse_actions(&json!([
            {"set": "assigned_group", "value": 3},
            {"set": "due_date", "value": 2},
            {"comment": "Hello {{ requester.full_name }}, {{ticket.number}}", "internal": true},
            {"notify": {"group": 4}, "subject": "Breach on {{ticket.number}}", "body": "Look"},
            {"notify": "assignee", "subject": "Hi", "body": "{{rule.name}}"},
            {"assign": "round_robin", "group": 2},
            {"assign": "least_loaded", "group": null},
            {"set_field": "stage", "value": null},
            {"set_field": "extras", "value": ["Dock"]}
        ]))
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            parse_actions(&actions_to_json(&actions)).unwrap_or_else(|e| panic!("{e:?}")),
            actions
        );
    }

    #[test]
    fn a_mistake_is_named_by_its_path() {
        let cases = [
            (
                json!({"all": [{"field": "ticket.colour", "operator": "is", "value": 1}]}),
                "conditions.all[0].field",
            ),
            (
                json!({"all": [{"field": "ticket.title", "operator": "greater_than", "value": "a"}]}),
                "conditions.all[0].operator",
            ),
            (
                json!({"any": [{"field": "event", "operator": "changed"}]}),
                "conditions.any[0].operator",
            ),
            (
                json!({"all": [{"field": "ticket.status", "operator": "is", "value": "done"}]}),
                "conditions.all[0].value",
            ),
            (
                json!({"all": [{"field": "ticket.status", "operator": "one_of", "value": ["open", "x"]}]}),
                "conditions.all[0].value[1]",
            ),
            (json!({"none": []}), "conditions.none"),
            (
                json!({"all": [{"field": "ticket.fields.", "operator": "is", "value": 1}]}),
                "conditions.all[0].field",
            ),
            (
                json!({"all": [{"field": "ticket.fields.serial", "operator": "is", "value": [1]}]}),
                "conditions.all[0].value",
            ),
        ];
        for (raw, path) in cases {
            let err = Conditions::parse(&raw)
                .err()
                .unwrap_or_else(|| panic!("accepted"));
            assert!(format!("{err:?}").contains(path), "{raw}: {err:?}");
        }
        let err = parse_actions(&json!([{"comment": "Hi {{ticket.secret}}"}]))
            .err()
            .unwrap_or_else(|| panic!("accepted"));
        assert!(format!("{err:?}").contains("actions[0].comment"), "{err:?}");
        let err = parse_actions(&json!([{"set": "title", "value": "x"}]))
            .err()
            .unwrap_or_else(|| panic!("accepted"));
        assert!(format!("{err:?}").contains("actions[0].set"), "{err:?}");
        assert!(parse_actions(&json!([])).is_err());
    }
}
