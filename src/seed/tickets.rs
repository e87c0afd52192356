//! One seeded ticket: the mix of statuses and priorities, words for titles, who raised it and who works it.
use super::{comments, SeedOptions};
use crate::domain::{format_ticket_number, Priority, StatusCategory, TicketStatus, Workflow};
use chrono::{DateTime, Duration, Utc};
use entity::ticket;
use rand::rngs::StdRng;
use rand::Rng;
use sea_orm::Set;

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
pub(super) const THINGS: &[&str] = &[
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
pub(super) const PROBLEMS: &[&str] = &[
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

pub(super) fn pick<'a>(rng: &mut StdRng, values: &'a [&'a str]) -> &'a str {
    values[rng.gen_range(0..values.len())]
}

/// Skewed choice: a few requesters raise many tickets, most raise a handful.
fn skewed(rng: &mut StdRng, ids: &[i32]) -> i32 {
    let r: f64 = rng.gen();
    let index = ((r * r) * ids.len() as f64) as usize;
    ids[index.min(ids.len() - 1)]
}

/// The people and projects tickets are spread over, and the time span they were raised in.
pub(super) struct World {
    pub(super) requesters: Vec<i32>,
    pub(super) agents: Vec<i32>,
    pub(super) projects: Vec<i32>,
    pub(super) start: DateTime<Utc>,
    pub(super) span_seconds: i64,
}

/// Ticket number `number`, raised at `position` (0..1) of the span, with its planned comments.
pub(super) fn make_ticket(
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
