//! Time spent on tickets: logged by those who work on a ticket (the team, the assignee, the assigned group),
//! read by them, and reported per agent, group, project or month to the team. Requesters never see time,
//! through any door.
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::service::comments::can_read_internal;
use crate::service::tickets::{self, rules};
use crate::service::{audit, text};
use chrono::{NaiveDate, Utc};
use entity::{ticket, time_entry};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Func};
use sea_orm::{
    ActiveModelTrait, ActiveValue, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait,
    FromQueryResult, JoinType, QueryFilter, QueryOrder, QuerySelect, QueryTrait, RelationDef,
    Select, Set,
};
use serde_json::json;
use std::collections::HashMap;

/// Most minutes one entry holds (a day).
pub const MAX_MINUTES: i32 = 24 * 60;
/// Most entries one report lists (its totals count them all).
pub const MAX_LISTED: u64 = 1_000;

/// Time to log.
#[derive(Debug, Clone, Default)]
pub struct NewEntry {
    /// 1 to [`MAX_MINUTES`].
    pub minutes: i32,
    /// The day; today (UTC) when absent.
    pub spent_on: Option<NaiveDate>,
    /// Billable unless said otherwise.
    pub billable: Option<bool>,
    /// The kind of work, at most 50 characters; `support` when absent.
    pub activity: Option<String>,
    /// A comment of the ticket it goes with.
    pub comment_id: Option<i32>,
}

/// Whether the actor may log and read time on `t` (a ticket they can see): 403 otherwise.
pub fn may_log(actor: &Actor, t: &ticket::Model) -> AppResult<()> {
    if can_read_internal(actor, t) {
        Ok(())
    } else {
        Err(AppError::forbidden(
            "time is the team's: only those who work on a ticket log and read it",
        ))
    }
}

/// Check `minutes` as a form or a body gives it (400 on `minutes`).
pub fn check_minutes(minutes: i64) -> AppResult<i32> {
    i32::try_from(minutes)
        .ok()
        .filter(|m| (1..=MAX_MINUTES).contains(m))
        .ok_or_else(|| {
            AppError::field(
                "minutes",
                format!("must be a whole number from 1 to {MAX_MINUTES}"),
            )
        })
}

