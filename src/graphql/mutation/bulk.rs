//! `bulkUpdateTickets`: the same change to many tickets, named or found by a filter, made by the worker.
use crate::domain::{Priority, TicketStatus};
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::query::ticket_inputs::TicketFilter;
use crate::graphql::scalars::Date;
use crate::graphql::types::BulkJob;
use crate::service::tickets::bulk::{self, Target};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};
use serde_json::{json, Map, Value};

/// Bulk mutations.
#[derive(Default)]
pub struct BulkMutation;

/// What a bulk change sets; absent fields stay, null clears.
#[derive(InputObject)]
pub struct BulkTicketChanges {
    /// New status (workflow-checked per ticket).
    status: Option<TicketStatus>,
    /// New priority.
    priority: Option<Priority>,
    /// New assignee, or null for none.
    assignee_id: MaybeUndefined<ID>,
    /// New assigned group, or null for none.
    assigned_group_id: MaybeUndefined<ID>,
    /// New project, or null for none.
    project_id: MaybeUndefined<ID>,
    /// New due date, or null for none.
    due_date: MaybeUndefined<Date>,
    /// Tags to put on.
    add_tags: Option<Vec<String>>,
    /// Tags to take off.
    remove_tags: Option<Vec<String>>,
}

/// Tickets by id or by filter, and the change.
#[derive(InputObject)]
pub struct BulkUpdateTicketsInput {
    /// 1 to 10,000 tickets; or give `filter`.
    ticket_ids: Option<Vec<ID>>,
    /// Every ticket the viewer may see that matches (at most 10,000); or give `ticketIds`.
    filter: Option<TicketFilter>,
    /// What to set.
    changes: BulkTicketChanges,
}

/// The queued job.
#[derive(SimpleObject)]
pub struct BulkUpdateTicketsPayload {
    /// Follow it with `bulkJob(id)` or `GET /api/jobs/<id>/`.
    job: BulkJob,
}

fn id_change(
    map: &mut Map<String, Value>,
    key: &str,
    value: &MaybeUndefined<ID>,
    kind: &str,
    field: &str,
) -> Result<()> {
    match value {
        MaybeUndefined::Undefined => {}
        MaybeUndefined::Null => {
            map.insert(key.into(), Value::Null);
        }
        MaybeUndefined::Value(id) => {
            map.insert(key.into(), json!(ids::decode(id, kind, field)?));
        }
    }
    Ok(())
}

impl BulkTicketChanges {
    /// The change in the REST spelling the service reads.
    fn to_json(&self) -> Result<Value> {
        let mut map = Map::new();
        if let Some(s) = self.status {
            map.insert("status".into(), json!(s.as_str()));
        }
        if let Some(p) = self.priority {
            map.insert("priority".into(), json!(p.as_str()));
        }
        id_change(
            &mut map,
            "assigned_to",
            &self.assignee_id,
            "User",
            "changes.assigneeId",
        )?;
        id_change(
            &mut map,
            "assigned_group",
            &self.assigned_group_id,
            "Group",
            "changes.assignedGroupId",
        )?;
        id_change(
            &mut map,
            "project",
            &self.project_id,
            "Project",
            "changes.projectId",
        )?;
        match &self.due_date {
            MaybeUndefined::Undefined => {}
            MaybeUndefined::Null => {
                map.insert("due_date".into(), Value::Null);
            }
            MaybeUndefined::Value(d) => {
                map.insert("due_date".into(), json!(d.0.format("%Y-%m-%d").to_string()));
            }
        }
        if let Some(names) = &self.add_tags {
            map.insert("add_tags".into(), json!(names));
        }
        if let Some(names) = &self.remove_tags {
            map.insert("remove_tags".into(), json!(names));
        }
        Ok(Value::Object(map))
    }
}

#[Object]
impl BulkMutation {
    /// Change many tickets at once (team members). Each ticket gets the checks a change by hand gets, in
    /// its own transaction; a ticket that cannot be changed is reported in the job's `failures`.
    async fn bulk_update_tickets(
        &self,
        ctx: &Context<'_>,
        input: BulkUpdateTicketsInput,
    ) -> Result<BulkUpdateTicketsPayload> {
        let (req, actor) = viewer(ctx)?;
        let target = match (input.ticket_ids, input.filter) {
            (Some(_), Some(_)) => {
                return Err(crate::error::AppError::field(
                    "ticketIds",
                    "give either ticketIds or filter",
                )
                .into())
            }
            (Some(list), None) => Target::Ids(
                list.iter()
                    .map(|id| ids::decode(id, "Ticket", "ticketIds"))
                    .collect::<Result<Vec<i32>, _>>()?,
            ),
            (None, Some(filter)) => Target::Filter(
                filter
                    .into_service(&req.state.db.conn, &req.state.custom_fields, &actor)
                    .await?,
            ),
            (None, None) => {
                return Err(
                    crate::error::AppError::field("ticketIds", "give ticketIds or filter").into(),
                )
            }
        };
        let changes = input.changes.to_json()?;
        let job = bulk::start(
            &req.state.db,
            &req.state.ticket_reads,
            crate::domain::Channel::Graphql,
            &actor,
            target,
            &changes,
        )
        .await?;
        Ok(BulkUpdateTicketsPayload { job: BulkJob(job) })
    }
}
