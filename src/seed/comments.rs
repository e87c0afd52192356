//! Seeded comments: a few per ticket, alternating requester and agent, about a quarter internal.
use super::tickets::{pick, World, PROBLEMS, THINGS};
use super::ROWS_PER_INSERT;
use crate::domain::CommentType;
use chrono::{DateTime, Duration, Utc};
use entity::{comment, ticket};
use rand::rngs::StdRng;
use rand::Rng;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};

/// A ticket's seeded comments, before the ticket has its id, and its counts of them.
pub(super) struct Planned {
    /// The comments, `ticket_id` unset.
    pub rows: Vec<comment::ActiveModel>,
    /// Public comments among them.
    pub public: i64,
}

/// Comments for a ticket of `requester` (`assignee`) created at `created`. Planned with the ticket, so the
/// ticket row is written with its comment counts: updating every ticket afterwards would leave each
/// table and index twice its size, and benchmarks on the seeded database read slower than they should.
pub(super) fn plan(
    rng: &mut StdRng,
    world: &World,
    per_ticket: u64,
    requester: i32,
    assignee: Option<i32>,
    created: DateTime<Utc>,
) -> Planned {
    let n = rng.gen_range(0..=per_ticket * 2);
    let mut rows = Vec::new();
    let mut public = 0;
    for k in 0..n {
        let internal = rng.gen_bool(0.25);
        let agent = assignee.unwrap_or(world.agents[rng.gen_range(0..world.agents.len())]);
        let author = if internal || k % 2 == 1 {
            agent
        } else {
            requester
        };
        let at = created + Duration::minutes(10 * (k as i64 + 1));
        let body = if internal {
            format!(
                "Internal note: checked {}, escalating if needed.",
                pick(rng, THINGS)
            )
        } else {
            public += 1;
            format!(
                "Update: the {} is {}.",
                pick(rng, THINGS),
                pick(rng, PROBLEMS)
            )
        };
        rows.push(comment::ActiveModel {
            author_id: Set(Some(author)),
            body: Set(body),
            comment_type: Set(if internal {
                CommentType::Internal
            } else {
                CommentType::Public
            }),
            created_at: Set(at),
            updated_at: Set(at),
            edited_at: Set(None),
            edited_by_id: Set(None),
            edit_count: Set(0),
            public_edit_count: Set(0),
            is_deleted: Set(false),
            deleted_at: Set(None),
            deleted_by_id: Set(None),
            ..Default::default()
        });
    }
    Planned { rows, public }
}

/// Insert the planned comments of the tickets numbered `first` onwards, in number order; returns how many
/// were made.
pub(super) async fn insert(
    db: &impl ConnectionTrait,
    first: i64,
    planned: Vec<Vec<comment::ActiveModel>>,
) -> anyhow::Result<u64> {
    let last = first + planned.len() as i64 - 1;
    let ids: Vec<i32> = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::Id)
        .filter(ticket::Column::Number.between(first, last))
        .order_by_asc(ticket::Column::Number)
        .into_tuple()
        .all(db)
        .await?;
    anyhow::ensure!(ids.len() == planned.len(), "seeded tickets missing");
    let rows: Vec<comment::ActiveModel> = ids
        .into_iter()
        .zip(planned)
        .flat_map(|(id, rows)| {
            rows.into_iter().map(move |mut row| {
                row.ticket_id = Set(id);
                row
            })
        })
        .collect();
    let count = rows.len() as u64;
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        comment::Entity::insert_many(chunk.to_vec())
            .exec(db)
            .await?;
    }
    Ok(count)
}
