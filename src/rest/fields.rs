//! Reading fields of a JSON object one by one, so each wrong type or value becomes a 400 that names
//! the field, and `null` can be told apart from absence.
use crate::error::{AppError, AppResult};
use chrono::NaiveDate;
use serde_json::{Map, Value};

/// Accessors over a request's JSON object.
pub struct Fields<'a>(pub &'a Map<String, Value>);

impl Fields<'_> {
    /// Whether `key` is present (even as null).
    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// A JSON part as it came (a rule's conditions or actions), for the service to check.
    pub fn value(&self, key: &str) -> Option<Value> {
        self.0.get(key).cloned()
    }

    /// [`Fields::value`], which must be present.
    pub fn required_value(&self, key: &str) -> AppResult<Value> {
        self.value(key)
            .ok_or_else(|| AppError::field(key, "this field is required"))
    }

    /// An optional string (absent or null → None).
    pub fn string(&self, key: &str) -> AppResult<Option<String>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(AppError::field(key, "must be a string")),
        }
    }

    /// A boolean that may not be null when present.
    pub fn boolean(&self, key: &str) -> AppResult<Option<bool>> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(AppError::field(key, "must be true or false")),
        }
    }

    /// A string that may not be null when present.
    pub fn string_not_null(&self, key: &str) -> AppResult<Option<String>> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Null) => Err(AppError::field(key, "may not be null")),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(AppError::field(key, "must be a string")),
        }
    }

    /// A string that may be cleared: absent → None, null → Some(None).
    pub fn nullable_string(&self, key: &str) -> AppResult<Option<Option<String>>> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
            Some(_) => Err(AppError::field(key, "must be a string")),
        }
    }

    /// A list of strings (absent or null → None).
    pub fn strings(&self, key: &str) -> AppResult<Option<Vec<String>>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| AppError::field(key, "must be a list of strings"))
                })
                .collect::<AppResult<Vec<_>>>()
                .map(Some),
            Some(_) => Err(AppError::field(key, "must be a list of strings")),
        }
    }

    /// An id: absent → None, null → Some(None), integer → Some(Some(id)).
    pub fn nullable_id(&self, key: &str) -> AppResult<Option<Option<i32>>> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(v) => Ok(Some(Some(id_value(key, v)?))),
        }
    }

    /// A date `YYYY-MM-DD`: absent → None, null → Some(None).
    pub fn nullable_date(&self, key: &str) -> AppResult<Option<Option<NaiveDate>>> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(Value::String(s)) => date(key, s).map(|d| Some(Some(d))),
            Some(_) => Err(AppError::field(key, "must be a date formatted YYYY-MM-DD")),
        }
    }
}

/// A date `YYYY-MM-DD` (a 400 on `key` otherwise), from a body or a query.
pub fn date(key: &str, value: &str) -> AppResult<NaiveDate> {
    NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d")
        .map_err(|_| AppError::field(key, "must be a date formatted YYYY-MM-DD"))
}

/// Parse an id from a JSON number or a numeric string.
pub fn id_value(key: &str, value: &Value) -> AppResult<i32> {
    let parsed = match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    parsed
        .filter(|n| *n > 0 && *n <= i64::from(i32::MAX))
        .map(|n| n as i32)
        .ok_or_else(|| AppError::field(key, "must be a positive integer id"))
}
