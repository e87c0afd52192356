//! `rateLimit`: the viewer's GraphQL points budget, beside any query.
use crate::graphql::limits::budget::{RateLimit, RateLimitObject};
use async_graphql::{Context, Object};

/// The budget query.
#[derive(Default)]
pub struct RateLimitQuery;

#[Object]
impl RateLimitQuery {
    /// The viewer's GraphQL budget after this request, in points (see docs/graphql.md). With
    /// `dryRun: true` the rest of the operation is priced, not run, and the request takes one point.
    async fn rate_limit(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = false)] dry_run: bool,
    ) -> Option<RateLimitObject> {
        // Read before the operation ran (`limits::Checked`); the argument was read there too.
        let _ = dry_run;
        ctx.data_opt::<RateLimit>().map(RateLimitObject::from)
    }
}
