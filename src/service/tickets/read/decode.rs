//! Decoding a ticket read's rows by position into a [`TicketPage`].
use super::total::Total;
use super::{Joined, People, TicketPage};
use crate::error::AppResult;
use crate::service::sla;
use entity::{project, sla_policy, ticket, ticket_sla, user};
use sea_orm::sqlx::{self, Row as _};
use sea_orm::{ActiveEnum, DbErr, QueryResult, TryGetable};

/// A record decoded from consecutive columns by position. Decoding by name costs a formatted,
/// prefixed column name and a hash lookup per value, which was a fifth of the list page's CPU.
pub(super) trait Positional: Sized {
    /// Field names in declaration order, which must be the entity's column order (a test checks).
    const FIELDS: &'static [&'static str];
    /// Decode from the columns starting at `start`.
    fn at(res: &QueryResult, start: usize) -> Result<Self, DbErr>;
}

/// One column value by position. On PostgreSQL it is read straight from the row without sqlx's per-value
/// type check (the column types are the migrations' own, and the decoding tests run on PostgreSQL) and
/// without SeaORM's formatted error for every NULL, together a third of a joined page's decoding;
/// elsewhere it goes through SeaORM.
trait Cell: Sized {
    fn cell(res: &QueryResult, at: usize) -> Result<Self, DbErr>;
}

impl<T> Cell for T
where
    T: TryGetable + for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    fn cell(res: &QueryResult, at: usize) -> Result<Self, DbErr> {
        match res.try_as_pg_row() {
            Some(row) => row
                .try_get_unchecked::<T, usize>(at)
                .map_err(|e| DbErr::Type(format!("column {at}: {e}"))),
            None => res.try_get_by_index(at),
        }
    }
}

/// A stored enum, read as its text and turned into the value once here; a spelling outside the set is
/// a decoding error like any other (the request fails as an internal error).
fn stored<E: ActiveEnum<Value = String>>(res: &QueryResult, at: usize) -> Result<E, DbErr> {
    E::try_from_value(&String::cell(res, at)?)
}

fn take(next: &mut usize) -> usize {
    let at = *next;
    *next += 1;
    at
}

/// `field` decodes a column as itself; `field as stored` decodes a stored enum through its text.
macro_rules! positional {
    ($model:ty { $($field:ident $(as $how:ident)?),+ $(,)? }) => {
        impl Positional for $model {
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),+];
            fn at(res: &QueryResult, start: usize) -> Result<Self, DbErr> {
                let mut next = start;
                Ok(Self { $($field: positional!(@cell res, take(&mut next) $(, $how)?)),+ })
            }
        }
    };
    (@cell $res:ident, $at:expr) => { Cell::cell($res, $at)? };
    (@cell $res:ident, $at:expr, stored) => { stored($res, $at)? };
}

positional!(ticket::Model {
    id,
    number,
    ticket_number,
    title,
    description,
    status as stored,
    priority as stored,
    requester_id,
    assignee_id,
    assigned_group_id,
    project_id,
    due_date,
    created_at,
    updated_at,
    first_responded_at,
    resolved_at,
    closed_at,
    archived_at,
    archived_by_id,
    public_comment_count,
    all_comment_count,
});
positional!(user::Model {
    id,
    username,
    full_name,
    email,
    password_hash,
    is_staff,
    is_superuser,
    is_active,
    created_at,
});
positional!(project::Model {
    id,
    name,
    description,
    created_at,
    updated_at,
    archived_at,
});

positional!(ticket_sla::Model {
    ticket_id,
    policy_id,
    paused_ms,
    paused_since,
    first_response_due_at,
    resolution_due_at,
    due_at,
    first_response_at_risk_at,
    resolution_at_risk_at,
    first_response_breached_at,
    resolution_breached_at,
    updated_at,
    check_at_ms,
});
positional!(sla_policy::Model {
    id,
    name,
    priority as stored,
    project_id,
    group_id,
    first_response_minutes,
    resolution_minutes,
    time_zone,
    hours,
    holidays,
    pause_statuses,
    created_at,
    updated_at,
});

pub(super) const TICKET_WIDTH: usize = <ticket::Model as Positional>::FIELDS.len();
const USER_WIDTH: usize = <user::Model as Positional>::FIELDS.len();

/// Which optional columns a statement selects.
#[derive(Clone, Copy)]
struct Extras {
    joined: Joined,
    /// How many total columns follow.
    total: usize,
}

/// A requester or assignee as read.
enum Person {
    Record(user::Model),
    Username(String),
}

