//! Custom fields in rules: a condition on `ticket.fields.<key>` and the `set_field` action.
//!
//! The rule language parses them without the definitions, so that a stored rule always reads back; when a
//! rule is saved, [`type_conditions`] and [`type_actions`] hold them to the active definitions (the key is
//! known, the operator fits the field's kind, the value is of that kind) and store the canonical value. A
//! condition compares the ticket's value by its kind ([`holds`]); the values are read only for the fields
//! some rule names ([`asked`]).
use super::language::{Action, Condition, Conditions, Operand, Operator, Subject, Value};
use crate::error::{AppError, AppResult};
use crate::service::custom_fields::{self, Defined, FieldValue, KnownFields, TicketScope};
use chrono::{DateTime, NaiveDate, Utc};
use entity::ticket;
use entity::values::FieldKind;
use sea_orm::{ConnectionTrait, EntityTrait};
use serde_json::Value as Json;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

/// A ticket's values of the custom fields rules ask about, by key.
pub type FieldValues = HashMap<String, FieldValue>;

/// The operators that apply to a field of `kind`, as to the built-in fields of its type.
fn fits(kind: FieldKind, operator: Operator) -> bool {
    use Operator::*;
    let by_kind: &[Operator] = match kind {
        FieldKind::Text | FieldKind::LongText => &[Is, IsNot, OneOf, Contains, StartsWith],
        FieldKind::Number | FieldKind::Date | FieldKind::Datetime => {
            &[Is, IsNot, OneOf, GreaterThan, LessThan]
        }
        FieldKind::Boolean => &[Is, IsNot],
        FieldKind::Choice | FieldKind::User | FieldKind::Asset => &[Is, IsNot, OneOf],
        // A multiple choice "is", "contains" or is "one of" the choices it carries.
        FieldKind::MultiChoice => &[Is, IsNot, OneOf, Contains],
    };
    // Every kind can change.
    by_kind.contains(&operator) || matches!(operator, Changed | ChangedFrom | ChangedTo)
}

/// The kind a condition's value on a field of `kind` has: one choice of a multiple choice field.
fn operand_kind(kind: FieldKind, operator: Operator) -> FieldKind {
    match (kind, operator) {
        (FieldKind::MultiChoice, _) => FieldKind::Choice,
        // Part of a long text is a line of text.
        (FieldKind::LongText, Operator::Contains | Operator::StartsWith) => FieldKind::Text,
        _ => kind,
    }
}

/// One value of a condition on `field`, typed: its canonical JSON, or null (taken by `is`, `is_not`,
/// `changed_from` and `changed_to`).
fn typed_value(
    field: &custom_fields::Field,
    operator: Operator,
    path: &str,
    value: &Value,
) -> AppResult<Value> {
    let raw = match value {
        Value::Null => Json::Null,
        Value::Field(j) => j.clone(),
        // The parse gives custom fields nothing else.
        _ => return Err(AppError::field(path, "must be a value of the field")),
    };
    let parsed = custom_fields::parse(operand_kind(field.kind, operator), &field.choices, &raw)
        .map_err(|why| AppError::field(path, why))?;
    match parsed {
        Some(v) => Ok(Value::Field(v.to_json())),
        None if matches!(
            operator,
            Operator::Is | Operator::IsNot | Operator::ChangedFrom | Operator::ChangedTo
        ) =>
        {
            Ok(Value::Null)
        }
        None => Err(AppError::field(path, "must not be empty")),
    }
}

/// The active field named `key`, or a 400 at `path`.
fn field<'a>(defined: &'a Defined, path: &str, key: &str) -> AppResult<&'a custom_fields::Field> {
    defined
        .iter()
        .find(|f| f.key == key)
        .map(|f| f.as_ref())
        .ok_or_else(|| AppError::field(path, format!("there is no custom field \"{key}\"")))
}

fn type_condition(defined: &Defined, path: &str, c: &mut Condition) -> AppResult<()> {
    let Subject::Field(key) = &c.subject else {
        return Ok(());
    };
    let f = field(defined, &format!("{path}.field"), key)?;
    if !fits(f.kind, c.operator) {
        return Err(AppError::field(
            &format!("{path}.operator"),
            format!(
                "\"{}\" does not apply to {} (a {} field)",
                c.operator.as_str(),
                c.subject.name(),
                f.kind.as_str()
            ),
        ));
    }
    let value_path = format!("{path}.value");
    c.operand = match &c.operand {
        Operand::One(v) => Operand::One(typed_value(f, c.operator, &value_path, v)?),
        Operand::Many(vs) => Operand::Many(
            vs.iter()
                .enumerate()
                .map(|(i, v)| typed_value(f, c.operator, &format!("{value_path}[{i}]"), v))
                .collect::<AppResult<_>>()?,
        ),
        Operand::None => Operand::None,
    };
    Ok(())
}

