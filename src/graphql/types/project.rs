//! `Project`: a group of tickets, with its batched ticket count and a connection of visible tickets.
use crate::graphql::connection::PageArgs;
use crate::graphql::context::{load_error, viewer};
use crate::graphql::ids;
use crate::graphql::loaders::ProjectTicketCountKey;
use crate::graphql::plain::{self, Env, Plain};
use crate::graphql::query::tickets::{ticket_connection, TicketConnection};
use crate::service::tickets::TicketFilter;
use async_graphql::parser::types::Field;
use async_graphql::{Context, Object, Result, ScalarType, Value, ID};
use chrono::{DateTime, Utc};
use entity::project;

/// A project that groups tickets.
#[derive(Clone)]
pub struct Project(pub project::Model);

impl Plain for Project {
    const NAME: &'static str = "Project";
    const INTERFACES: &'static [&'static str] = &["Node"];

    fn field(&self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let p = &self.0;
        Some(match field.name.node.as_str() {
            "id" => Value::String(ids::encode("Project", p.id).0),
            "databaseId" => Value::from(p.id),
            "name" => Value::String(p.name.clone()),
            "description" => Value::String(p.description.clone()),
            "ticketCount" => {
                let count = plain::cached(&env.req.loader, ProjectTicketCountKey(p.id))?;
                Value::from(count.unwrap_or(0))
            }
            "createdAt" => p.created_at.to_value(),
            _ => return None,
        })
    }
}

#[Object]
impl Project {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Project", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name (unique).
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// Description.
    async fn description(&self) -> &str {
        &self.0.description
    }

    /// Non-archived tickets in the project (as REST's `ticket_count`).
    async fn ticket_count(&self, ctx: &Context<'_>) -> Result<i64> {
        let (req, _) = viewer(ctx)?;
        let count = req
            .loader
            .load_one(ProjectTicketCountKey(self.0.id))
            .await
            .map_err(load_error)?;
        Ok(count.unwrap_or(0))
    }

    /// When it was created.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// The project's tickets the viewer may see, newest first.
    async fn tickets(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<TicketConnection> {
        let filter = TicketFilter {
            project_id: Some(self.0.id),
            ..Default::default()
        };
        let args = PageArgs {
            first,
            after,
            ..Default::default()
        };
        ticket_connection(ctx, filter, Default::default(), args).await
    }
}
