//! Reading tickets, for every door: a [`TicketQuery`] names a page (who is looking, the filter, the
//! order, the page, what to join, whether a total is wanted) and [`TicketReads::page`] answers it with a
//! [`TicketPage`] in one statement; [`TicketReads::one`] reads one ticket the same way, and `one` holds
//! the reads of a single ticket inside a transaction. The tickets' comment counts come on their rows
//! (`service::comments::visible_count` picks the one the viewer sees).
//!
//! Statements are built once per query value and remembered ([`TicketReads`], held in the application
//! state): the query value is the cache's key and the statement is built from it alone, so two
//! queries that could differ in SQL differ as keys.
mod decode;
mod filter;
mod one;
mod positional;
mod ranked;
mod statement;
mod total;

pub use filter::{AssigneeFilter, TicketFilter, TicketOrder, TicketSort};
pub use one::{get, get_by_number, get_including_archived, get_many};

use crate::auth::Actor;
use crate::db::Db;
use crate::error::AppResult;
use crate::service::search::Search;
use crate::service::sla::SlaView;
use crate::service::tickets::rules::Viewer;
use crate::service::{tags, users, PageRequest};
use entity::{project, ticket, user};
use moka::sync::Cache;
use sea_orm::{DbBackend, EntityTrait, Statement};
use std::sync::{Arc, RwLock};
use total::{Remembered, Total};

/// Most list totals remembered per instance: each is a few hundred bytes of SQL and two numbers.
const REMEMBERED_TOTALS: u64 = 4096;

/// Most page statements remembered per instance.
const REMEMBERED_STATEMENTS: u64 = 2048;

/// What a read brings besides the tickets: only what the caller shows, since every value costs
/// decoding (the REST list page shows two usernames of the 30 columns of people and project).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Joined {
    /// How much of the requesters and assignees, if anything.
    pub people: Option<People>,
    /// The tickets' projects.
    pub project: bool,
    /// The tickets' SLA clocks with their policies, in [`TicketPage::clocks`].
    pub sla: bool,
    /// Which tickets have live attachments, in [`TicketPage::with_attachments`] (whether the viewer may see
    /// them is for `service::attachments` to say: a ticket not named there has nothing to read).
    pub attachments: bool,
    /// The tickets' tags, in [`TicketPage::tags`], of the tickets whose tags the viewer may see.
    pub tags: bool,
}

/// How much of the requesters and assignees a read brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum People {
    /// Whole user records, in [`TicketPage::people`].
    Records,
    /// Usernames only, in [`TicketPage::usernames`].
    Usernames,
}

impl Joined {
    /// The tickets alone.
    pub const NOTHING: Joined = Joined {
        people: None,
        project: false,
        sla: false,
        attachments: false,
        tags: false,
    };
    /// People and project, whole.
    pub const REFS: Joined = Joined {
        people: Some(People::Records),
        project: true,
        sla: false,
        attachments: false,
        tags: false,
    };
    /// Everything a ticket's own page shows of it: people, project, clock and whether it has attachments.
    pub const DETAIL: Joined = Joined {
        sla: true,
        attachments: true,
        ..Joined::REFS
    };
    /// Usernames of requester and assignee only.
    pub const USERNAMES: Joined = Joined {
        people: Some(People::Usernames),
        ..Joined::NOTHING
    };
}

/// One page of visible, live tickets to read. Its statement is built from this value alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TicketQuery {
    /// Who is looking (what decides which tickets they may see).
    pub viewer: Viewer,
    /// Which tickets.
    pub filter: TicketFilter,
    /// In which order.
    pub order: TicketOrder,
    /// Which rows, and whether the total is wanted.
    pub page: PageRequest,
    /// What to read with them.
    pub joined: Joined,
}

impl TicketQuery {
    /// A page of what `actor` may see.
    pub fn new(
        actor: &Actor,
        filter: TicketFilter,
        order: TicketOrder,
        page: PageRequest,
        joined: Joined,
    ) -> Self {
        TicketQuery {
            viewer: Viewer::of(actor),
            filter,
            order,
            page,
            joined,
        }
    }
}

