//! Whether a rule's conditions hold for a write: a pure function of the write's facts, so it reads nothing
//! from the database and is tested by properties (`tests` below).
use super::language::{
    Condition, Conditions, Event, Operand, Operator, Role, Subject, TicketField, Value,
};
use crate::domain::Channel;
use crate::sanitize::html_to_text;
use entity::ticket;

/// What a rule can ask about one write.
#[derive(Clone, Copy, Debug)]
pub struct Facts<'a> {
    /// What happened.
    pub event: Event,
    /// Through which door.
    pub channel: Channel,
    /// The role of whoever made it.
    pub role: Role,
    /// The groups that person belongs to.
    pub groups: &'a [i32],
    /// On `comment_added`: whether the comment is internal.
    pub comment_internal: Option<bool>,
    /// On an SLA event: the target (`first_response` or `resolution`).
    pub sla_target: Option<&'static str>,
    /// Whether the write came within the business hours of the ticket's SLA policy (true without one, and
    /// when no rule asks: see [`super::within_business_hours`]).
    pub business_hours: bool,
    /// The tags the ticket carries (read only when a rule asks: empty otherwise).
    pub tags: &'a [String],
    /// The ticket's values of the custom fields the rules ask about, by key (read only when a rule asks; a
    /// field without a value is absent).
    pub fields: &'a super::fields::FieldValues,
    /// The same fields' values before the write (read with them; ignored when the ticket was just created).
    pub fields_before: &'a super::fields::FieldValues,
    /// The ticket before the write (`None` when it was just created).
    pub before: Option<&'a ticket::Model>,
    /// The ticket after the write and the rules before this one.
    pub after: &'a ticket::Model,
}

/// A field's value on `t`.
pub fn field_value(t: &ticket::Model, field: TicketField) -> Value {
    let id = |v: Option<i32>| v.map_or(Value::Null, Value::Id);
    match field {
        TicketField::Title => Value::Text(t.title.clone()),
        TicketField::Description => Value::Text(html_to_text(&t.description)),
        TicketField::Status => Value::Text(t.status.as_str().to_string()),
        TicketField::Priority => Value::Text(t.priority.as_str().to_string()),
        TicketField::Project => id(t.project_id),
        TicketField::AssignedTo => id(t.assignee_id),
        TicketField::AssignedGroup => id(t.assigned_group_id),
        TicketField::Requester => Value::Id(t.requester_id),
        TicketField::DueDate => t.due_date.map_or(Value::Null, Value::Date),
    }
}

/// Equal, ignoring case for text.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Text(x), Value::Text(y)) => x.to_lowercase() == y.to_lowercase(),
        _ => a == b,
    }
}

const PRIORITY_ORDER: [&str; 4] = ["low", "medium", "high", "critical"];

/// `a` compared with `b`, for the ordered kinds: dates, and priorities by rank.
fn order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Date(x), Value::Date(y)) => Some(x.cmp(y)),
        (Value::Text(x), Value::Text(y)) => {
            let rank = |t: &str| PRIORITY_ORDER.iter().position(|p| *p == t);
            Some(rank(x)?.cmp(&rank(y)?))
        }
        _ => None,
    }
}

fn compare(operator: Operator, actual: &Value, operand: &Operand) -> bool {
    match (operator, operand) {
        (Operator::Is, Operand::One(v)) => same(actual, v),
        (Operator::IsNot, Operand::One(v)) => !same(actual, v),
        (Operator::OneOf, Operand::Many(vs)) => vs.iter().any(|v| same(actual, v)),
        (Operator::Contains | Operator::StartsWith, Operand::One(Value::Text(v))) => {
            let Value::Text(text) = actual else {
                return false;
            };
            let (text, v) = (text.to_lowercase(), v.to_lowercase());
            if operator == Operator::Contains {
                text.contains(&v)
            } else {
                text.starts_with(&v)
            }
        }
        (Operator::GreaterThan, Operand::One(v)) => order(actual, v).is_some_and(|o| o.is_gt()),
        (Operator::LessThan, Operand::One(v)) => order(actual, v).is_some_and(|o| o.is_lt()),
        _ => false,
    }
}

