//! `slaPolicies`: the service-level policies administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::limits::cost::LIST_MAX;
use crate::graphql::types::SlaPolicy;
use crate::service::sla::policies;
use crate::service::Take;
use async_graphql::{Context, Object, Result};

/// Queries about SLA policies.
#[derive(Default)]
pub struct SlaQuery;

#[Object]
impl SlaQuery {
    /// SLA policies, oldest first: the first 100 (a documented cap, docs/graphql.md). Administrators
    /// only; FORBIDDEN otherwise.
    async fn sla_policies(&self, ctx: &Context<'_>) -> Result<Vec<SlaPolicy>> {
        let (req, actor) = viewer(ctx)?;
        let list = policies::list(&req.state.db, &actor, Take::First(LIST_MAX)).await?;
        Ok(list.into_iter().map(SlaPolicy).collect())
    }
}
