//! Decoding a ticket read's rows by position into a [`TicketPage`].
use super::positional::{Cell, Positional, TICKET_WIDTH, USER_WIDTH};
use super::total::Total;
use super::{Joined, People, TicketPage};
use crate::error::AppResult;
use crate::service::sla;
use entity::{project, sla_policy, ticket, ticket_sla, user};
use sea_orm::{DbErr, QueryResult};

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
    /// The tags column (`Some("")` for none), when read.
    tags: Option<String>,
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
        let tags = if joined_with.tags {
            at += 1;
            Some(<Option<String>>::cell(res, at - 1)?.unwrap_or_default())
        } else {
            None
        };
        Ok(Row {
            ticket,
            requester,
            assignee,
            project,
            clock,
            has_attachments,
            tags,
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
            out.total = total.read(&row.total);
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
        if let Some(tags) = row.tags {
            out.tags_read.insert(row.ticket.id, tags);
        }
        out.tickets.push(row.ticket);
    }
    Ok(out)
}
