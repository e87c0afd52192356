//! `bulkJob`: a bulk change's progress.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::BulkJob;
use crate::service::tickets::bulk;
use async_graphql::{Context, Object, Result, ID};

/// Queries about bulk changes.
#[derive(Default)]
pub struct BulkQuery;

#[Object]
impl BulkQuery {
    /// A bulk change, to whoever asked for it or an administrator; NOT_FOUND otherwise.
    async fn bulk_job(&self, ctx: &Context<'_>, id: ID) -> Result<BulkJob> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&id, "BulkJob", "id")?;
        Ok(BulkJob(bulk::get(&req.state.db.conn, &actor, id).await?))
    }
}
