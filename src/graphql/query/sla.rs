//! `slaPolicies`: the service-level policies administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::types::SlaPolicy;
use crate::service::sla::policies;
use async_graphql::{Context, Object, Result};

/// Queries about SLA policies.
#[derive(Default)]
pub struct SlaQuery;

#[Object]
impl SlaQuery {
    /// Every SLA policy, oldest first (administrators only; FORBIDDEN otherwise).
    async fn sla_policies(&self, ctx: &Context<'_>) -> Result<Vec<SlaPolicy>> {
        let (req, actor) = viewer(ctx)?;
        let list = policies::list(&req.state.db, &actor).await?;
        Ok(list.into_iter().map(SlaPolicy).collect())
    }
}