/// Log time on ticket `ticket_id` as the actor (404 when they cannot see it, 403 when they do not work on it).
pub async fn log(
    db: &crate::db::Db,
    actor: &Actor,
    ticket_id: i32,
    entry: NewEntry,
) -> AppResult<time_entry::Model> {
    let minutes = check_minutes(i64::from(entry.minutes))?;
    let activity = match entry.activity.as_deref().map(str::trim) {
        None | Some("") => "support".to_string(),
        Some(a) => {
            text::single_line("activity", a)?;
            if a.chars().count() > 50 {
                return Err(AppError::field("activity", "at most 50 characters"));
            }
            a.to_lowercase()
        }
    };
    let today = Utc::now().date_naive();
    let spent_on = entry.spent_on.unwrap_or(today);
    if spent_on > today + chrono::Duration::days(1) {
        return Err(AppError::field("spent_on", "may not be in the future"));
    }
    let txn = db.begin_write().await?;
    let t = tickets::get(&txn, actor, ticket_id).await?;
    may_log(actor, &t)?;
    if let Some(comment_id) = entry.comment_id {
        let on_ticket = entity::comment::Entity::find_by_id(comment_id)
            .one(&txn)
            .await?
            .is_some_and(|c| c.ticket_id == ticket_id && c.deleted_at.is_none());
        if !on_ticket {
            return Err(AppError::field(
                "comment",
                format!("comment {comment_id} is not on this ticket"),
            ));
        }
    }
    let saved = time_entry::ActiveModel {
        id: ActiveValue::NotSet,
        ticket_id: Set(ticket_id),
        comment_id: Set(entry.comment_id),
        user_id: Set(actor.id()),
        minutes: Set(minutes),
        spent_on: Set(spent_on),
        billable: Set(entry.billable.unwrap_or(true)),
        activity: Set(activity),
        created_at: Set(Utc::now()),
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", ticket_id, "log_time")
            .ticket(ticket_id)
            .internal(true)
            .changes(json!({ "minutes": [null, minutes], "spent_on": [null, spent_on] })),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}

/// The user names of `ids` (who spent time is shown to the team by name).
pub async fn usernames(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, String>> {
    let ids: Vec<i32> = ids.into_iter().collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(entity::user::Entity::find()
        .select_only()
        .column(entity::user::Column::Id)
        .column(entity::user::Column::Username)
        .filter(entity::user::Column::Id.is_in(ids))
        .into_tuple::<(i32, String)>()
        .all(db)
        .await?
        .into_iter()
        .collect())
}

/// Remove an entry of ticket `ticket_id`: its author's, or any as an administrator (404 otherwise).
pub async fn delete(
    db: &crate::db::Db,
    actor: &Actor,
    ticket_id: i32,
    entry_id: i32,
) -> AppResult<()> {
    let txn = db.begin_write().await?;
    let t = tickets::get(&txn, actor, ticket_id).await?;
    may_log(actor, &t)?;
    let found = time_entry::Entity::find_by_id(entry_id)
        .filter(time_entry::Column::TicketId.eq(ticket_id))
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("time entry"))?;
    if found.user_id != actor.id() && !actor.is_admin() {
        return Err(AppError::forbidden(
            "only its author or an administrator removes a time entry",
        ));
    }
    time_entry::Entity::delete_by_id(found.id)
        .exec(&txn)
        .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", ticket_id, "delete_time")
            .ticket(ticket_id)
            .internal(true)
            .changes(
                json!({ "minutes": [found.minutes, null], "spent_on": [found.spent_on, null] }),
            ),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// The entries of a ticket, newest day first, and their total in minutes (404 when the actor cannot see the
/// ticket, 403 when they do not work on it).
pub async fn of_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<(Vec<time_entry::Model>, i64)> {
    let t = tickets::get(db, actor, ticket_id).await?;
    may_log(actor, &t)?;
    let entries = time_entry::Entity::find()
        .filter(time_entry::Column::TicketId.eq(ticket_id))
        .order_by_desc(time_entry::Column::SpentOn)
        .order_by_desc(time_entry::Column::Id)
        .all(db)
        .await?;
    let total = entries.iter().map(|e| i64::from(e.minutes)).sum();
    Ok((entries, total))
}

/// The minutes spent on each of `ticket_ids` whose time the actor may read (the team's, and its workers');
/// one statement for any number. Tickets without time, or not theirs to read, are absent.
pub async fn totals_of_tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
) -> AppResult<HashMap<i32, i64>> {
    if ticket_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let readable = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::Id)
        .filter(ticket::Column::Id.is_in(ticket_ids.iter().copied()))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::internally_readable(actor));
    let rows: Vec<(i32, i64)> = time_entry::Entity::find()
        .select_only()
        .column(time_entry::Column::TicketId)
        .column_as(
            Expr::col(time_entry::Column::Minutes)
                .sum()
                .cast_as(Alias::new("BIGINT")),
            "minutes",
        )
        .filter(time_entry::Column::TicketId.in_subquery(readable.into_query()))
        .group_by(time_entry::Column::TicketId)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows.into_iter().collect())
}

/// What a report looks at; every field narrows.
#[derive(Debug, Clone, Default)]
pub struct ReportFilter {
    /// Spent by this user.
    pub user_id: Option<i32>,
    /// On tickets assigned to this group.
    pub group_id: Option<i32>,
    /// On tickets of this project.
    pub project_id: Option<i32>,
    /// On this ticket.
    pub ticket_id: Option<i32>,
    /// From this day on.
    pub from: Option<NaiveDate>,
    /// Up to this day.
    pub to: Option<NaiveDate>,
    /// Only billable (or only not billable) time.
    pub billable: Option<bool>,
}

/// How a report adds time up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// By who spent it.
    Agent,
    /// By the ticket's assigned group.
    Group,
    /// By the ticket's project.
    Project,
    /// By month (`2026-11`).
    Month,
}

impl GroupBy {
    /// From a client's spelling (400 on `group_by`).
    pub fn parse(field: &str, value: &str) -> AppResult<GroupBy> {
        match value.trim().to_ascii_lowercase().as_str() {
            "agent" => Ok(GroupBy::Agent),
            "group" => Ok(GroupBy::Group),
            "project" => Ok(GroupBy::Project),
            "month" => Ok(GroupBy::Month),
            _ => Err(AppError::field(
                field,
                "must be one of: agent, group, project, month",
            )),
        }
    }
}

/// One line of a report's totals: the key (a user, group or project id, or a month), and its minutes.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct Total {
    /// The id, `YYYY-MM`, or empty for "none" (no group or project).
    pub key: String,
    /// Minutes.
    pub minutes: i64,
    /// Of which billable.
    pub billable_minutes: i64,
}

/// A time report.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every matching minute.
    pub total_minutes: i64,
    /// Of which billable.
    pub billable_minutes: i64,
    /// The newest entries, at most [`MAX_LISTED`].
    pub entries: Vec<time_entry::Model>,
    /// Totals by the asked grouping, largest first.
    pub groups: Vec<Total>,
}