/// Hold the conditions on custom fields to the active definitions `defined`: a 400 naming the path of an
/// unknown key, an operator that does not fit the field's kind, or a value that is not of it; the values
/// made canonical (a choice as the field spells it, a moment in UTC).
pub fn type_conditions(conditions: &mut Conditions, defined: &Defined) -> AppResult<()> {
    for (list, name) in [(&mut conditions.all, "all"), (&mut conditions.any, "any")] {
        for (i, c) in list.iter_mut().enumerate() {
            type_condition(defined, &format!("conditions.{name}[{i}]"), c)?;
        }
    }
    Ok(())
}

/// Hold the `set_field` actions to the active definitions, as [`type_conditions`] does: the key is known
/// and the value fits the field (null clears it), stored canonical.
pub fn type_actions(actions: &mut [Action], defined: &Defined) -> AppResult<()> {
    for (i, action) in actions.iter_mut().enumerate() {
        let Action::SetField { key, value } = action else {
            continue;
        };
        let f = field(defined, &format!("actions[{i}].set_field"), key)?;
        let parsed = custom_fields::parse(f.kind, &f.choices, value)
            .map_err(|why| AppError::field(&format!("actions[{i}].value"), why))?;
        *value = parsed.map_or(Json::Null, |v| v.to_json());
    }
    Ok(())
}

/// What the `set_field` actions name exists when the rule is saved: the user of a user field is active, the
/// asset of an asset field is not archived (a 400 at `actions[i].value`), as for `{"set": "assigned_to"}`.
pub async fn check_named(
    db: &impl ConnectionTrait,
    actions: &[Action],
    defined: &Defined,
) -> AppResult<()> {
    for (i, action) in actions.iter().enumerate() {
        let Action::SetField { key, value } = action else {
            continue;
        };
        let kind = defined.iter().find(|f| &f.key == key).map(|f| f.kind);
        let Some(id) = value.as_i64().and_then(|n| i32::try_from(n).ok()) else {
            continue;
        };
        let missing = match kind {
            Some(FieldKind::User) => !crate::service::users::active_user_exists(db, id).await?,
            Some(FieldKind::Asset) => entity::asset::Entity::find_by_id(id)
                .one(db)
                .await?
                .is_none_or(|a| a.archived_at.is_some()),
            _ => false,
        };
        if missing {
            let what = if kind == Some(FieldKind::User) {
                "user"
            } else {
                "asset"
            };
            return Err(AppError::field(
                &format!("actions[{i}].value"),
                format!("{what} {id} does not exist"),
            ));
        }
    }
    Ok(())
}

/// Whether `actual` (none: the ticket has no value) is `expected`, a canonical value of its field.
fn same(actual: &FieldValue, expected: &Json) -> bool {
    let text = |s: &str| {
        expected
            .as_str()
            .is_some_and(|e| e.to_lowercase() == s.to_lowercase())
    };
    match actual {
        FieldValue::Text(s) | FieldValue::LongText(s) | FieldValue::Choice(s) => text(s),
        FieldValue::MultiChoice(picked) => picked.iter().any(|s| text(s)),
        FieldValue::Number(n) => expected.as_f64() == Some(*n),
        FieldValue::Boolean(b) => expected.as_bool() == Some(*b),
        FieldValue::User(id) | FieldValue::Asset(id) => expected.as_i64() == Some(i64::from(*id)),
        FieldValue::Date(_) | FieldValue::Datetime(_) => {
            order(actual, expected) == Some(Ordering::Equal)
        }
    }
}

/// `actual` compared with `expected`, for the ordered kinds: numbers, dates and moments.
fn order(actual: &FieldValue, expected: &Json) -> Option<Ordering> {
    match actual {
        FieldValue::Number(n) => n.partial_cmp(&expected.as_f64()?),
        FieldValue::Date(d) => {
            let e = NaiveDate::parse_from_str(expected.as_str()?, "%Y-%m-%d").ok()?;
            Some(d.cmp(&e))
        }
        FieldValue::Datetime(t) => {
            let e = DateTime::parse_from_rfc3339(expected.as_str()?).ok()?;
            Some(t.cmp(&e.with_timezone(&Utc)))
        }
        _ => None,
    }
}