impl Condition {
    /// Whether this condition holds for `facts`.
    pub fn holds(&self, facts: &Facts<'_>) -> bool {
        let text = |s: &str| Value::Text(s.to_string());
        let actual = match &self.subject {
            Subject::Event => text(facts.event.as_str()),
            Subject::Channel => text(facts.channel.as_str()),
            Subject::ActorRole => text(facts.role.as_str()),
            Subject::CommentInternal => facts.comment_internal.map_or(Value::Null, Value::Bool),
            Subject::SlaTarget => facts.sla_target.map_or(Value::Null, text),
            Subject::BusinessHours => Value::Bool(facts.business_hours),
            Subject::Tags => {
                let has = |v: &Value| matches!(v, Value::Text(t) if facts.tags.contains(t));
                return match (&self.operator, &self.operand) {
                    (Operator::Contains, Operand::One(v)) => has(v),
                    (Operator::IsNot, Operand::One(v)) => !has(v),
                    (Operator::OneOf, Operand::Many(vs)) => vs.iter().any(has),
                    _ => false,
                };
            }
            Subject::ActorGroup => {
                let member = |v: &Value| matches!(v, Value::Id(g) if facts.groups.contains(g));
                return match (&self.operator, &self.operand) {
                    (Operator::Is, Operand::One(v)) => member(v),
                    (Operator::IsNot, Operand::One(v)) => !member(v),
                    (Operator::OneOf, Operand::Many(vs)) => vs.iter().any(member),
                    _ => false,
                };
            }
            Subject::Field(key) => {
                let after = facts.fields.get(key);
                // A created ticket had no value before.
                let before = facts.before.and(facts.fields_before.get(key));
                let changed = before != after;
                let was = |v: Option<&_>, operand| super::fields::holds(Operator::Is, v, operand);
                return match self.operator {
                    Operator::Changed => changed,
                    Operator::ChangedFrom => changed && was(before, &self.operand),
                    Operator::ChangedTo => changed && was(after, &self.operand),
                    operator => super::fields::holds(operator, after, &self.operand),
                };
            }
            Subject::Ticket(field) => {
                let field = *field;
                let after = field_value(facts.after, field);
                // A created ticket changed every field it has a value in.
                let before = facts.before.map_or(Value::Null, |b| field_value(b, field));
                let changed = before != after;
                return match (self.operator, &self.operand) {
                    (Operator::Changed, _) => changed,
                    (Operator::ChangedFrom, Operand::One(v)) => changed && same(&before, v),
                    (Operator::ChangedTo, Operand::One(v)) => changed && same(&after, v),
                    (operator, operand) => compare(operator, &after, operand),
                };
            }
        };
        compare(self.operator, &actual, &self.operand)
    }
}

impl Conditions {
    /// Every condition of `all`, and one of `any` unless `any` is empty.
    pub fn hold(&self, facts: &Facts<'_>) -> bool {
        self.all.iter().all(|c| c.holds(facts))
            && (self.any.is_empty() || self.any.iter().any(|c| c.holds(facts)))
    }

