//! A custom field's value, typed by the field's kind, and the one parse every door's input goes through.
use chrono::{DateTime, NaiveDate, SecondsFormat, Timelike, Utc};
use entity::values::FieldKind;
use serde_json::{json, Value};
use std::hash::{Hash, Hasher};

/// Longest text value, in characters (a one-line value, like a title).
pub const MAX_TEXT_CHARS: usize = 200;
/// Longest long-text value, in characters.
pub const MAX_LONG_TEXT_CHARS: usize = 10_000;

/// One field's value on one ticket.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Text, one line.
    Text(String),
    /// Long text, lines kept.
    LongText(String),
    /// A finite number.
    Number(f64),
    /// A date.
    Date(NaiveDate),
    /// A moment in UTC.
    Datetime(DateTime<Utc>),
    /// Yes or no.
    Boolean(bool),
    /// One of the choices.
    Choice(String),
    /// Some of the choices, in the field's order.
    MultiChoice(Vec<String>),
    /// A user id.
    User(i32),
    /// An asset id.
    Asset(i32),
}

// Numbers are finite (the parse refuses the others), so equality on the bits is equality on the number.
impl Eq for FieldValue {}

impl Hash for FieldValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            FieldValue::Text(s) | FieldValue::LongText(s) | FieldValue::Choice(s) => s.hash(state),
            FieldValue::Number(n) => n.to_bits().hash(state),
            FieldValue::Date(d) => d.hash(state),
            FieldValue::Datetime(t) => t.hash(state),
            FieldValue::Boolean(b) => b.hash(state),
            FieldValue::MultiChoice(v) => v.hash(state),
            FieldValue::User(id) | FieldValue::Asset(id) => id.hash(state),
        }
    }
}

impl FieldValue {
    /// The value as JSON, as REST shows and takes it: text as a string, numbers as numbers, dates as
    /// `YYYY-MM-DD`, moments as ISO 8601 UTC, choices as strings (a list for multiple), users and assets as
    /// ids.
    pub fn to_json(&self) -> Value {
        match self {
            FieldValue::Text(s) | FieldValue::LongText(s) | FieldValue::Choice(s) => json!(s),
            FieldValue::Number(n) => json!(n),
            FieldValue::Date(d) => json!(d.format("%Y-%m-%d").to_string()),
            FieldValue::Datetime(t) => json!(t.to_rfc3339_opts(SecondsFormat::Micros, true)),
            FieldValue::Boolean(b) => json!(b),
            FieldValue::MultiChoice(v) => json!(v),
            FieldValue::User(id) | FieldValue::Asset(id) => json!(id),
        }
    }

    /// The value as one line of text, for history and emails.
    pub fn display(&self) -> String {
        match self {
            FieldValue::MultiChoice(v) => v.join(", "),
            FieldValue::Boolean(true) => "yes".into(),
            FieldValue::Boolean(false) => "no".into(),
            FieldValue::Text(s) | FieldValue::LongText(s) | FieldValue::Choice(s) => s.clone(),
            other => match other.to_json() {
                Value::String(s) => s,
                v => v.to_string(),
            },
        }
    }
}

