//! `deskgraph seed`: bulk test data with realistic distributions, for benchmarks and load tests.
//!
//! Rows go in with multi-row inserts, a few thousand tickets per transaction; each transaction reserves
//! its block of ticket numbers from the same counter the service uses, so numbers stay gapless and
//! later creates continue after them. The list counters are rebuilt at the end.
mod comments;
mod sla;

use crate::auth::password::hash_password;
use crate::domain::{format_ticket_number, Priority, StatusCategory, TicketStatus, Workflow};
use crate::service::tickets::counters;
use crate::state::AppState;
use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use entity::{project, ticket, user};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QuerySelect, Set, Statement,
    TransactionTrait,
};
use std::time::Instant;

/// How much to create.
#[derive(Debug, Clone)]
pub struct SeedOptions {
    /// Tickets.
    pub tickets: u64,
    /// Requesters (plain users); a tenth as many agents (staff) are added, at least two.
    pub users: u64,
    /// Projects.
    pub projects: u64,
    /// Average comments per ticket (0 to twice this, about a quarter internal).
    pub comments_per_ticket: u64,
    /// Password every seeded user gets.
    pub password: String,
    /// Random seed, for reproducible data.
    pub random_seed: u64,
    /// Share of tickets left in an open status (the rest resolved or closed); `None` keeps the usual
    /// mix (about two thirds open).
    pub open_share: Option<f64>,
    /// Add one SLA policy per priority (office hours) and give every ticket it matches its clock.
    pub sla_policies: bool,
}

/// What was created, and how long it took.
#[derive(Debug, Clone)]
pub struct SeedReport {
    /// The busiest seeded requester's username (for benchmark tokens).
    pub requester: String,
    /// A seeded agent's username.
    pub agent: String,
    /// Tickets created.
    pub tickets: u64,
    /// Comments created.
    pub comments: u64,
    /// Users created.
    pub users: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// Rows per multi-row insert: under SQLite's 32,766 bound parameters for the widest table.
const ROWS_PER_INSERT: usize = 1000;
/// Tickets per transaction.
const TICKETS_PER_TXN: u64 = 10_000;

// Typed, so the seed cannot write a value the service would not read back.
const STATUSES: &[(TicketStatus, u32)] = &[
    (TicketStatus::New, 15),
    (TicketStatus::Open, 20),
    (TicketStatus::InProgress, 20),
    (TicketStatus::OnHold, 5),
    (TicketStatus::Blocked, 5),
    (TicketStatus::Resolved, 20),
    (TicketStatus::Closed, 15),
];
const PRIORITIES: &[(Priority, u32)] = &[
    (Priority::Low, 25),
    (Priority::Medium, 45),
    (Priority::High, 22),
    (Priority::Critical, 8),
];
const THINGS: &[&str] = &[
    "printer",
    "laptop",
    "VPN",
    "email",
    "monitor",
    "keyboard",
    "badge",
    "Wi-Fi",
    "phone",
    "account",
    "password",
    "calendar",
    "license",
    "docking station",
    "shared drive",
    "projector",
];
const PROBLEMS: &[&str] = &[
    "not working",
    "very slow",
    "keeps disconnecting",
    "needs replacing",
    "access request",
    "shows an error",
    "cannot log in",
    "stopped syncing",
    "makes a noise",
    "setup for new hire",
];
const PLACES: &[&str] = &[
    "on floor 2",
    "in room 301",
    "at reception",
    "in the Berlin office",
    "when working from home",
    "in meeting room B",
    "on the night shift",
    "since the update",
];

/// The status of a new seeded ticket: the usual mix, or open with probability `open_share`.
fn status(rng: &mut StdRng, open_share: Option<f64>) -> TicketStatus {
    let Some(share) = open_share else {
        return weighted(rng, STATUSES);
    };
    let open = rng.gen_bool(share.clamp(0.0, 1.0));
    let (open_rows, done_rows): (Vec<_>, Vec<_>) = STATUSES
        .iter()
        .copied()
        .partition(|(s, _)| s.category() != StatusCategory::Done);
    weighted(rng, if open { &open_rows } else { &done_rows })
}

fn weighted<T: Copy>(rng: &mut StdRng, table: &[(T, u32)]) -> T {
    let total: u32 = table.iter().map(|(_, w)| w).sum();
    let mut pick = rng.gen_range(0..total);
    for (value, weight) in table {
        if pick < *weight {
            return *value;
        }
        pick -= weight;
    }
    table[0].0
}

fn pick<'a>(rng: &mut StdRng, values: &'a [&'a str]) -> &'a str {
    values[rng.gen_range(0..values.len())]
}

/// Skewed choice: a few requesters raise many tickets, most raise a handful.
fn skewed(rng: &mut StdRng, ids: &[i32]) -> i32 {
    let r: f64 = rng.gen();
    let index = ((r * r) * ids.len() as f64) as usize;
    ids[index.min(ids.len() - 1)]
}

async fn insert_users(
    db: &impl ConnectionTrait,
    prefix: &str,
    count: u64,
    staff: bool,
    hash: &str,
) -> anyhow::Result<Vec<i32>> {
    let now = Utc::now();
    let names: Vec<String> = (0..count).map(|i| format!("{prefix}{i}")).collect();
    for chunk in names.chunks(ROWS_PER_INSERT) {
        let rows = chunk.iter().map(|name| user::ActiveModel {
            username: Set(name.clone()),
            full_name: Set(format!("Seeded {name}")),
            email: Set(Some(format!("{name}@example.test"))),
            password_hash: Set(hash.to_string()),
            is_staff: Set(staff),
            is_superuser: Set(false),
            is_active: Set(true),
            created_at: Set(now),
            ..Default::default()
        });
        user::Entity::insert_many(rows).exec(db).await?;
    }
    let ids = user::Entity::find()
        .select_only()
        .column(user::Column::Id)
        .filter(user::Column::Username.starts_with(prefix))
        .into_tuple::<i32>()
        .all(db)
        .await?;
    Ok(ids)
}

async fn reserve_numbers(db: &impl ConnectionTrait, count: u64) -> anyhow::Result<i64> {
    let backend = db.get_database_backend();
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            match backend {
                DbBackend::Postgres => {
                    "UPDATE counters SET value = value + $1 WHERE name = 'ticket_number' RETURNING value"
                }
                _ => "UPDATE counters SET value = value + ? WHERE name = 'ticket_number' RETURNING value",
            },
            [(count as i64).into()],
        ))
        .await?
        .context("ticket_number counter missing")?;
    let last: i64 = row.try_get_by_index(0)?;
    Ok(last - count as i64 + 1)
}