/// Tickets with the people and projects they name, by id, and the total when one was asked for.
#[derive(Debug, Default)]
pub struct TicketPage {
    /// The tickets, in the order of the query (each with its comment counts).
    pub tickets: Vec<ticket::Model>,
    /// Requesters and assignees as the viewer may see them, when read whole ([`People::Records`]).
    pub people: crate::FastMap<i32, user::Model>,
    /// Usernames of requesters and assignees, when only those were read ([`People::Usernames`]).
    pub usernames: crate::FastMap<i32, String>,
    /// Projects (archived ones included: tickets keep their project).
    pub projects: crate::FastMap<i32, project::Model>,
    /// SLA clocks by ticket id, when read ([`Joined::sla`]); tickets no policy ever applied to are absent.
    pub clocks: crate::FastMap<i32, SlaView>,
    /// Tickets with live attachments, when asked ([`Joined::attachments`]; `None` when not).
    pub with_attachments: Option<Vec<i32>>,
    /// Tags by ticket id, sorted, when read ([`Joined::tags`]): only of tickets whose tags the viewer may
    /// see (`service::tags::can_tag`); those are present even with no tags.
    pub tags: crate::FastMap<i32, Vec<String>>,
    /// The total of matching tickets, when one was asked for.
    pub total: Option<u64>,
    /// The tags column as read, by ticket id, before [`seen_by`] keeps what the viewer may see.
    tags_read: crate::FastMap<i32, String>,
}

/// A remembered page statement's key: the query, and what else decides the statement.
#[derive(PartialEq, Eq, Hash)]
struct Shape {
    postgres: bool,
    query: TicketQuery,
    /// Whether a total is selected, whether it is remembered, and at which generation ([`Total::shape`]).
    total: Option<Option<Option<i64>>>,
}

/// A one-ticket statement template's key.
type OneShape = (bool, Joined);

/// The ticket reads with what they remember: built statements (building one was a fifth of a request's
/// CPU) and list totals. Held in the application state; clones share the caches.
#[derive(Clone)]
pub struct TicketReads(Arc<Caches>);

struct Caches {
    /// The ticket-number prefix (text search matches numbers in any spelling).
    prefix: String,
    statements: Cache<Shape, Statement>,
    /// One-ticket statements per backend and [`Joined`], with the position of the id among their values.
    by_id: RwLock<Vec<(OneShape, (Statement, usize))>>,
    totals: Remembered,
}

impl std::fmt::Debug for TicketReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicketReads")
            .field("prefix", &self.0.prefix)
            .finish_non_exhaustive()
    }
}

impl TicketReads {
    /// Reads for tickets numbered with `prefix`.
    pub fn new(prefix: &str) -> Self {
        TicketReads(Arc::new(Caches {
            prefix: prefix.to_string(),
            statements: Cache::new(REMEMBERED_STATEMENTS),
            by_id: RwLock::new(Vec::new()),
            totals: Remembered::new(REMEMBERED_TOTALS),
        }))
    }

    /// One page of what `query` names, as `actor` (the query's viewer) may see it, in one statement
    /// (two when the total is wanted for a page past the end, or is a remembered count that tickets written
    /// since made stale).
    pub async fn page(&self, db: &Db, actor: &Actor, query: TicketQuery) -> AppResult<TicketPage> {
        query.filter.check(&query.viewer)?;
        let backend = db.backend();
        let caches = &self.0;
        let (page, joined) = (query.page, query.joined);
        let total = page
            .with_total
            .then(|| Total::new(&caches.totals, &query.viewer, &query.filter, &caches.prefix));
        let shape = Shape {
            postgres: backend == DbBackend::Postgres,
            total: total.as_ref().map(Total::shape),
            query,
        };
        let statement = match caches.statements.get(&shape) {
            Some(statement) => statement,
            None => {
                let q = &shape.query;
                let select = filter::page_query(&q.viewer, &q.filter, q.order, &caches.prefix);
                let built =
                    statement::statement(select, Some(page), joined, total.as_ref(), backend);
                caches.statements.insert(shape, built.clone());
                built
            }
        };
        let rows = db.read(statement).await?;
        let mut found = seen_by(actor, decode::decode(&rows, joined, total.as_ref())?);
        found.total = match (total, found.total) {
            (None, _) => None,
            (Some(_), Some(n)) => Some(n),
            // No row came back to carry it: an empty first page means there is nothing at all; a page
            // past the end, or a remembered count whose generation moved, has to ask.
            (Some(_), None) if found.tickets.is_empty() && page.offset == 0 && page.limit > 0 => {
                Some(0)
            }
            (Some(total), None) => Some(total.fetch(&db.conn).await?),
        };
        Ok(found)
    }

