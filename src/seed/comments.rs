//! Seeded comments: a few per ticket, alternating requester and agent, about a quarter internal.
use super::ROWS_PER_INSERT;
use super::{pick, SeedOptions, World, PROBLEMS, THINGS};
use crate::domain::CommentType;
use chrono::Utc;
use chrono::{DateTime, Duration};
use entity::{comment, ticket};
use rand::rngs::StdRng;
use rand::Rng;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};

/// Comments for the tickets numbered `first` to `first + batch - 1`; returns how many were made.
pub(super) async fn insert(
    db: &impl ConnectionTrait,
    rng: &mut StdRng,
    world: &World,
    options: &SeedOptions,
    first: i64,
    batch: u64,
) -> anyhow::Result<u64> {
    let last = first + batch as i64 - 1;
    let made: Vec<(i32, i32, Option<i32>, DateTime<Utc>)> = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::Id)
        .column(ticket::Column::RequesterId)
        .column(ticket::Column::AssigneeId)
        .column(ticket::Column::CreatedAt)
        .filter(ticket::Column::Number.between(first, last))
        .order_by_asc(ticket::Column::Number)
        .into_tuple()
        .all(db)
        .await?;
    let mut rows = Vec::new();
    for (ticket_id, requester, assignee, created) in made {
        let n = rng.gen_range(0..=options.comments_per_ticket * 2);
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
                format!(
                    "Update: the {} is {}.",
                    pick(rng, THINGS),
                    pick(rng, PROBLEMS)
                )
            };
            rows.push(comment::ActiveModel {
                ticket_id: Set(ticket_id),
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
                is_deleted: Set(false),
                deleted_at: Set(None),
                deleted_by_id: Set(None),
                ..Default::default()
            });
        }
    }
    let count = rows.len() as u64;
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        comment::Entity::insert_many(chunk.to_vec())
            .exec(db)
            .await?;
    }
    Ok(count)
}
