//! Query parameters of `GET /api/tickets/`: parsed strictly (400 naming the parameter) and written back
//! into the `next`/`previous` links.
use crate::auth::Actor;
use crate::domain::{Priority, TicketStatus, UnknownValue};
use crate::error::{AppError, AppResult};
use crate::service::custom_fields::{self, FieldFilterInput, FieldOp};
use crate::service::tickets::{AssigneeFilter, TicketFilter, TicketOrder, TicketSort};
use crate::service::{tags, text, PageRequest};
use sea_orm::ConnectionTrait;

const DEFAULT_LIMIT: u64 = 20;
const MAX_LIMIT: u64 = 100;
/// Keeps every offset within the databases' signed 64-bit range.
const MAX_PAGE: u64 = (i64::MAX as u64) / MAX_LIMIT;

/// A parsed list request: the filter, the page, and the filter parameters as sent (for links).
#[derive(Debug)]
pub struct ListParams {
    /// Filter for the service.
    pub filter: TicketFilter,
    /// Page number, from 1.
    pub page: u64,
    /// Page size, 1-100.
    pub limit: u64,
    kept: Vec<(&'static str, String)>,
    /// `field.<key>[.gte|.lte|.set]=value` as sent, checked against the fields by [`Self::resolve_fields`].
    fields: Vec<(String, FieldOp, String)>,
    /// The order (`ordering`); a custom field's is checked by [`Self::resolve_fields`].
    pub order: TicketOrder,
    order_key: Option<String>,
}

/// Filter parameters carried over into `next`/`previous`, in this order.
const FILTER_KEYS: [&str; 7] = [
    "q", "status", "priority", "assigned", "tag", "tag_any", "ordering",
];

impl ListParams {
    /// Parse a raw query string; unknown parameters are ignored, empty ones count as absent.
    pub fn parse(raw: Option<&str>) -> AppResult<Self> {
        let mut params = ListParams {
            filter: TicketFilter::default(),
            page: 1,
            limit: DEFAULT_LIMIT,
            kept: Vec::new(),
            fields: Vec::new(),
            order: TicketOrder::default(),
            order_key: None,
        };
        let pairs = url::form_urlencoded::parse(raw.unwrap_or("").as_bytes());
        for (key, value) in pairs {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            match key.as_ref() {
                "page" => params.page = positive("page", value, MAX_PAGE)?,
                "limit" => params.limit = positive("limit", value, MAX_LIMIT)?,
                "q" => {
                    // The service checks the search too; here the error names the parameter as sent.
                    text::single_line("q", value)?;
                    params.filter.query = Some(value.to_string())
                }
                "status" => {
                    params.filter.statuses = split(value)
                        .map(TicketStatus::parse)
                        .collect::<Result<_, UnknownValue>>()?
                }
                "priority" => {
                    params.filter.priorities =
                        split(value)
                            .map(Priority::parse)
                            .collect::<Result<_, UnknownValue>>()?
                }
                "assigned" => params.filter.assignee = Some(assignee(value)?),
                "tag" => params.filter.tags_all = tag_names("tag", value)?,
                "tag_any" => params.filter.tags_any = tag_names("tag_any", value)?,
                "ordering" => {
                    let (order, key) = ordering(value)?;
                    params.order = order;
                    params.order_key = key;
                }
                other if other.starts_with("field.") => {
                    let (key, op) = field_param(other)?;
                    params.fields.retain(|(k, o, _)| !(*k == key && *o == op));
                    params.fields.push((key, op, value.to_string()));
                    if params.fields.len() > custom_fields::MAX_FILTERS {
                        return Err(AppError::bad_request(format!(
                            "at most {} field conditions in one list",
                            custom_fields::MAX_FILTERS
                        )));
                    }
                    continue;
                }
                _ => continue,
            }
            if let Some(kept_key) = FILTER_KEYS.iter().find(|k| **k == key.as_ref()) {
                params.kept.retain(|(k, _)| k != kept_key);
                params.kept.push((kept_key, value.to_string()));
            }
        }
        Ok(params)
    }

    /// Check the `field.<key>` conditions against the fields the actor may filter on and put them in the
    /// filter (400 naming `field.<key>` for a key unknown to them or a value that does not fit).
    pub async fn resolve_fields(
        &mut self,
        db: &impl ConnectionTrait,
        known: &custom_fields::KnownFields,
        actor: &Actor,
    ) -> AppResult<()> {
        if self.fields.is_empty() && self.order_key.is_none() {
            return Ok(());
        }
        let defined = known.active(db).await?;
        if let Some(key) = &self.order_key {
            self.order.sort = TicketSort::Field(custom_fields::sort_by(actor, &defined, key)?);
        }
        let inputs: Vec<FieldFilterInput> = self
            .fields
            .iter()
            .map(|(key, op, text)| custom_fields::query_input(&defined, key, *op, text))
            .collect();
        self.filter.fields = custom_fields::resolve_filters(actor, &defined, &inputs)?;
        Ok(())
    }