fn to_ticket() -> RelationDef {
    time_entry::Entity::belongs_to(ticket::Entity)
        .from(time_entry::Column::TicketId)
        .to(ticket::Column::Id)
        .into()
}

fn matching(filter: &ReportFilter) -> Select<time_entry::Entity> {
    let mut select = time_entry::Entity::find()
        .join(JoinType::InnerJoin, to_ticket())
        .filter(ticket::Column::ArchivedAt.is_null());
    if let Some(id) = filter.user_id {
        select = select.filter(time_entry::Column::UserId.eq(id));
    }
    if let Some(id) = filter.group_id {
        select = select.filter(ticket::Column::AssignedGroupId.eq(id));
    }
    if let Some(id) = filter.project_id {
        select = select.filter(ticket::Column::ProjectId.eq(id));
    }
    if let Some(id) = filter.ticket_id {
        select = select.filter(time_entry::Column::TicketId.eq(id));
    }
    if let Some(day) = filter.from {
        select = select.filter(time_entry::Column::SpentOn.gte(day));
    }
    if let Some(day) = filter.to {
        select = select.filter(time_entry::Column::SpentOn.lte(day));
    }
    if let Some(b) = filter.billable {
        select = select.filter(time_entry::Column::Billable.eq(b));
    }
    select
}

/// The time matching `filter`, totalled and grouped (the team's: 403 otherwise).
pub async fn report(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: &ReportFilter,
    group_by: Option<GroupBy>,
) -> AppResult<Report> {
    if !actor.is_team() {
        return Err(AppError::forbidden("time reports are the team's"));
    }
    let billable_sum = || {
        Expr::case(
            Expr::col((time_entry::Entity, time_entry::Column::Billable)).eq(true),
            Expr::col((time_entry::Entity, time_entry::Column::Minutes)),
        )
        .finally(0)
    };
    let minutes = || {
        Func::coalesce([
            Expr::col((time_entry::Entity, time_entry::Column::Minutes)).sum(),
            Expr::val(0),
        ])
    };
    let totals: Option<(i64, i64)> = matching(filter)
        .select_only()
        .column_as(
            Expr::expr(minutes()).cast_as(Alias::new("BIGINT")),
            "minutes",
        )
        .column_as(
            Expr::expr(Func::coalesce([
                Expr::expr(billable_sum()).sum(),
                Expr::val(0),
            ]))
            .cast_as(Alias::new("BIGINT")),
            "billable",
        )
        .into_tuple()
        .one(db)
        .await?;
    let (total_minutes, billable_minutes) = totals.unwrap_or_default();
    let entries = matching(filter)
        .order_by_desc(time_entry::Column::SpentOn)
        .order_by_desc(time_entry::Column::Id)
        .limit(MAX_LISTED)
        .all(db)
        .await?;
    let groups = match group_by {
        None => Vec::new(),
        Some(by) => {
            let key = match by {
                GroupBy::Agent => Expr::col((time_entry::Entity, time_entry::Column::UserId)),
                GroupBy::Group => Expr::col((ticket::Entity, ticket::Column::AssignedGroupId)),
                GroupBy::Project => Expr::col((ticket::Entity, ticket::Column::ProjectId)),
                GroupBy::Month => match db.get_database_backend() {
                    DbBackend::Postgres => Expr::cust("to_char(time_entries.spent_on, 'YYYY-MM')"),
                    _ => Expr::cust("substr(time_entries.spent_on, 1, 7)"),
                },
            };
            let key_text = Expr::expr(Func::coalesce([
                key.clone().cast_as(Alias::new("TEXT")),
                Expr::val(""),
            ]));
            let mut rows: Vec<Total> = matching(filter)
                .select_only()
                .column_as(key_text, "key")
                .column_as(
                    Expr::expr(minutes()).cast_as(Alias::new("BIGINT")),
                    "minutes",
                )
                .column_as(
                    Expr::expr(Func::coalesce([
                        Expr::expr(billable_sum()).sum(),
                        Expr::val(0),
                    ]))
                    .cast_as(Alias::new("BIGINT")),
                    "billable_minutes",
                )
                .group_by(key)
                .into_model::<Total>()
                .all(db)
                .await?;
            rows.sort_by(|a, b| b.minutes.cmp(&a.minutes).then(a.key.cmp(&b.key)));
            rows
        }
    };
    Ok(Report {
        total_minutes,
        billable_minutes,
        entries,
        groups,
    })
}