/// Whether a condition `operator` `operand` holds for a field whose value on the ticket is `actual`. A
/// ticket without a value is `null`: `is null` holds, `is_not <value>` holds, nothing else does.
pub fn holds(operator: Operator, actual: Option<&FieldValue>, operand: &Operand) -> bool {
    let is = |v: &Value| match (v, actual) {
        (Value::Null, a) => a.is_none(),
        (Value::Field(e), Some(a)) => same(a, e),
        _ => false,
    };
    match (operator, operand) {
        (Operator::Is, Operand::One(v)) => is(v),
        (Operator::IsNot, Operand::One(v)) => !is(v),
        (Operator::OneOf, Operand::Many(vs)) => vs.iter().any(is),
        (Operator::Contains, Operand::One(Value::Field(e))) => match actual {
            Some(FieldValue::MultiChoice(_)) => actual.is_some_and(|a| same(a, e)),
            Some(FieldValue::Text(s) | FieldValue::LongText(s)) => e
                .as_str()
                .is_some_and(|e| s.to_lowercase().contains(&e.to_lowercase())),
            _ => false,
        },
        (Operator::StartsWith, Operand::One(Value::Field(e))) => match actual {
            Some(FieldValue::Text(s) | FieldValue::LongText(s)) => e
                .as_str()
                .is_some_and(|e| s.to_lowercase().starts_with(&e.to_lowercase())),
            _ => false,
        },
        (Operator::GreaterThan, Operand::One(Value::Field(e))) => {
            actual.and_then(|a| order(a, e)) == Some(Ordering::Greater)
        }
        (Operator::LessThan, Operand::One(Value::Field(e))) => {
            actual.and_then(|a| order(a, e)) == Some(Ordering::Less)
        }
        _ => false,
    }
}

/// The keys of the custom fields any of `rules` asks about.
pub fn named<'a>(rules: impl IntoIterator<Item = &'a Conditions>) -> BTreeSet<String> {
    rules
        .into_iter()
        .flat_map(|c| c.fields_named().map(str::to_string))
        .collect()
}

/// `t`'s values of the fields named `keys` (those it carries: every ticket's, or its project's), in one read
/// (two with a multiple choice field); nothing is read when `keys` is empty, or when `t` is not written yet
/// and `new` holds the values it is being made with. Rules act as the service, so team-only fields are read
/// too.
pub async fn asked(
    db: &impl ConnectionTrait,
    known: &KnownFields,
    keys: &BTreeSet<String>,
    t: &ticket::Model,
    new: Option<&[custom_fields::FieldEdit]>,
) -> AppResult<FieldValues> {
    if keys.is_empty() {
        return Ok(FieldValues::new());
    }
    let defined = known.active(db).await?.only(keys);
    if defined.is_empty() {
        return Ok(FieldValues::new());
    }
    let scope = TicketScope {
        id: t.id,
        project_id: t.project_id,
        internal: true,
    };
    let shown = match new {
        Some(edits) => custom_fields::of_new(&defined, &scope, edits),
        None => custom_fields::of_scopes(db, &defined, &[scope])
            .await?
            .remove(&t.id)
            .unwrap_or_default(),
    };
    Ok(shown
        .into_iter()
        .filter_map(|(f, v)| Some((f.key.clone(), v?)))
        .collect())
}

/// The kinds of rule that can name a custom field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// A trigger (event rule).
    Trigger,
    /// A time rule.
    TimeRule,
    /// A shared macro.
    Macro,
}

impl RuleKind {
    /// How messages and clients spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Trigger => "trigger",
            RuleKind::TimeRule => "time_rule",
            RuleKind::Macro => "macro",
        }
    }
}

/// A rule that names a custom field, as an administrator finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    /// What kind of rule it is.
    pub kind: RuleKind,
    /// The rule's id.
    pub id: i32,
    /// Its name.
    pub name: String,
}

/// The keys a rule's `conditions` ask about and its `actions` set.
fn keys_of(conditions: Option<&Conditions>, actions: &[Action]) -> BTreeSet<String> {
    let asked = conditions.into_iter().flat_map(Conditions::fields_named);
    let set = actions.iter().filter_map(|a| match a {
        Action::SetField { key, .. } => Some(key.as_str()),
        _ => None,
    });
    asked.chain(set).map(str::to_string).collect()
}