struct Row {
    ticket: ticket::Model,
    requester: Option<Person>,
    assignee: Option<Person>,
    project: Option<project::Model>,
    clock: Option<(ticket_sla::Model, Option<sla_policy::Model>)>,
    has_attachments: bool,
    total: Vec<Option<i64>>,
}

/// The joined record at `start`, or `None` when the LEFT JOIN found nothing.
fn joined<M: Positional>(res: &QueryResult, start: usize) -> Result<Option<M>, DbErr> {
    // The key column (first) tells a missing row apart without decoding, and failing on, its NULLs.
    if <Option<i32>>::cell(res, start)?.is_none() {
        return Ok(None);
    }
    M::at(res, start).map(Some)
}

impl Row {
    fn decode(res: &QueryResult, extras: Extras) -> Result<Self, DbErr> {
        let joined_with = extras.joined;
        let ticket = ticket::Model::at(res, 0)?;
        let mut at = TICKET_WIDTH;
        let person = |at: &mut usize| -> Result<Option<Person>, DbErr> {
            match joined_with.people {
                None => Ok(None),
                Some(People::Records) => {
                    let found = joined::<user::Model>(res, *at)?.map(Person::Record);
                    *at += USER_WIDTH;
                    Ok(found)
                }
                Some(People::Usernames) => {
                    let found = <Option<String>>::cell(res, *at)?;
                    *at += 1;
                    Ok(found.map(Person::Username))
                }
            }
        };
        let requester = person(&mut at)?;
        let assignee = person(&mut at)?;
        let project = if joined_with.project {
            let found = joined(res, at)?;
            at += <project::Model as Positional>::FIELDS.len();
            found
        } else {
            None
        };
        let clock = if joined_with.sla {
            let clock = joined::<ticket_sla::Model>(res, at)?;
            at += <ticket_sla::Model as Positional>::FIELDS.len();
            let policy = joined::<sla_policy::Model>(res, at)?;
            at += <sla_policy::Model as Positional>::FIELDS.len();
            clock.map(|clock| (clock, policy))
        } else {
            None
        };
        let has_attachments = if joined_with.attachments {
            at += 1;
            i32::cell(res, at - 1)? != 0
        } else {
            false
        };
        Ok(Row {
            ticket,
            requester,
            assignee,
            project,
            clock,
            has_attachments,
            total: (at..at + extras.total)
                .map(|i| <Option<i64>>::cell(res, i))
                .collect::<Result<_, _>>()?,
        })
    }
}

/// The page `rows` hold, as [`super::statement::statement`] selected them.
pub(super) fn decode(
    rows: &[QueryResult],
    joined: Joined,
    total: Option<&Total>,
) -> AppResult<TicketPage> {
    let extras = Extras {
        joined,
        total: total.map_or(0, Total::columns_len),
    };
    let mut out = TicketPage {
        tickets: Vec::with_capacity(rows.len()),
        with_attachments: joined.attachments.then(Vec::new),
        ..TicketPage::default()
    };
    for res in rows {
        let row = Row::decode(res, extras)?;
        let named = [
            (Some(row.ticket.requester_id), row.requester),
            (row.ticket.assignee_id, row.assignee),
        ];
        for (id, person) in named {
            match (id, person) {
                (_, Some(Person::Record(u))) => {
                    out.people.insert(u.id, u);
                }
                (Some(id), Some(Person::Username(name))) => {
                    out.usernames.insert(id, name);
                }
                _ => {}
            }
        }
        if let (Some(total), None) = (total, out.total) {
            out.total = Some(total.read(&row.total)?);
        }
        if let Some(project) = row.project {
            out.projects.insert(project.id, project);
        }
        if let Some((clock, policy)) = row.clock {
            out.clocks
                .insert(clock.ticket_id, sla::view_of(clock, policy));
        }
        if row.has_attachments {
            out.with_attachments
                .get_or_insert_with(Vec::new)
                .push(row.ticket.id);
        }
        out.tickets.push(row.ticket);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::Iterable;

    fn names<C: sea_orm::IdenStatic + Iterable>() -> Vec<&'static str> {
        C::iter().map(|c| c.as_str()).collect()
    }

    #[test]
    fn positional_fields_follow_the_entity_column_order() {
        assert_eq!(
            <ticket::Model as Positional>::FIELDS,
            names::<ticket::Column>()
        );
        assert_eq!(<user::Model as Positional>::FIELDS, names::<user::Column>());
        assert_eq!(
            <project::Model as Positional>::FIELDS,
            names::<project::Column>()
        );
        assert_eq!(
            <ticket_sla::Model as Positional>::FIELDS,
            names::<ticket_sla::Column>()
        );
        assert_eq!(
            <sla_policy::Model as Positional>::FIELDS,
            names::<sla_policy::Column>()
        );
    }
}
