//! `deskgraph seed`: bulk test data with realistic distributions, for benchmarks and load tests.
//!
//! Rows go in with multi-row inserts, a few thousand tickets per transaction; each transaction reserves
//! its block of ticket numbers from the same counter the service uses, so numbers stay gapless and
//! later creates continue after them. The list counters are rebuilt at the end.
mod comments;
mod sla;
mod tickets;

use tickets::{make_ticket, World};

use crate::auth::password::hash_password;
use crate::service::tickets::counters;
use crate::state::AppState;
use anyhow::Context;
use chrono::{Duration, Utc};
use entity::{project, ticket, user};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QuerySelect, Set, Statement,
    TransactionTrait,
};
use std::time::Instant;

/// How much to create; also the arguments of `deskgraph seed`.
#[derive(Debug, Clone, clap::Args)]
pub struct SeedOptions {
    /// Tickets to create.
    #[arg(long)]
    pub tickets: u64,
    /// Requesters to create (plus a tenth as many agents, at least two).
    #[arg(long, default_value_t = 1000)]
    pub users: u64,
    /// Projects to create.
    #[arg(long, default_value_t = 20)]
    pub projects: u64,
    /// Average comments per ticket (0 to twice this, about a quarter internal).
    #[arg(long, default_value_t = 3)]
    pub comments_per_ticket: u64,
    /// Password of every seeded user.
    #[arg(long, default_value = "seed-password")]
    pub password: String,
    /// Random seed (same seed, same data shape).
    #[arg(long, default_value_t = 42)]
    pub random_seed: u64,
    /// Share of tickets left open, 0 to 1 (e.g. 0.1: a tenth open, the rest resolved or closed);
    /// without it about two thirds are open.
    #[arg(long)]
    pub open_share: Option<f64>,
    /// Also add one SLA policy per priority (office hours, Europe/Berlin) and clock the tickets.
    #[arg(long)]
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

/// The tags seeded tickets carry, one each in turn (so a filter by one of them matches an eighth of them).
const SEED_TAGS: [&str; 8] = [
    "printer", "vpn", "email", "laptop", "network", "access", "software", "hardware",
];

/// `names` as rows `(k, name)`, `k` their place: joined on `number % names.len()`, each ticket gets one in turn.
fn in_turn(names: &[&str]) -> String {
    names
        .iter()
        .enumerate()
        .map(|(k, n)| format!("SELECT {k} AS k, '{n}' AS name"))
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

/// Tag the seeded tickets (numbers `first` on, `count` of them) with [`SEED_TAGS`], one each, in two statements.
async fn tag_tickets(db: &impl ConnectionTrait, first: i64, count: u64) -> anyhow::Result<()> {
    if count == 0 {
        return Ok(());
    }
    let backend = db.get_database_backend();
    let names = SEED_TAGS
        .iter()
        .map(|n| format!("('{n}', false, CURRENT_TIMESTAMP)"))
        .collect::<Vec<_>>()
        .join(", ");
    db.execute_raw(Statement::from_string(
        backend,
        format!("INSERT INTO tags (name, curated, created_at) VALUES {names} ON CONFLICT (name) DO NOTHING"),
    ))
    .await?;
    let turns = in_turn(&SEED_TAGS);
    let last = first + i64::try_from(count)? - 1;
    let n = SEED_TAGS.len();
    db.execute_raw(Statement::from_string(
        backend,
        format!(
            "INSERT INTO ticket_tags (ticket_id, tag_id, created_at, ticket_created_at) \
             SELECT t.id, g.id, t.created_at, t.created_at FROM tickets t \
             JOIN ({turns}) m ON m.k = t.number % {n} JOIN tags g ON g.name = m.name \
             WHERE t.number BETWEEN {first} AND {last} ON CONFLICT DO NOTHING"
        ),
    ))
    .await?;
    Ok(())
}

/// The sites seeded tickets are at, one each in turn, in the custom field `site`.
const SEED_SITES: [&str; 8] = [
    "Paris", "Oslo", "Lisbon", "Berlin", "Madrid", "Vienna", "Prague", "Dublin",
];

/// How many custom fields the seed defines: a desk's worth, so that reads carry them all.
const SEED_FIELDS: usize = 50;

/// Define [`SEED_FIELDS`] custom fields for every ticket (once per database): `site`, a choice of
/// [`SEED_SITES`] that the seeded tickets (numbers `first` on, `count` of them) hold one each in turn, and
/// others of every kind, unset.
async fn field_tickets(db: &impl ConnectionTrait, first: i64, count: u64) -> anyhow::Result<()> {
    if count == 0 {
        return Ok(());
    }
    let backend = db.get_database_backend();
    let kinds = [
        "text",
        "number",
        "date",
        "datetime",
        "boolean",
        "long_text",
        "user",
    ];
    let sites = serde_json::to_string(&SEED_SITES)?;
    let mut rows = vec![format!(
        "('site', 'Site', 'choice', '{sites}', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
    )];
    for n in 1..SEED_FIELDS {
        let kind = kinds[n % kinds.len()];
        rows.push(format!(
            "('seed_field_{n}', 'Field {n}', '{kind}', '[]', {n}, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
        ));
    }
    db.execute_raw(Statement::from_string(
        backend,
        format!(
            "INSERT INTO custom_fields (key, label, kind, choices, position, created_at, updated_at) \
             VALUES {} ON CONFLICT (key) DO NOTHING",
            rows.join(", ")
        ),
    ))
    .await?;
    let turns = in_turn(&SEED_SITES);
    let last = first + i64::try_from(count)? - 1;
    let n = SEED_SITES.len();
    db.execute_raw(Statement::from_string(
        backend,
        format!(
            "INSERT INTO ticket_field_values (ticket_id, field_id, text_value, ticket_created_at) \
             SELECT t.id, f.id, m.name, t.created_at FROM tickets t \
             JOIN ({turns}) m ON m.k = t.number % {n} JOIN custom_fields f ON f.key = 'site' \
             WHERE t.number BETWEEN {first} AND {last} ON CONFLICT DO NOTHING"
        ),
    ))
    .await?;
    Ok(())
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
    let mut first_number = None;
    while done < options.tickets {
        let batch = TICKETS_PER_TXN.min(options.tickets - done);
        let txn = state.db.begin_write().await?;
        let first = reserve_numbers(&txn, batch).await?;
        first_number.get_or_insert(first);
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
    if let Some(first) = first_number {
        tag_tickets(db, first, options.tickets).await?;
        field_tickets(db, first, options.tickets).await?;
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
