//! Records decoded by column position: the [`Positional`] impls of the joined entities and the
//! single-cell reader they share with the row decoder.
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
pub(super) trait Cell: Sized {
    /// The value of column `at`.
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
    status_changed_at,
    merged_into_id,
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
    last_login_at,
    credentials_changed_at,
    time_zone,
    language,
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
pub(super) const USER_WIDTH: usize = <user::Model as Positional>::FIELDS.len();

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
