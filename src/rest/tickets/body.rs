//! Ticket request bodies read field by field, every bad field reported at once in `details`.
use crate::domain::{Priority, TicketStatus};
use crate::error::{AppError, AppResult, FieldErrors};
use crate::rest::fields::{id_value, Fields};
use crate::service::custom_fields::RawEdits;
use crate::service::tickets::{NewTicket, TicketPatch};
use serde_json::{Map, Value};

/// Gathers field errors so one response names every bad field.
#[derive(Default)]
struct Errors(FieldErrors);

impl Errors {
    fn take<T: Default>(&mut self, result: AppResult<T>) -> AppResult<T> {
        match result {
            Ok(v) => Ok(v),
            Err(AppError::Validation { fields, .. }) if !fields.is_empty() => {
                for (field, messages) in fields {
                    self.0.entry(field).or_default().extend(messages);
                }
                Ok(T::default())
            }
            Err(other) => Err(other),
        }
    }

    fn finish<T>(self, value: T) -> AppResult<T> {
        if self.0.is_empty() {
            return Ok(value);
        }
        let names: Vec<&str> = self.0.keys().map(String::as_str).collect();
        Err(AppError::Validation {
            message: format!("invalid fields: {}", names.join(", ")),
            fields: self.0,
        })
    }
}

/// An id field: absent → None, null → Some(None). Objects with an `id` (as the detail shows them) are
/// accepted too, so clients may send back what they read.
fn reference(body: &Map<String, Value>, key: &str) -> AppResult<Option<Option<i32>>> {
    match body.get(key) {
        Some(Value::Object(obj)) => match obj.get("id") {
            Some(Value::Null) => Ok(Some(None)),
            Some(v) => Ok(Some(Some(id_value(key, v)?))),
            None => Err(AppError::field(key, "must be a positive integer id")),
        },
        _ => Fields(body).nullable_id(key),
    }
}

/// `custom_fields`: an object of field keys and values (null clears one); absent or null leaves them.
fn custom_fields(body: &Map<String, Value>) -> AppResult<Option<RawEdits>> {
    match body.get("custom_fields") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(values)) => Ok(Some(
            values.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        )),
        Some(_) => Err(AppError::field(
            "custom_fields",
            "must be an object of field keys and values",
        )),
    }
}

fn priority(f: &Fields<'_>) -> AppResult<Option<Priority>> {
    f.string_not_null("priority")?
        .map(|p| Priority::parse(&p))
        .transpose()
        .map_err(AppError::from)
}

/// The body of `POST /api/tickets/`.
pub fn new_ticket(body: &Map<String, Value>) -> AppResult<NewTicket> {
    let f = Fields(body);
    let mut errors = Errors::default();
    let title = match errors.take(f.string_not_null("title"))? {
        Some(t) => t,
        None if f.has("title") => String::new(),
        None => {
            errors.take::<()>(Err(AppError::field("title", "this field is required")))?;
            String::new()
        }
    };
    let input = NewTicket {
        title,
        description: errors.take(f.string("description"))?,
        priority: errors.take(priority(&f))?,
        project_id: errors.take(reference(body, "project"))?.flatten(),
        assignee_id: errors.take(reference(body, "assigned_to"))?.flatten(),
        assigned_group_id: errors.take(reference(body, "assigned_group"))?.flatten(),
        due_date: errors.take(f.nullable_date("due_date"))?.flatten(),
        requester_id: errors.take(reference(body, "requester"))?.flatten(),
        idempotency_key: None,
        custom_fields: errors.take(custom_fields(body))?.unwrap_or_default(),
    };
    errors.finish(input)
}

/// The body of `PATCH`/`PUT /api/tickets/<id>/`; fields it does not know are ignored.
pub fn ticket_patch(body: &Map<String, Value>) -> AppResult<TicketPatch> {
    let f = Fields(body);
    let mut errors = Errors::default();
    let status = errors
        .take(f.string_not_null("status"))?
        .map(|s| errors.take(TicketStatus::parse(&s).map(Some).map_err(AppError::from)))
        .transpose()?
        .flatten();
    let patch = TicketPatch {
        title: errors.take(f.string_not_null("title"))?,
        description: errors.take(f.string_not_null("description"))?,
        priority: errors.take(priority(&f))?,
        status,
        project_id: errors.take(reference(body, "project"))?,
        assignee_id: errors.take(reference(body, "assigned_to"))?,
        assigned_group_id: errors.take(reference(body, "assigned_group"))?,
        due_date: errors.take(f.nullable_date("due_date"))?,
        custom_fields: errors.take(custom_fields(body))?,
    };
    errors.finish(patch)
}