    /// The ticket `id` if the actor may see it and it is not archived (404 otherwise), with what
    /// `joined` names of it, in one statement (the page's ticket list is left empty).
    pub async fn one(
        &self,
        db: &Db,
        actor: &Actor,
        id: i32,
        joined: Joined,
    ) -> AppResult<(ticket::Model, TicketPage)> {
        let backend = db.backend();
        let key = (backend == DbBackend::Postgres, joined);
        let by_id = &self.0.by_id;
        let known = by_id.read().ok().and_then(|shapes| {
            shapes
                .iter()
                .find(|(shape, _)| *shape == key)
                .map(|(_, found)| found.clone())
        });
        let template = known.or_else(|| {
            let built = statement::by_id(joined, backend)?;
            if let Ok(mut shapes) = by_id.write() {
                shapes.push((key, built.clone()));
            }
            Some(built)
        });
        let statement = match template {
            Some(template) => statement::with_id(template, id),
            None => {
                let select = ticket::Entity::find_by_id(id);
                statement::statement(select, None, joined, None, backend)
            }
        };
        let row = db.read_one(statement).await?;
        let mut found = seen_by(actor, decode::decode(row.as_slice(), joined, None)?);
        let t = one::visible(actor, found.tickets.pop(), one::Archived::Hidden)?;
        Ok((t, found))
    }

    /// The ids of visible, live tickets matching `filter`, lowest first, at most `limit` (bulk changes name
    /// their tickets by a filter).
    pub async fn ids(
        &self,
        db: &Db,
        actor: &Actor,
        filter: &TicketFilter,
        limit: u64,
    ) -> AppResult<Vec<i32>> {
        use sea_orm::{QueryOrder, QuerySelect};
        filter.check(&Viewer::of(actor))?;
        Ok(
            filter::visible_query(&Viewer::of(actor), filter, &self.0.prefix)
                .select_only()
                .column(ticket::Column::Id)
                .order_by_asc(ticket::Column::Id)
                .limit(limit)
                .into_tuple::<i32>()
                .all(&db.conn)
                .await?,
        )
    }

    /// The visible, live tickets matching `filter` that `search` finds, best first: `limit` of them from
    /// `offset` as (id, score), and how many there are in all (see `ranked` for what a viewer is matched on).
    pub async fn ranked(
        &self,
        db: &Db,
        actor: &Actor,
        search: &Search,
        filter: &TicketFilter,
        (offset, limit): (u64, u64),
    ) -> AppResult<(Vec<(i32, f64)>, u64)> {
        let viewer = Viewer::of(actor);
        filter.check(&viewer)?;
        if search.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let read = |window| {
            let statement = ranked::statement(
                &viewer,
                search,
                filter,
                &self.0.prefix,
                window,
                db.backend(),
            );
            db.read(statement)
        };
        let mut rows = read((offset, limit)).await?;
        if rows.is_empty() && offset > 0 {
            // Past the last hit: the first one still says how many there are.
            rows = read((0, 1)).await?;
            let total = match rows.first() {
                Some(row) => row.try_get_by_index::<i64>(2)?,
                None => 0,
            };
            return Ok((Vec::new(), u64::try_from(total).unwrap_or(0)));
        }
        let mut total = 0;
        let mut hits = Vec::with_capacity(rows.len());
        for row in rows {
            hits.push((
                row.try_get_by_index::<i32>(0)?,
                row.try_get_by_index::<f64>(1)?,
            ));
            total = row.try_get_by_index::<i64>(2)?;
        }
        Ok((hits, u64::try_from(total).unwrap_or(0)))
    }

    /// How many visible, live tickets match `filter` (for connection totals and backward paging).
    pub async fn total(&self, db: &Db, actor: &Actor, filter: &TicketFilter) -> AppResult<u64> {
        filter.check(&Viewer::of(actor))?;
        let caches = &self.0;
        Total::new(&caches.totals, &Viewer::of(actor), filter, &caches.prefix)
            .fetch(&db.conn)
            .await
    }
}

/// `found` with its people as the actor may see them (they are named by tickets the actor can see), and
/// only the tags the actor may see.
fn seen_by(actor: &Actor, mut found: TicketPage) -> TicketPage {
    found.people = std::mem::take(&mut found.people)
        .into_iter()
        .map(|(id, u)| (id, users::seen_by(actor, u)))
        .collect();
    let mut read = std::mem::take(&mut found.tags_read);
    found.tags = found
        .tickets
        .iter()
        .filter_map(|t| {
            let column = read.remove(&t.id)?;
            Some((t.id, tags::names_seen(actor, t, &column)?))
        })
        .collect();
    found
}