/// Parse `raw` as a value of a field of `kind` with `choices`: `Ok(None)` clears the field (JSON null, an
/// empty string or an empty list), `Err` says what is wrong in words (the caller names the key).
pub fn parse(
    kind: FieldKind,
    choices: &[String],
    raw: &Value,
) -> Result<Option<FieldValue>, String> {
    if raw.is_null() {
        return Ok(None);
    }
    let text = |what: &str| raw.as_str().ok_or_else(|| format!("must be {what}"));
    let value = match kind {
        FieldKind::Text => {
            let s = text("a string")?.trim();
            if s.chars().any(char::is_control) {
                return Err("control characters are not allowed".into());
            }
            if s.chars().count() > MAX_TEXT_CHARS {
                return Err(format!("at most {MAX_TEXT_CHARS} characters"));
            }
            (!s.is_empty()).then(|| FieldValue::Text(s.to_string()))
        }
        FieldKind::LongText => {
            let s = text("a string")?.trim();
            if s.chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            {
                return Err("control characters are not allowed".into());
            }
            if s.chars().count() > MAX_LONG_TEXT_CHARS {
                return Err(format!("at most {MAX_LONG_TEXT_CHARS} characters"));
            }
            (!s.is_empty()).then(|| FieldValue::LongText(s.to_string()))
        }
        FieldKind::Number => {
            let n = raw
                .as_f64()
                .filter(|n| n.is_finite())
                .ok_or("must be a number")?;
            Some(FieldValue::Number(n))
        }
        FieldKind::Date => {
            let s = text("a date (YYYY-MM-DD)")?.trim();
            if s.is_empty() {
                return Ok(None);
            }
            let d = NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map_err(|_| "must be a date (YYYY-MM-DD)".to_string())?;
            Some(FieldValue::Date(d))
        }
        FieldKind::Datetime => {
            let s = text("an ISO 8601 date and time with its offset")?.trim();
            if s.is_empty() {
                return Ok(None);
            }
            let t = DateTime::parse_from_rfc3339(s)
                .map_err(|_| "must be an ISO 8601 date and time with its offset".to_string())?;
            let t = t.with_timezone(&Utc);
            // Kept to the microsecond, as both databases store it, so a value reads back as it was set.
            let t = t
                .with_nanosecond(t.nanosecond() / 1_000 * 1_000)
                .unwrap_or(t);
            Some(FieldValue::Datetime(t))
        }
        FieldKind::Boolean => Some(FieldValue::Boolean(
            raw.as_bool().ok_or("must be true or false")?,
        )),
        FieldKind::Choice => {
            let s = text("one of the field's choices")?.trim();
            if s.is_empty() {
                return Ok(None);
            }
            Some(FieldValue::Choice(choice(choices, s)?))
        }
        FieldKind::MultiChoice => {
            let items = raw
                .as_array()
                .ok_or("must be a list of the field's choices")?;
            let mut picked = Vec::new();
            for item in items {
                let s = item
                    .as_str()
                    .ok_or("must be a list of the field's choices")?;
                let c = choice(choices, s.trim())?;
                if !picked.contains(&c) {
                    picked.push(c);
                }
            }
            // Kept in the field's order, so that equal sets are equal values.
            picked.sort_by_key(|c| choices.iter().position(|x| x == c));
            (!picked.is_empty()).then_some(FieldValue::MultiChoice(picked))
        }
        FieldKind::User | FieldKind::Asset => {
            let id = raw
                .as_i64()
                .or_else(|| raw.get("id").and_then(Value::as_i64))
                .and_then(|n| i32::try_from(n).ok())
                .filter(|n| *n > 0)
                .ok_or("must be a positive integer id")?;
            Some(if kind == FieldKind::User {
                FieldValue::User(id)
            } else {
                FieldValue::Asset(id)
            })
        }
    };
    Ok(value)
}

/// The choice `s` names (exactly, or differing in case only), spelled as the field spells it.
fn choice(choices: &[String], s: &str) -> Result<String, String> {
    choices
        .iter()
        .find(|c| c.as_str() == s)
        .or_else(|| choices.iter().find(|c| c.eq_ignore_ascii_case(s)))
        .cloned()
        .ok_or_else(|| format!("{s:?} is not one of: {}", choices.join(", ")))
}