/// For each custom field's key, the rules that ask about it or set it (administrators only): triggers and
/// time rules, active or not, and the shared macros — not an agent's personal ones, which are theirs. Three
/// reads, each bounded by its kind's maximum; a stored rule that no longer parses names nothing. The
/// administrator sees it before archiving a field, which such rules then read as unset and skip.
pub async fn rules_naming(
    db: &impl ConnectionTrait,
    actor: &crate::auth::Actor,
) -> AppResult<std::collections::BTreeMap<String, Vec<Naming>>> {
    use sea_orm::{ColumnTrait, QueryFilter, QueryOrder, QuerySelect};
    if !actor.is_admin() {
        return Err(AppError::forbidden("only administrators manage rules"));
    }
    let mut by_key: std::collections::BTreeMap<String, Vec<Naming>> = Default::default();
    let mut name = |keys: BTreeSet<String>, kind, id, name: &str| {
        for key in keys {
            by_key.entry(key).or_default().push(Naming {
                kind,
                id,
                name: name.to_string(),
            });
        }
    };
    for t in entity::trigger::Entity::find()
        .order_by_asc(entity::trigger::Column::Position)
        .order_by_asc(entity::trigger::Column::Id)
        .limit(super::triggers::MAX_TRIGGERS)
        .all(db)
        .await?
    {
        if let Ok(rule) = super::Trigger::from_row(&t) {
            let keys = keys_of(Some(&rule.conditions), &rule.actions);
            name(keys, RuleKind::Trigger, t.id, &t.name);
        }
    }
    for r in entity::time_rule::Entity::find()
        .order_by_asc(entity::time_rule::Column::Name)
        .limit(super::time_rules::MAX_TIME_RULES)
        .all(db)
        .await?
    {
        if let Ok(rule) = super::time_rules::TimeRule::from_row(&r) {
            let keys = keys_of(Some(&rule.rule.conditions), &rule.rule.actions);
            name(keys, RuleKind::TimeRule, r.id, &r.name);
        }
    }
    for m in entity::ticket_macro::Entity::find()
        .filter(entity::ticket_macro::Column::OwnerId.is_null())
        .order_by_asc(entity::ticket_macro::Column::Name)
        .limit(super::macros::MAX_VISIBLE)
        .all(db)
        .await?
    {
        if let Ok(actions) = super::language::parse_actions(&m.actions) {
            name(keys_of(None, &actions), RuleKind::Macro, m.id, &m.name);
        }
    }
    Ok(by_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(v: Json) -> Operand {
        Operand::One(Value::Field(v))
    }

    #[test]
    fn each_kind_compares_as_its_values_do() {
        let serial = FieldValue::Text("XK-100".into());
        assert!(holds(
            Operator::StartsWith,
            Some(&serial),
            &one(json!("xk"))
        ));
        assert!(!holds(Operator::StartsWith, None, &one(json!("xk"))));
        let n = FieldValue::Number(12.5);
        assert!(holds(Operator::GreaterThan, Some(&n), &one(json!(10))));
        assert!(!holds(Operator::LessThan, Some(&n), &one(json!(10))));
        let when = custom_fields::parse(FieldKind::Datetime, &[], &json!("2026-01-01T10:00:00Z"))
            .ok()
            .flatten();
        assert!(holds(
            Operator::LessThan,
            when.as_ref(),
            &one(json!("2026-01-01T11:00:00.000000Z"))
        ));
        let picked = FieldValue::MultiChoice(vec!["Dock".into(), "Mouse".into()]);
        assert!(holds(
            Operator::Contains,
            Some(&picked),
            &one(json!("mouse"))
        ));
        assert!(!holds(Operator::IsNot, Some(&picked), &one(json!("Dock"))));
        // No value: `is null` holds, `is_not` a value holds, nothing else does.
        assert!(holds(Operator::Is, None, &Operand::One(Value::Null)));
        assert!(!holds(Operator::IsNot, None, &Operand::One(Value::Null)));
        assert!(holds(Operator::IsNot, None, &one(json!("x"))));
        assert!(!holds(
            Operator::OneOf,
            None,
            &Operand::Many(vec![Value::Field(json!("x"))])
        ));
        assert!(!holds(Operator::GreaterThan, None, &one(json!(1))));
    }
}
