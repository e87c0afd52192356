//! SLA policy administration: create, update, delete (administrators only).
use crate::domain::{Priority, TicketStatus};
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use crate::graphql::types::sla::SlaWeekday;
use crate::graphql::types::SlaPolicy;
use crate::service::sla::policies::{self, CalendarInput, DayHours, NewPolicy, PolicyPatch};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};

/// SLA policy mutations.
#[derive(Default)]
pub struct SlaMutation;

/// Opening hours of one weekday.
#[derive(InputObject)]
pub struct BusinessHoursInput {
    /// The weekday.
    day: SlaWeekday,
    /// Opening time, `HH:MM`.
    open: String,
    /// Closing time, `HH:MM` (`24:00` allowed).
    close: String,
}

/// A business-hours calendar. With no hours the calendar is open around the clock (apart from holidays).
#[derive(InputObject)]
pub struct SlaCalendarInput {
    /// IANA time zone name (default `UTC`).
    time_zone: Option<String>,
    /// Opening hours; weekdays not listed are closed.
    hours: Option<Vec<BusinessHoursInput>>,
    /// Closed dates.
    holidays: Option<Vec<Date>>,
}

impl From<SlaCalendarInput> for CalendarInput {
    fn from(c: SlaCalendarInput) -> Self {
        CalendarInput {
            time_zone: c.time_zone,
            hours: c
                .hours
                .unwrap_or_default()
                .into_iter()
                .map(|h| DayHours {
                    day: h.day.into(),
                    open: h.open,
                    close: h.close,
                })
                .collect(),
            holidays: c
                .holidays
                .unwrap_or_default()
                .into_iter()
                .map(|d| d.0)
                .collect(),
        }
    }
}

/// A new policy.
#[derive(InputObject)]
pub struct CreateSlaPolicyInput {
    /// Unique name.
    name: String,
    /// The priority it matches.
    priority: Priority,
    /// Only tickets of this project.
    project_id: Option<ID>,
    /// Only tickets assigned to this group.
    group_id: Option<ID>,
    /// Business minutes until the first response.
    first_response_minutes: i32,
    /// Business minutes until resolution.
    resolution_minutes: i32,
    /// Business hours (default: around the clock in UTC).
    calendar: Option<SlaCalendarInput>,
    /// Statuses that stop the clock (default `ON_HOLD`, `BLOCKED`).
    pause_statuses: Option<Vec<TicketStatus>>,
}

/// The created policy.
#[derive(SimpleObject)]
pub struct CreateSlaPolicyPayload {
    /// The policy.
    sla_policy: SlaPolicy,
}

/// A change to a policy; absent fields stay as they are, `null` clears the project or group.
#[derive(InputObject)]
pub struct UpdateSlaPolicyInput {
    /// Global id of the policy.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New priority.
    priority: Option<Priority>,
    /// New project restriction.
    project_id: MaybeUndefined<ID>,
    /// New group restriction.
    group_id: MaybeUndefined<ID>,
    /// New first-response target.
    first_response_minutes: Option<i32>,
    /// New resolution target.
    resolution_minutes: Option<i32>,
    /// New calendar.
    calendar: Option<SlaCalendarInput>,
    /// New pause statuses.
    pause_statuses: Option<Vec<TicketStatus>>,
}

/// The changed policy.
#[derive(SimpleObject)]
pub struct UpdateSlaPolicyPayload {
    /// The policy.
    sla_policy: SlaPolicy,
}

/// Which policy to delete.
#[derive(InputObject)]
pub struct DeleteSlaPolicyInput {
    /// Global id of the policy.
    id: ID,
}

/// The deleted policy's id.
#[derive(SimpleObject)]
pub struct DeleteSlaPolicyPayload {
    /// Global id of the deleted policy.
    deleted_sla_policy_id: ID,
}

fn maybe_id(value: MaybeUndefined<ID>, kind: &str, field: &str) -> Result<Option<Option<i32>>> {
    Ok(match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(id) => Some(Some(ids::decode(&id, kind, field)?)),
    })
}

#[Object]
impl SlaMutation {
    /// Add an SLA policy (administrators only).
    async fn create_sla_policy(
        &self,
        ctx: &Context<'_>,
        input: CreateSlaPolicyInput,
    ) -> Result<CreateSlaPolicyPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewPolicy {
            name: input.name,
            priority: Some(input.priority),
            project_id: ids::decode_opt(input.project_id.as_ref(), "Project", "projectId")?,
            group_id: ids::decode_opt(input.group_id.as_ref(), "Group", "groupId")?,
            first_response_minutes: input.first_response_minutes,
            resolution_minutes: input.resolution_minutes,
            calendar: input.calendar.map(Into::into).unwrap_or_default(),
            pause_statuses: input.pause_statuses,
        };
        let saved = policies::create(&req.state.db, &req.state.sla_policies, &actor, new).await?;
        Ok(CreateSlaPolicyPayload {
            sla_policy: SlaPolicy(saved),
        })
    }

    /// Change an SLA policy (administrators only).
    async fn update_sla_policy(
        &self,
        ctx: &Context<'_>,
        input: UpdateSlaPolicyInput,
    ) -> Result<UpdateSlaPolicyPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "SlaPolicy", "id")?;
        let patch = PolicyPatch {
            name: input.name,
            priority: input.priority,
            project_id: maybe_id(input.project_id, "Project", "projectId")?,
            group_id: maybe_id(input.group_id, "Group", "groupId")?,
            first_response_minutes: input.first_response_minutes,
            resolution_minutes: input.resolution_minutes,
            calendar: input.calendar.map(Into::into),
            pause_statuses: input.pause_statuses,
        };
        let saved =
            policies::update(&req.state.db, &req.state.sla_policies, &actor, id, patch).await?;
        Ok(UpdateSlaPolicyPayload {
            sla_policy: SlaPolicy(saved),
        })
    }

    /// Delete an SLA policy (administrators only). Clocks it set keep their due times.
    async fn delete_sla_policy(
        &self,
        ctx: &Context<'_>,
        input: DeleteSlaPolicyInput,
    ) -> Result<DeleteSlaPolicyPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "SlaPolicy", "id")?;
        policies::delete(&req.state.db, &req.state.sla_policies, &actor, id).await?;
        Ok(DeleteSlaPolicyPayload {
            deleted_sla_policy_id: input.id,
        })
    }
}