struct World {
    requesters: Vec<i32>,
    agents: Vec<i32>,
    projects: Vec<i32>,
    start: DateTime<Utc>,
    span_seconds: i64,
}

fn make_ticket(
    rng: &mut StdRng,
    world: &World,
    prefix: &str,
    number: i64,
    position: f64,
    options: &SeedOptions,
) -> (ticket::ActiveModel, Vec<entity::comment::ActiveModel>) {
    let status = status(rng, options.open_share);
    let created = world.start + Duration::seconds((position * world.span_seconds as f64) as i64);
    let updated = created + Duration::minutes(rng.gen_range(0..72 * 60));
    let assignee = (status != TicketStatus::New && rng.gen_bool(0.8))
        .then(|| world.agents[rng.gen_range(0..world.agents.len())]);
    let project = (!world.projects.is_empty() && rng.gen_bool(0.8))
        .then(|| world.projects[rng.gen_range(0..world.projects.len())]);
    let done = matches!(status, TicketStatus::Resolved | TicketStatus::Closed);
    let archived = rng.gen_bool(0.03);
    let thing = pick(rng, THINGS);
    let problem = pick(rng, PROBLEMS);
    let place = pick(rng, PLACES);
    let requester = skewed(rng, &world.requesters);
    let planned = comments::plan(
        rng,
        world,
        options.comments_per_ticket,
        requester,
        assignee,
        created,
    );
    let counts = (planned.public, planned.rows.len() as i64);
    let row = ticket::ActiveModel {
        number: Set(number),
        ticket_number: Set(format_ticket_number(prefix, number)),
        title: Set(format!("{thing} {problem} {place}")),
        description: Set(format!(
            "Hello, my {thing} {problem} {place}. It started on {}. Could someone have a look? \
             Reference {number}.",
            created.format("%A %d %B")
        )),
        status: Set(status),
        priority: Set(weighted(rng, PRIORITIES)),
        requester_id: Set(requester),
        assignee_id: Set(assignee),
        assigned_group_id: Set(None),
        project_id: Set(project),
        due_date: Set(None),
        created_at: Set(created),
        updated_at: Set(updated),
        first_responded_at: Set(assignee.map(|_| created + Duration::minutes(30))),
        resolved_at: Set(done.then_some(updated)),
        closed_at: Set((status == TicketStatus::Closed).then_some(updated)),
        archived_at: Set(archived.then_some(updated)),
        archived_by_id: Set(archived.then(|| world.agents[0])),
        public_comment_count: Set(counts.0),
        all_comment_count: Set(counts.1),
        ..Default::default()
    };
    (row, planned.rows)
}

