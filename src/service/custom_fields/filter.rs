//! Ticket lists filtered by a field: the conditions, checked against what the viewer may see, and their SQL,
//! each a read of the field's partial index.
use super::value::{from_query_text, parse, FieldValue};
use super::values::Defined;
use super::Field;
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use entity::values::FieldKind;
use entity::{ticket, ticket_field_choice, ticket_field_value};
use sea_orm::sea_query::{
    DynIden, Expr, ExprTrait, IntoIden, IntoTableRef, Query, SelectStatement, SimpleExpr, TableRef,
};
use serde_json::Value;

/// Most field conditions in one list.
pub const MAX_FILTERS: usize = 10;

/// How a condition compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldOp {
    /// Equal (a multiple-choice field: holds every one named).
    Is,
    /// At least (numbers, dates and moments).
    AtLeast,
    /// At most (numbers, dates and moments).
    AtMost,
    /// Has a value (`true`) or none (`false`).
    Set,
}

/// A condition as a client sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldFilterInput {
    /// The field's key.
    pub key: String,
    /// The comparison.
    pub op: FieldOp,
    /// The value compared with (a boolean for [`FieldOp::Set`]).
    pub value: Value,
}

/// A condition typed in a query string (`field.<key>=…`): the text read as the field's kind reads it.
pub fn query_input(fields: &Defined, key: &str, op: FieldOp, text: &str) -> FieldFilterInput {
    let value = match fields.iter().find(|f| f.key == key) {
        _ if op == FieldOp::Set => from_query_text(FieldKind::Boolean, text),
        Some(f) => from_query_text(f.kind, text),
        None => Value::String(text.to_string()),
    };
    FieldFilterInput {
        key: key.to_string(),
        op,
        value,
    }
}

/// A condition checked against its field, ready for SQL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldCondition {
    field_id: i32,
    kind: FieldKind,
    test: Test,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Test {
    Compare(FieldOp, FieldValue),
    Set(bool),
}

/// Check `inputs` against the fields the actor may filter on: any signed-in user on fields everyone sees,
/// the team on team-only ones too. A key the actor may not use is refused as unknown (400 naming
/// `field.<key>`), never answered with an empty list.
pub fn resolve_filters(
    actor: &Actor,
    fields: &Defined,
    inputs: &[FieldFilterInput],
) -> AppResult<Vec<FieldCondition>> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    if inputs.len() > MAX_FILTERS {
        return Err(AppError::bad_request(format!(
            "at most {MAX_FILTERS} field conditions in one list"
        )));
    }
    inputs
        .iter()
        .map(|input| {
            let name = format!("field.{}", input.key);
            let field: &Field = fields
                .iter()
                .map(|f| f.as_ref())
                .find(|f| f.key == input.key && (!f.team_only || actor.is_team()))
                .ok_or_else(|| AppError::field(&name, "no such field"))?;
            let test = match input.op {
                FieldOp::Set => Test::Set(
                    input
                        .value
                        .as_bool()
                        .ok_or_else(|| AppError::field(&name, "must be true or false"))?,
                ),
                op => {
                    let ordered = matches!(
                        field.kind,
                        FieldKind::Number | FieldKind::Date | FieldKind::Datetime
                    );
                    if field.kind == FieldKind::LongText {
                        return Err(AppError::field(
                            &name,
                            "long text fields filter only on whether they are set",
                        ));
                    }
                    if op != FieldOp::Is && !ordered {
                        return Err(AppError::field(
                            &name,
                            "only numbers, dates and moments compare by range",
                        ));
                    }
                    let value = parse(field.kind, &field.choices, &input.value)
                        .map_err(|why| AppError::field(&name, why))?
                        .ok_or_else(|| AppError::field(&name, "needs a value"))?;
                    Test::Compare(op, value)
                }
            };
            Ok(FieldCondition {
                field_id: field.id,
                kind: field.kind,
                test,
            })
        })
        .collect()
}

/// A list ordered by a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldSort {
    field_id: i32,
    kind: FieldKind,
}

/// The order by field `key`, when the actor may filter on it (as [`resolve_filters`]) and its kind orders:
/// not long text or multiple choices (400 naming `ordering` otherwise).
pub fn sort_by(actor: &Actor, fields: &Defined, key: &str) -> AppResult<FieldSort> {
    let field = fields
        .iter()
        .find(|f| f.key == key && (!f.team_only || actor.is_team()))
        .ok_or_else(|| AppError::field("ordering", format!("no such field: {key}")))?;
    if matches!(field.kind, FieldKind::LongText | FieldKind::MultiChoice) {
        return Err(AppError::field(
            "ordering",
            format!("a {} field does not order a list", field.kind),
        ));
    }
    Ok(FieldSort {
        field_id: field.id,
        kind: field.kind,
    })
}

