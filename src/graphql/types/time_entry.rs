//! `TimeEntry` and `TimeReport`: time spent on tickets, for the team.
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use async_graphql::{Object, SimpleObject, ID};
use chrono::{DateTime, Utc};
use entity::time_entry;

/// Time someone spent on a ticket.
pub struct TimeEntry {
    /// The entry.
    pub entry: time_entry::Model,
    /// Who spent it, by user name.
    pub username: String,
}

/// Time someone spent on a ticket.
#[Object]
impl TimeEntry {
    /// Global id.
    async fn id(&self) -> ID {
        ids::encode("TimeEntry", self.entry.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.entry.id
    }

    /// The ticket's id (REST integer).
    async fn ticket_database_id(&self) -> i32 {
        self.entry.ticket_id
    }

    /// Who spent it.
    async fn username(&self) -> &str {
        &self.username
    }

    /// Minutes.
    async fn minutes(&self) -> i32 {
        self.entry.minutes
    }

    /// The day.
    async fn spent_on(&self) -> Date {
        Date(self.entry.spent_on)
    }

    /// Billable.
    async fn billable(&self) -> bool {
        self.entry.billable
    }

    /// The kind of work.
    async fn activity(&self) -> &str {
        &self.entry.activity
    }

    /// When it was logged.
    async fn created_at(&self) -> DateTime<Utc> {
        self.entry.created_at
    }
}

/// A line of a report's totals.
#[derive(SimpleObject)]
pub struct TimeTotal {
    /// A user, group or project id (REST integer), or a month (`2026-11`); empty for no group or project.
    pub key: String,
    /// Minutes.
    pub minutes: i64,
    /// Of which billable.
    pub billable_minutes: i64,
}

/// Time spent, totalled and grouped.
#[derive(SimpleObject)]
pub struct TimeReport {
    /// Every matching minute.
    pub total_minutes: i64,
    /// Of which billable.
    pub billable_minutes: i64,
    /// Totals by `groupBy`, largest first.
    pub groups: Vec<TimeTotal>,
    /// The newest matching entries, at most 100 (REST lists 1,000; `totalMinutes` counts them all).
    pub entries: Vec<TimeEntry>,
}