/// Fill the database; `state` must be migrated. Safe on a non-empty database (usernames get a fresh
/// prefix; ticket numbers continue from the counter).
pub async fn seed(state: &AppState, options: &SeedOptions) -> anyhow::Result<SeedReport> {
    let started = Instant::now();
    let db = &state.db.conn;
    let mut rng = StdRng::seed_from_u64(options.random_seed);
    let password = options.password.clone();
    let hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await?
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    let run: u32 = rng.gen_range(0..1_000_000);
    let txn = db.begin().await?;
    let requesters = insert_users(
        &txn,
        &format!("seed{run}-user-"),
        options.users.max(1),
        false,
        &hash,
    )
    .await?;
    let agent_count = (options.users / 10).max(2);
    let agents = insert_users(&txn, &format!("seed{run}-agent-"), agent_count, true, &hash).await?;
    let now = Utc::now();
    let project_rows = (0..options.projects).map(|i| project::ActiveModel {
        name: Set(format!("Seeded project {run}-{i}")),
        description: Set(String::new()),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    });
    if options.projects > 0 {
        project::Entity::insert_many(project_rows)
            .exec(&txn)
            .await?;
    }
    let projects = project::Entity::find()
        .select_only()
        .column(project::Column::Id)
        .filter(project::Column::Name.starts_with(format!("Seeded project {run}-")))
        .into_tuple::<i32>()
        .all(&txn)
        .await?;
    let policies = if options.sla_policies {
        sla::policies(&txn, run).await?
    } else {
        Vec::new()
    };
    txn.commit().await?;
    let world = World {
        requesters,
        agents,
        projects,
        start: now - Duration::days(365),
        span_seconds: 365 * 24 * 3600,
    };
    let prefix = state.config.ticket_prefix.clone();
    let mut comments = 0u64;
    let mut done = 0u64;
    while done < options.tickets {
        let batch = TICKETS_PER_TXN.min(options.tickets - done);
        let txn = state.db.begin_write().await?;
        let first = reserve_numbers(&txn, batch).await?;
        let (rows, planned): (Vec<ticket::ActiveModel>, Vec<_>) = (0..batch)
            .map(|i| {
                let position = (done + i) as f64 / options.tickets as f64;
                make_ticket(
                    &mut rng,
                    &world,
                    &prefix,
                    first + i as i64,
                    position,
                    options,
                )
            })
            .unzip();
        for chunk in rows.chunks(ROWS_PER_INSERT) {
            ticket::Entity::insert_many(chunk.to_vec())
                .exec(&txn)
                .await?;
        }
        comments += comments::insert(&txn, first, planned).await?;
        if !policies.is_empty() {
            sla::clocks(&txn, &policies, first, batch, Utc::now()).await?;
        }
        txn.commit().await?;
        done += batch;
    }
    counters::rebuild(db)
        .await
        .map_err(|e| anyhow::anyhow!(e.to_string()))?;
    if db.get_database_backend() == DbBackend::Postgres {
        db.execute_unprepared("ANALYZE").await?;
    }
    Ok(SeedReport {
        requester: format!("seed{run}-user-0"),
        agent: format!("seed{run}-agent-0"),
        tickets: options.tickets,
        comments,
        users: world.requesters.len() as u64 + world.agents.len() as u64,
        seconds: started.elapsed().as_secs_f64(),
    })
}
