//! The `Date` scalar: a calendar date as `YYYY-MM-DD`.
use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};
use chrono::NaiveDate;

/// A calendar date without time zone, `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Date(pub NaiveDate);

/// A calendar date, `YYYY-MM-DD`.
#[Scalar(name = "Date")]
impl ScalarType for Date {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map(Date)
                .map_err(|_| InputValueError::custom("expected a date as YYYY-MM-DD")),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.format("%Y-%m-%d").to_string())
    }
}