    /// The filter parameter `key` as sent (`q`, `status`, `priority`, `assigned`).
    pub fn kept(&self, key: &str) -> &str {
        self.kept
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// The service's page request (always with the total: the body carries `count`).
    pub fn page_request(&self) -> PageRequest {
        PageRequest {
            offset: (self.page - 1).saturating_mul(self.limit),
            limit: self.limit,
            with_total: true,
        }
    }

    /// Relative link to `page` with the same size and filters.
    pub fn link(&self, page: u64) -> String {
        self.link_at("/api/tickets/", page)
    }

    /// Link to `page` of the list served at `base`, with the same size and filters (the web queue
    /// shares these parameters).
    pub fn link_at(&self, base: &str, page: u64) -> String {
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        out.append_pair("page", &page.to_string());
        out.append_pair("limit", &self.limit.to_string());
        for key in FILTER_KEYS {
            if let Some((_, value)) = self.kept.iter().find(|(k, _)| *k == key) {
                out.append_pair(key, value);
            }
        }
        for (key, op, value) in &self.fields {
            out.append_pair(&field_param_name(key, *op), value);
        }
        format!("{base}?{}", out.finish())
    }

    /// `next` link, or None on the last page (and past it).
    pub fn next(&self, count: u64) -> Option<String> {
        (self.page.saturating_mul(self.limit) < count).then(|| self.link(self.page + 1))
    }

    /// `previous` link (the page before this one, even past the end), or None on the first page.
    pub fn previous(&self) -> Option<String> {
        (self.page > 1).then(|| self.link(self.page - 1))
    }
}

fn split(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// Tags separated by commas, normalised; a bad one is a 400 naming the parameter.
fn tag_names(key: &str, value: &str) -> AppResult<Vec<String>> {
    let names: Vec<&str> = split(value).collect();
    tags::normalise_all(key, &names)
}

fn positive(key: &str, value: &str, max: u64) -> AppResult<u64> {
    value
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| AppError::field(key, format!("must be a whole number from 1 to {max}")))
}

fn assignee(value: &str) -> AppResult<AssigneeFilter> {
    match value.to_ascii_lowercase().as_str() {
        "me" => Ok(AssigneeFilter::Me),
        "any" => Ok(AssigneeFilter::Any),
        "none" => Ok(AssigneeFilter::Nobody),
        other => other
            .parse::<i32>()
            .ok()
            .filter(|id| *id > 0)
            .map(AssigneeFilter::User)
            .ok_or_else(|| AppError::field("assigned", "must be me, any, none or a user id")),
    }
}

/// `ordering`: a column or `field.<key>`, descending with a leading `-`; the field's key when it is one. An
/// unknown name keeps the default order (newest first).
fn ordering(value: &str) -> AppResult<(TicketOrder, Option<String>)> {
    let (descending, name) = match value.strip_prefix('-') {
        Some(name) => (true, name),
        None => (false, value),
    };
    let mut key = None;
    let sort = match name {
        "created_at" => TicketSort::CreatedAt,
        "updated_at" => TicketSort::UpdatedAt,
        "due_date" => TicketSort::DueDate,
        "ticket_number" => TicketSort::Number,
        other if other.starts_with("field.") && other.len() > "field.".len() => {
            key = Some(other["field.".len()..].to_string());
            // Replaced by the field's order once the key is checked.
            TicketSort::CreatedAt
        }
        // As Django REST framework's ordering filter does: a name it does not know leaves the default order.
        _ => return Ok((TicketOrder::default(), None)),
    };
    Ok((TicketOrder { sort, descending }, key))
}

/// `field.<key>` (equal), `field.<key>.gte`, `field.<key>.lte` or `field.<key>.set`: the key and the test.
fn field_param(name: &str) -> AppResult<(String, FieldOp)> {
    let rest = &name["field.".len()..];
    let (key, op) = match rest.split_once('.') {
        None => (rest, FieldOp::Is),
        Some((key, "gte")) => (key, FieldOp::AtLeast),
        Some((key, "lte")) => (key, FieldOp::AtMost),
        Some((key, "set")) => (key, FieldOp::Set),
        Some(_) => {
            return Err(AppError::field(
                name,
                "use field.<key>, field.<key>.gte, field.<key>.lte or field.<key>.set",
            ))
        }
    };
    Ok((key.to_string(), op))
}

/// The parameter name of a field condition, as [`field_param`] reads it.
fn field_param_name(key: &str, op: FieldOp) -> String {
    match op {
        FieldOp::Is => format!("field.{key}"),
        FieldOp::AtLeast => format!("field.{key}.gte"),
        FieldOp::AtMost => format!("field.{key}.lte"),
        FieldOp::Set => format!("field.{key}.set"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_keep_filters_and_stop_at_the_ends() -> AppResult<()> {
        let p = ListParams::parse(Some("status=open&page=2&limit=1&x=y"))?;
        assert_eq!(
            p.next(3).as_deref(),
            Some("/api/tickets/?page=3&limit=1&status=open")
        );
        assert_eq!(
            p.previous().as_deref(),
            Some("/api/tickets/?page=1&limit=1&status=open")
        );
        assert_eq!(p.next(2), None);
        Ok(())
    }
}
