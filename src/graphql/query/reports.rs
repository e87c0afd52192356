//! `ticketReport`: the team's ticket report (`service::reports`).
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::scalars::Date;
use crate::service::reports::{
    self, Attainment, Dimension, Durations, Line, Metric, ReportRequest,
};
use async_graphql::{Context, Enum, InputObject, Object, Result, SimpleObject, ID};

/// The report query.
#[derive(Default)]
pub struct ReportQuery;

/// What a ticket report covers; every field narrows.
#[derive(InputObject, Default)]
pub struct TicketReportFilter {
    /// First day (UTC), included; 30 days before `to` when absent.
    from: Option<Date>,
    /// Last day (UTC), included; today when absent.
    to: Option<Date>,
    /// Only tickets of this project.
    project_id: Option<ID>,
    /// Only tickets assigned to this group.
    group_id: Option<ID>,
}

/// What a report's lines are split by.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TicketReportDimension {
    /// The assigned group (its name).
    Group,
    /// The assignee (their username).
    Agent,
    /// The priority.
    Priority,
    /// The project (its name).
    Project,
    /// The day, `2026-11-29` (UTC).
    Day,
    /// The ISO week, `2026-W48` (UTC).
    Week,
    /// The month, `2026-11` (UTC).
    Month,
}

/// A figure of a report's lines, for `ticketReport(metrics:)`.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TicketReportMetric {
    /// `created`.
    Created,
    /// `resolved`.
    Resolved,
    /// `reopened`.
    Reopened,
    /// `firstResponse`.
    FirstResponse,
    /// `firstResponseBusiness`.
    FirstResponseBusiness,
    /// `resolution`.
    Resolution,
    /// `firstResponseSla`.
    FirstResponseSla,
    /// `resolutionSla`.
    ResolutionSla,
    /// `timeWaiting`.
    TimeWaiting,
    /// `timeInProgress`.
    TimeInProgress,
}

impl From<TicketReportMetric> for Metric {
    fn from(m: TicketReportMetric) -> Self {
        match m {
            TicketReportMetric::Created => Metric::Created,
            TicketReportMetric::Resolved => Metric::Resolved,
            TicketReportMetric::Reopened => Metric::Reopened,
            TicketReportMetric::FirstResponse => Metric::FirstResponse,
            TicketReportMetric::FirstResponseBusiness => Metric::FirstResponseBusiness,
            TicketReportMetric::Resolution => Metric::Resolution,
            TicketReportMetric::FirstResponseSla => Metric::FirstResponseSla,
            TicketReportMetric::ResolutionSla => Metric::ResolutionSla,
            TicketReportMetric::TimeWaiting => Metric::TimeWaiting,
            TicketReportMetric::TimeInProgress => Metric::TimeInProgress,
        }
    }
}

impl From<TicketReportDimension> for Dimension {
    fn from(d: TicketReportDimension) -> Self {
        match d {
            TicketReportDimension::Group => Dimension::Group,
            TicketReportDimension::Agent => Dimension::Agent,
            TicketReportDimension::Priority => Dimension::Priority,
            TicketReportDimension::Project => Dimension::Project,
            TicketReportDimension::Day => Dimension::Day,
            TicketReportDimension::Week => Dimension::Week,
            TicketReportDimension::Month => Dimension::Month,
        }
    }
}

impl From<Dimension> for TicketReportDimension {
    fn from(d: Dimension) -> Self {
        match d {
            Dimension::Group => TicketReportDimension::Group,
            Dimension::Agent => TicketReportDimension::Agent,
            Dimension::Priority => TicketReportDimension::Priority,
            Dimension::Project => TicketReportDimension::Project,
            Dimension::Day => TicketReportDimension::Day,
            Dimension::Week => TicketReportDimension::Week,
            Dimension::Month => TicketReportDimension::Month,
        }
    }
}

/// Durations in minutes.
#[derive(SimpleObject)]
pub struct DurationStats {
    /// How many.
    count: i64,
    /// The median, in minutes (null without any).
    median_minutes: Option<f64>,
    /// The 90th percentile, in minutes (null without any).
    p90_minutes: Option<f64>,
}

impl From<Durations> for DurationStats {
    fn from(d: Durations) -> Self {
        DurationStats {
            count: i64::try_from(d.count).unwrap_or(i64::MAX),
            median_minutes: d.median,
            p90_minutes: d.p90,
        }
    }
}

/// How often an SLA target was met.
#[derive(SimpleObject)]
pub struct SlaAttainment {
    /// Met.
    met: i64,
    /// Missed.
    missed: i64,
    /// Met among met and missed, from 0 to 1 (null when none was decided).
    rate: Option<f64>,
}

