//! Seeded service levels: one policy per priority on office hours, and each seeded ticket's clock as if
//! it had been kept since the ticket was created (past breaches recorded, checks queued for what is ahead).
use super::ROWS_PER_INSERT;
use crate::domain::Priority;
use crate::notify::outbox;
use crate::service::sla::policies::Policy;
use crate::service::sla::seeded;
use chrono::{DateTime, Utc};
use entity::{sla_policy, ticket, ticket_sla};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde_json::json;

/// Targets in business minutes (first response, resolution) per priority.
const TARGETS: &[(Priority, i32, i32)] = &[
    (Priority::Low, 8 * 60, 5 * 8 * 60),
    (Priority::Medium, 4 * 60, 3 * 8 * 60),
    (Priority::High, 60, 8 * 60),
    (Priority::Critical, 30, 4 * 60),
];

/// Add the policies (named after the seed run `run`) and return them ready to clock with.
pub(super) async fn policies(db: &impl ConnectionTrait, run: u32) -> anyhow::Result<Vec<Policy>> {
    let now = Utc::now();
    let hours: Vec<_> = ["mon", "tue", "wed", "thu", "fri"]
        .iter()
        .map(|day| json!({"day": day, "open": "09:00", "close": "17:00"}))
        .collect();
    let mut made = Vec::new();
    for (priority, first, resolution) in TARGETS {
        let row = sla_policy::ActiveModel {
            name: Set(format!("Seeded {} {run}", priority.as_str())),
            priority: Set(*priority),
            project_id: Set(None),
            group_id: Set(None),
            first_response_minutes: Set(*first),
            resolution_minutes: Set(*resolution),
            time_zone: Set("Europe/Berlin".to_string()),
            hours: Set(json!(hours)),
            holidays: Set(json!(["2026-12-25", "2026-12-26", "2027-01-01"])),
            pause_statuses: Set(json!(["on_hold", "blocked"])),
            created_at: Set(now),
            updated_at: Set(now),
            ..Default::default()
        };
        let saved = row.insert(db).await?;
        // Read back as the service reads it, so a row it would reject fails the seed here.
        made.push(Policy::from_row(saved).map_err(|e| anyhow::anyhow!(e.to_string()))?);
    }
    Ok(made)
}

/// Clock the tickets numbered `first` to `first + batch - 1` at `now`.
pub(super) async fn clocks(
    db: &impl ConnectionTrait,
    policies: &[Policy],
    first: i64,
    batch: u64,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let tickets = ticket::Entity::find()
        .filter(ticket::Column::Number.between(first, first + batch as i64 - 1))
        .all(db)
        .await?;
    let mut rows = Vec::new();
    let mut checks = Vec::new();
    for t in &tickets {
        if let Some((row, more)) = seeded::clock(policies, t, now) {
            rows.push(ticket_sla::ActiveModel::from(row));
            checks.extend(more);
        }
    }
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        ticket_sla::Entity::insert_many(chunk.to_vec())
            .exec_without_returning(db)
            .await?;
    }
    for chunk in checks.chunks(ROWS_PER_INSERT) {
        if let Some(insert) = outbox::insert_of(chunk.to_vec()) {
            db.execute(&insert).await?;
        }
    }
    Ok(())
}