/// The value a list is ordered by: the ticket's value of the field, null when it has none.
pub(crate) fn sort_value(sort: FieldSort) -> SimpleExpr {
    use ticket_field_value::Column;
    let column = match sort.kind {
        FieldKind::Number => Column::NumberValue,
        FieldKind::Date => Column::DateValue,
        FieldKind::Datetime => Column::TimeValue,
        FieldKind::Boolean => Column::BoolValue,
        FieldKind::User | FieldKind::Asset => Column::RefId,
        _ => Column::TextValue,
    };
    // One row at most: (ticket, field) is the primary key.
    let value = Query::select()
        .column((ticket_field_value::Entity, column))
        .from(ticket_field_value::Entity)
        .and_where(Expr::col((ticket_field_value::Entity, Column::FieldId)).eq(sort.field_id))
        .and_where(
            Expr::col((ticket_field_value::Entity, Column::TicketId))
                .equals((ticket::Entity, ticket::Column::Id)),
        )
        .to_owned();
    SimpleExpr::SubQuery(None, Box::new(value.into()))
}

/// The SQL of a condition on `tickets`.
pub(crate) fn condition(c: &FieldCondition) -> SimpleExpr {
    let id = Expr::col((ticket::Entity, ticket::Column::Id));
    match &c.test {
        Test::Set(set) => {
            let holders = if c.kind == FieldKind::MultiChoice {
                choice_holders(c.field_id, None)
            } else {
                value_holders(c.field_id)
            };
            if *set {
                id.in_subquery(holders)
            } else {
                id.not_in_subquery(holders)
            }
        }
        Test::Compare(_, FieldValue::MultiChoice(picked)) => {
            let mut all = Expr::val(true);
            for choice in picked {
                all = all.and(
                    id.clone()
                        .in_subquery(choice_holders(c.field_id, Some(choice))),
                );
            }
            all
        }
        Test::Compare(op, value) => {
            let Some((column, v)) = column_value(value) else {
                return Expr::val(false);
            };
            let col = Expr::col((ticket_field_value::Entity, column));
            let test = match op {
                FieldOp::AtLeast => col.gte(v),
                FieldOp::AtMost => col.lte(v),
                _ => col.eq(v),
            };
            let mut holders = value_holders(c.field_id);
            holders.and_where(test);
            id.in_subquery(holders)
        }
    }
}

/// The rows a list in creation order can walk for condition `c` (`tickets::read::filter::Walk`): the table
/// that holds one row for each ticket matching an equality on a single value or on a multiple choice's first
/// pick, what that row holds, on `alias`, and whether holding it is all of `c` (not when more picks are
/// named: `c` then still filters the page). None for other tests.
pub(crate) fn walk(c: &FieldCondition, alias: &DynIden) -> Option<(TableRef, SimpleExpr, bool)> {
    let Test::Compare(FieldOp::Is, value) = &c.test else {
        return None;
    };
    let on = |column: DynIden| Expr::col((alias.clone(), column));
    Some(match value {
        FieldValue::MultiChoice(picked) => {
            let choice = picked.first()?;
            let held = on(ticket_field_choice::Column::FieldId.into_iden())
                .eq(c.field_id)
                .and(on(ticket_field_choice::Column::Choice.into_iden()).eq(choice.clone()));
            let whole = picked.len() == 1;
            (ticket_field_choice::Entity.into_table_ref(), held, whole)
        }
        value => {
            let (column, v) = column_value(value)?;
            let held = on(ticket_field_value::Column::FieldId.into_iden())
                .eq(c.field_id)
                .and(on(column.into_iden()).eq(v));
            (ticket_field_value::Entity.into_table_ref(), held, true)
        }
    })
}

/// The column a single value is stored in, and the value (none for multiple choices: rows of their own).
fn column_value(value: &FieldValue) -> Option<(ticket_field_value::Column, sea_orm::Value)> {
    use ticket_field_value::Column;
    Some(match value {
        FieldValue::Text(s) | FieldValue::Choice(s) | FieldValue::LongText(s) => {
            (Column::TextValue, s.clone().into())
        }
        FieldValue::Number(n) => (Column::NumberValue, (*n).into()),
        FieldValue::Date(d) => (Column::DateValue, (*d).into()),
        FieldValue::Datetime(t) => (Column::TimeValue, (*t).into()),
        FieldValue::Boolean(b) => (Column::BoolValue, (*b).into()),
        FieldValue::User(r) | FieldValue::Asset(r) => (Column::RefId, (*r).into()),
        FieldValue::MultiChoice(_) => return None,
    })
}

fn value_holders(field_id: i32) -> SelectStatement {
    Query::select()
        .column((
            ticket_field_value::Entity,
            ticket_field_value::Column::TicketId,
        ))
        .from(ticket_field_value::Entity)
        .and_where(
            Expr::col((
                ticket_field_value::Entity,
                ticket_field_value::Column::FieldId,
            ))
            .eq(field_id),
        )
        .to_owned()
}

fn choice_holders(field_id: i32, choice: Option<&String>) -> SelectStatement {
    let mut q = Query::select()
        .column((
            ticket_field_choice::Entity,
            ticket_field_choice::Column::TicketId,
        ))
        .from(ticket_field_choice::Entity)
        .and_where(
            Expr::col((
                ticket_field_choice::Entity,
                ticket_field_choice::Column::FieldId,
            ))
            .eq(field_id),
        )
        .to_owned();
    if let Some(choice) = choice {
        q.and_where(
            Expr::col((
                ticket_field_choice::Entity,
                ticket_field_choice::Column::Choice,
            ))
            .eq(choice.clone()),
        );
    }
    q
}