/// A value typed in a query string (`field.<key>=…`) as the JSON [`parse`] takes: numbers, booleans and ids
/// as such, lists of choices separated by commas, everything else as a string.
pub fn from_query_text(kind: FieldKind, s: &str) -> Value {
    let s = s.trim();
    match kind {
        FieldKind::Number => s
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .unwrap_or_else(|| json!(s)),
        FieldKind::Boolean => match s.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => json!(true),
            "false" | "0" | "no" => json!(false),
            _ => json!(s),
        },
        FieldKind::User | FieldKind::Asset => s
            .parse::<i64>()
            .map(|n| json!(n))
            .unwrap_or_else(|_| json!(s)),
        FieldKind::MultiChoice => json!(s.split(',').map(str::trim).collect::<Vec<_>>()),
        _ => json!(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn choices() -> Vec<String> {
        vec!["Laptop".into(), "Desktop".into(), "Phone".into()]
    }

    #[test]
    fn each_kind_takes_its_own_shape_and_refuses_others() {
        let c = choices();
        assert_eq!(
            parse(FieldKind::Number, &c, &json!(3.5)),
            Ok(Some(FieldValue::Number(3.5)))
        );
        assert!(parse(FieldKind::Number, &c, &json!("3.5")).is_err());
        assert_eq!(
            parse(FieldKind::Date, &c, &json!("2026-02-28"))
                .ok()
                .flatten(),
            NaiveDate::from_ymd_opt(2026, 2, 28).map(FieldValue::Date)
        );
        assert!(parse(FieldKind::Date, &c, &json!("2026-02-30")).is_err());
        assert!(parse(FieldKind::Datetime, &c, &json!("2026-02-28 10:00")).is_err());
        assert_eq!(
            parse(FieldKind::Datetime, &c, &json!("2026-02-28T10:00:00+02:00"))
                .ok()
                .flatten()
                .map(|v| v.to_json()),
            Some(json!("2026-02-28T08:00:00.000000Z"))
        );
        assert_eq!(
            parse(FieldKind::Choice, &c, &json!("laptop")),
            Ok(Some(FieldValue::Choice("Laptop".into())))
        );
        assert!(
            matches!(parse(FieldKind::Choice, &c, &json!("Tablet")), Err(e) if e.contains("Tablet"))
        );
        assert_eq!(
            parse(
                FieldKind::MultiChoice,
                &c,
                &json!(["Phone", "Laptop", "phone"])
            ),
            Ok(Some(FieldValue::MultiChoice(vec![
                "Laptop".into(),
                "Phone".into()
            ])))
        );
        assert_eq!(parse(FieldKind::MultiChoice, &c, &json!([])), Ok(None));
        assert!(parse(FieldKind::Boolean, &c, &json!("true")).is_err());
        assert_eq!(
            parse(FieldKind::User, &c, &json!({"id": 4})),
            Ok(Some(FieldValue::User(4)))
        );
        assert!(parse(FieldKind::Asset, &c, &json!(0)).is_err());
        assert!(parse(FieldKind::Text, &c, &json!("a\u{0}b")).is_err());
        assert_eq!(parse(FieldKind::Text, &c, &json!("  ")), Ok(None));
        assert_eq!(
            parse(FieldKind::LongText, &c, &json!("one\ntwo")),
            Ok(Some(FieldValue::LongText("one\ntwo".into())))
        );
    }

    proptest! {
        /// Whatever a client sends, the parse answers without panicking, and a value it accepts reads back
        /// (through its JSON) as itself.
        #[test]
        fn accepted_values_round_trip(kind in prop::sample::select(FieldKind::ALL.to_vec()),
                                      raw in prop_oneof![
                                          any::<f64>().prop_map(|n| json!(n)),
                                          any::<i64>().prop_map(|n| json!(n)),
                                          any::<bool>().prop_map(|b| json!(b)),
                                          ".{0,220}".prop_map(|s| json!(s)),
                                          prop::collection::vec("[A-Za-z]{0,8}", 0..4).prop_map(|v| json!(v)),
                                          Just(json!("2026-11-29")),
                                          Just(json!("2026-11-29T01:02:03Z")),
                                          Just(json!(["Phone", "Laptop"])),
                                      ]) {
            let c = choices();
            if let Ok(Some(v)) = parse(kind, &c, &raw) {
                prop_assert_eq!(parse(kind, &c, &v.to_json()), Ok(Some(v.clone())));
                if let FieldValue::Text(s) = &v {
                    prop_assert!(s.chars().count() <= MAX_TEXT_CHARS && !s.is_empty());
                }
            }
        }

        /// A number in a query string means the same number as in a body.
        #[test]
        fn query_numbers_parse_as_body_numbers(n in -1.0e12f64..1.0e12) {
            let typed = from_query_text(FieldKind::Number, &n.to_string());
            prop_assert_eq!(parse(FieldKind::Number, &[], &typed), Ok(Some(FieldValue::Number(n))));
        }
    }
}