impl From<Attainment> for SlaAttainment {
    fn from(a: Attainment) -> Self {
        SlaAttainment {
            met: i64::try_from(a.met).unwrap_or(i64::MAX),
            missed: i64::try_from(a.missed).unwrap_or(i64::MAX),
            rate: a.rate(),
        }
    }
}

/// What a line is, for one dimension.
#[derive(SimpleObject)]
pub struct TicketReportKey {
    /// The dimension.
    dimension: TicketReportDimension,
    /// A name, a priority or a period; null for none (unassigned, no project).
    value: Option<String>,
}

/// One line of a ticket report. See `ticketReport` for what each figure counts.
#[derive(SimpleObject)]
pub struct TicketReportLine {
    /// What this line is, one key per dimension of `groupBy` (none for the total).
    keys: Vec<TicketReportKey>,
    /// Tickets created.
    created: i64,
    /// Tickets resolved (or closed; merged duplicates are not).
    resolved: i64,
    /// Moves of the created tickets back out of a done status.
    reopened: i64,
    /// From creation to the first public comment of the team, of the created tickets.
    first_response: DurationStats,
    /// The same in business minutes, of the created tickets an SLA policy governed when they were answered
    /// (under its calendar).
    first_response_business: DurationStats,
    /// From creation to resolution, of the resolved tickets.
    resolution: DurationStats,
    /// First-response targets of the created tickets.
    first_response_sla: SlaAttainment,
    /// Resolution targets of the resolved tickets.
    resolution_sla: SlaAttainment,
    /// Time in a to-do status (new, open), of the resolved tickets whose moves were kept.
    time_waiting: DurationStats,
    /// Time in an in-progress status (in progress, on hold, blocked), of the resolved tickets whose moves
    /// were kept.
    time_in_progress: DurationStats,
}

impl From<Line> for TicketReportLine {
    fn from(l: Line) -> Self {
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        TicketReportLine {
            keys: l
                .keys
                .into_iter()
                .map(|k| TicketReportKey {
                    dimension: k.dimension.into(),
                    value: k.value,
                })
                .collect(),
            created: count(l.created),
            resolved: count(l.resolved),
            reopened: count(l.reopened),
            first_response: l.first_response.into(),
            first_response_business: l.first_response_business.into(),
            resolution: l.resolution.into(),
            first_response_sla: l.first_response_sla.into(),
            resolution_sla: l.resolution_sla.into(),
            time_waiting: l.waiting.into(),
            time_in_progress: l.in_progress.into(),
        }
    }
}

/// A ticket report.
#[derive(SimpleObject)]
pub struct TicketReport {
    /// First day covered.
    from: Date,
    /// Last day covered.
    to: Date,
    /// One line per combination of keys that has tickets, periods in time order.
    lines: Vec<TicketReportLine>,
    /// Over every ticket.
    total: TicketReportLine,
}

#[Object]
impl ReportQuery {
    /// The team's ticket report (FORBIDDEN otherwise): tickets created and resolved, reopened, the times to
    /// the first response and to resolution (medians and 90th percentiles, in wall-clock minutes), and how
    /// often SLA targets were met, in all and split by `groupBy` (at most one of DAY, WEEK and MONTH).
    /// Created tickets count where they were created, resolved ones where they were resolved; see
    /// docs/reports.md. A range of more than 100,000 tickets is refused: narrow it. `metrics` names the
    /// figures the report is about: a line is listed only when it has one of them (with `groupBy: [AGENT]`
    /// and `metrics: [RESOLVED]`, the agents who resolved tickets); every figure is still given, as they come
    /// from the same read.
    async fn ticket_report(
        &self,
        ctx: &Context<'_>,
        filter: Option<TicketReportFilter>,
        group_by: Option<Vec<TicketReportDimension>>,
        metrics: Option<Vec<TicketReportMetric>>,
    ) -> Result<TicketReport> {
        let (req, actor) = viewer(ctx)?;
        let f = filter.unwrap_or_default();
        let to =
            f.to.map_or_else(|| chrono::Utc::now().date_naive(), |d| d.0);
        let mut request = ReportRequest::recent(to);
        if let Some(from) = f.from {
            request.from = from.0;
        }
        request.project_id = ids::decode_opt(f.project_id.as_ref(), "Project", "projectId")?;
        request.group_id = ids::decode_opt(f.group_id.as_ref(), "Group", "groupId")?;
        request.group_by = group_by
            .unwrap_or_default()
            .into_iter()
            .map(Dimension::from)
            .collect();
        request.metrics = metrics
            .unwrap_or_default()
            .into_iter()
            .map(Metric::from)
            .collect();
        let report = reports::tickets(&req.state.db.conn, &actor, &request).await?;
        Ok(TicketReport {
            from: Date(report.from),
            to: Date(report.to),
            lines: report.lines.into_iter().map(Into::into).collect(),
            total: report.total.into(),
        })
    }
}