    /// [`Conditions::hold`] judged before the ticket's tags and custom field values are read: the answer when
    /// the conditions on those cannot change it (a condition of `all` fails, or one of `any` holds and `all`
    /// asks about neither), `None` when they must be read. `facts`' tags and fields are not looked at.
    pub fn hold_unread(&self, facts: &Facts<'_>) -> Option<bool> {
        let judged = |c: &Condition| {
            (!matches!(c.subject, Subject::Tags | Subject::Field(_))).then(|| c.holds(facts))
        };
        let mut all_decided = true;
        for c in &self.all {
            match judged(c) {
                Some(false) => return Some(false),
                None => all_decided = false,
                Some(true) => {}
            }
        }
        let any = if self.any.is_empty() {
            Some(true)
        } else {
            let answers: Vec<Option<bool>> = self.any.iter().map(judged).collect();
            if answers.contains(&Some(true)) {
                Some(true)
            } else if answers.contains(&None) {
                None
            } else {
                Some(false)
            }
        };
        match any {
            Some(false) => Some(false),
            any if all_decided => any,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::language::Conditions;
    use super::*;
    use crate::domain::{Priority, TicketStatus};
    use chrono::{NaiveDate, Utc};
    use proptest::prelude::*;
    use serde_json::json;

    static NO_FIELDS: std::sync::LazyLock<super::super::fields::FieldValues> =
        std::sync::LazyLock::new(Default::default);

    fn ticket() -> ticket::Model {
        let now = Utc::now();
        ticket::Model {
            id: 1,
            number: 1,
            ticket_number: "TKT-001".into(),
            title: "VPN keeps dropping".into(),
            description: "<p>Since <b>Monday</b></p>".into(),
            status: TicketStatus::New,
            priority: Priority::High,
            requester_id: 5,
            assignee_id: None,
            assigned_group_id: Some(3),
            project_id: None,
            due_date: NaiveDate::from_ymd_opt(2026, 12, 24),
            created_at: now,
            updated_at: now,
            first_responded_at: None,
            resolved_at: None,
            closed_at: None,
            archived_at: None,
            archived_by_id: None,
            public_comment_count: 0,
            all_comment_count: 0,
            status_changed_at: None,
            merged_into_id: None,
        }
    }

    fn facts<'a>(before: Option<&'a ticket::Model>, after: &'a ticket::Model) -> Facts<'a> {
        Facts {
            event: if before.is_some() {
                Event::Updated
            } else {
                Event::Created
            },
            channel: Channel::Rest,
            role: Role::Requester,
            groups: &[4],
            comment_internal: None,
            sla_target: None,
            business_hours: true,
            tags: &[],
            fields: &NO_FIELDS,
            fields_before: &NO_FIELDS,
            before,
            after,
        }
    }

    fn holds(condition: serde_json::Value, f: &Facts<'_>) -> bool {
        Conditions::parse(&json!({ "all": [condition] }))
            .unwrap_or_else(|e| panic!("{e:?}"))
            .hold(f)
    }

    #[test]
    fn every_operator_on_every_kind() {
        let t = ticket();
        let f = facts(None, &t);
        let yes = [
            json!({"field": "event", "operator": "is", "value": "created"}),
            json!({"field": "channel", "operator": "one_of", "value": ["web", "rest"]}),
            json!({"field": "actor.role", "operator": "is_not", "value": "admin"}),
            json!({"field": "actor.group", "operator": "is", "value": 4}),
            json!({"field": "ticket.title", "operator": "contains", "value": "vpn"}),
            json!({"field": "ticket.title", "operator": "starts_with", "value": "VPN KEEPS"}),
            json!({"field": "ticket.title", "operator": "is", "value": "vpn keeps dropping"}),
            json!({"field": "ticket.description", "operator": "contains", "value": "since monday"}),
            json!({"field": "ticket.priority", "operator": "greater_than", "value": "medium"}),
            json!({"field": "ticket.priority", "operator": "less_than", "value": "critical"}),
            json!({"field": "ticket.due_date", "operator": "greater_than", "value": "2026-12-01"}),
            json!({"field": "ticket.due_date", "operator": "less_than", "value": "2027-01-01"}),
            json!({"field": "ticket.assigned_group", "operator": "is", "value": 3}),
            json!({"field": "ticket.assigned_to", "operator": "is", "value": null}),
            json!({"field": "ticket.requester", "operator": "one_of", "value": [1, 5]}),
            json!({"field": "ticket.assigned_group", "operator": "changed_to", "value": 3}),
            json!({"field": "ticket.status", "operator": "changed"}),
        ];
        for c in yes {
            assert!(holds(c.clone(), &f), "{c} should hold");
        }
        let no = [
            json!({"field": "event", "operator": "is", "value": "updated"}),
            json!({"field": "actor.group", "operator": "is", "value": 3}),
            json!({"field": "ticket.title", "operator": "contains", "value": "printer"}),
            json!({"field": "ticket.priority", "operator": "greater_than", "value": "high"}),
            json!({"field": "ticket.project", "operator": "is", "value": 1}),
            json!({"field": "ticket.project", "operator": "changed"}),
            json!({"field": "comment.internal", "operator": "is", "value": true}),
            json!({"field": "comment.internal", "operator": "is", "value": false}),
        ];
        for c in no {
            assert!(!holds(c.clone(), &f), "{c} should not hold");
        }
    }

    #[test]
    fn business_hours_follow_the_facts() {
        let t = ticket();
        let inside = facts(None, &t);
        let outside = Facts {
            business_hours: false,
            tags: &[],
            ..facts(None, &t)
        };
        let open = json!({"field": "time.business_hours", "operator": "is", "value": true});
        let closed = json!({"field": "time.business_hours", "operator": "is_not", "value": true});
        assert!(holds(open.clone(), &inside) && !holds(open, &outside));
        assert!(holds(closed.clone(), &outside) && !holds(closed, &inside));
        let parsed = Conditions::parse(&json!({"any": [
            {"field": "time.business_hours", "operator": "is", "value": false}
        ]}));
        assert!(parsed.is_ok_and(|c| c.uses_business_hours()));
    }

    #[test]
    fn changed_to_on_a_field_that_did_not_change_does_not_hold() {
        let before = ticket();
        let mut after = ticket();
        after.priority = Priority::Critical;
        let f = facts(Some(&before), &after);
        assert!(holds(
            json!({"field": "ticket.priority", "operator": "changed_to", "value": "critical"}),
            &f
        ));
        assert!(holds(
            json!({"field": "ticket.priority", "operator": "changed_from", "value": "high"}),
            &f
        ));
        // The group is 3 before and after: it is 3, but it did not change to 3.
        assert!(holds(
            json!({"field": "ticket.assigned_group", "operator": "is", "value": 3}),
            &f
        ));
        assert!(!holds(
            json!({"field": "ticket.assigned_group", "operator": "changed_to", "value": 3}),
            &f
        ));
        assert!(!holds(
            json!({"field": "ticket.assigned_group", "operator": "changed"}),
            &f
        ));
        assert!(!holds(
            json!({"field": "ticket.priority", "operator": "changed_from", "value": "low"}),
            &f
        ));
    }

    #[test]
    fn the_spellings_are_the_stored_ones() {
        assert_eq!(
            PRIORITY_ORDER.to_vec(),
            Priority::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>()
        );
    }

    fn a_condition() -> impl Strategy<Value = serde_json::Value> {
        prop_oneof![
            Just(json!({"field": "ticket.title", "operator": "contains", "value": "vpn"})),
            Just(json!({"field": "ticket.priority", "operator": "is", "value": "high"})),
            Just(json!({"field": "ticket.status", "operator": "is", "value": "closed"})),
            Just(json!({"field": "event", "operator": "is", "value": "updated"})),
            Just(json!({"field": "actor.group", "operator": "one_of", "value": [4, 9]})),
            Just(
                json!({"field": "ticket.due_date", "operator": "less_than", "value": "2026-01-01"})
            ),
        ]
    }

    fn a_condition_or_read() -> impl Strategy<Value = serde_json::Value> {
        prop_oneof![
            a_condition(),
            Just(json!({"field": "ticket.tags", "operator": "contains", "value": "vpn"})),
            Just(json!({"field": "ticket.tags", "operator": "is_not", "value": "vpn"})),
            Just(json!({"field": "ticket.fields.site", "operator": "is", "value": "Oslo"})),
            Just(json!({"field": "ticket.fields.site", "operator": "is_not", "value": "Oslo"})),
        ]
    }

    proptest! {
        /// `all` holds exactly when each of its conditions holds alone; `any` when one of them does or
        /// when it is empty; together, when both do.
        #[test]
        fn all_and_any_combine_their_conditions(
            all in proptest::collection::vec(a_condition(), 0..5),
            any in proptest::collection::vec(a_condition(), 0..5),
        ) {
            let t = ticket();
            let f = facts(None, &t);
            let each = |c: &serde_json::Value| holds(c.clone(), &f);
            let want_all = all.iter().all(each);
            let want_any = any.is_empty() || any.iter().any(each);
            let rule = Conditions::parse(&json!({"all": all, "any": any})).unwrap_or_else(|e| panic!("{e:?}"));
            prop_assert_eq!(rule.hold(&f), want_all && want_any);
        }

        /// Judged before tags and custom fields are read, the answer is either left open or the one they give,
        /// whatever they are.
        #[test]
        fn judged_unread_is_the_answer_or_open(
            all in proptest::collection::vec(a_condition_or_read(), 0..5),
            any in proptest::collection::vec(a_condition_or_read(), 0..5),
            tagged in any::<bool>(),
            site in proptest::option::of(prop_oneof![Just("Oslo"), Just("Bergen")]),
        ) {
            let t = ticket();
            let rule = Conditions::parse(&json!({"all": all, "any": any})).unwrap_or_else(|e| panic!("{e:?}"));
            let tags = if tagged { vec!["vpn".to_string()] } else { Vec::new() };
            let mut fields = super::super::fields::FieldValues::default();
            if let Some(site) = site {
                fields.insert("site".into(), crate::service::custom_fields::FieldValue::Text(site.into()));
            }
            let mut f = facts(None, &t);
            f.tags = &tags;
            f.fields = &fields;
            if let Some(answer) = rule.hold_unread(&facts(None, &t)) {
                prop_assert_eq!(rule.hold(&f), answer);
            }
        }

        /// `is_not` is never true together with `is`, for any title.
        #[test]
        fn is_not_is_the_opposite_of_is(title in "[a-zA-Z ]{0,12}", value in "[a-zA-Z ]{0,12}") {
            let mut t = ticket();
            t.title = title;
            let f = facts(None, &t);
            let is = holds(json!({"field": "ticket.title", "operator": "is", "value": value}), &f);
            let is_not = holds(json!({"field": "ticket.title", "operator": "is_not", "value": value}), &f);
            prop_assert_ne!(is, is_not);
        }

        /// A date is greater than, less than, or (as `is`) equal to another: exactly one.
        #[test]
        fn dates_order_one_way(days_a in 0i64..800, days_b in 0i64..800) {
            let base = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap_or_default();
            let mut t = ticket();
            t.due_date = Some(base + chrono::Duration::days(days_a));
            let other = (base + chrono::Duration::days(days_b)).to_string();
            let f = facts(None, &t);
            let answers = ["greater_than", "less_than", "is"]
                .map(|op| holds(json!({"field": "ticket.due_date", "operator": op, "value": other}), &f));
            prop_assert_eq!(answers.iter().filter(|a| **a).count(), 1);
        }
    }
}
