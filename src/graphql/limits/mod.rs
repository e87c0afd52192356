//! Checks made on the parsed document, before validation and execution.
//!
//! Document bounds ([`bounds`]): before anything walks a document, its text and its tree are measured
//! (tokens, nesting, fragments, spreads, depth and expanded size through fragments, cycles) and a
//! document over a limit is refused with QUERY_TOO_COMPLEX; the verdict is remembered with the document.
//!
//! Page-size limits: every `first`/`last` argument in the document (literal, or a
//! variable's value or default) must be between 0 and [`MAX_PAGE`], otherwise the whole request is refused
//! with BAD_USER_INPUT and nothing is resolved. The resolvers check again (see `connection.rs`); this makes
//! an oversized page fail fast and as one clear request error instead of a partial result.
//!
//! Closed introspection: when a request has introspection disabled, a document asking for `__schema` or
//! `__type` is refused with UNAUTHENTICATED (async-graphql on its own would silently answer `null`).
//!
//! Cost and budget: each operation is priced ([`cost`], once per parsed document), refused over the node,
//! root-field and one-login limits, and takes its points from its viewer's budget ([`budget`]); documents
//! may come by APQ hash or, in allow-list mode, only from the registered ones ([`allow_list`]).
//!
//! These run in [`Checked`], the executor the HTTP handlers and the WebSocket use, not as a schema
//! extension: any registered extension puts every field of every response through the extension
//! chain, which cost a quarter of a 20-ticket list page's CPU.
pub mod allow_list;
pub mod bounds;
pub mod budget;
mod cache;
pub mod cost;
mod document;
mod execute;
pub mod multipart_cap;

use super::connection::MAX_PAGE;
use super::context::RequestContext;
use super::AppSchema;
use crate::config::GraphqlLimits;
use crate::http::client_ip::ClientAddress;
use async_graphql::futures_util::stream::{self, BoxStream, StreamExt};
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, Selection, SelectionSet,
};
use async_graphql::{
    Data, ErrorExtensionValues, Executor, IntrospectionMode, Name, Pos, Positioned, Request,
    Response, ServerError, ServerResult, Value,
};
pub use budget::RateLimit;
use cache::{document_weight, kept, refused_weight};
pub use cache::{Document, Parsed};
use cost::Price;
pub use document::{check_document, precheck};
use execute::{dry_run, only_rate_limit};
use moka::sync::Cache;
use std::any::TypeId;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Estimated bytes of parsed documents kept ([`document_weight`]).
const REMEMBERED_DOCUMENTS_BYTES: u64 = 8 << 20;
/// Estimated bytes of requests remembered as valid ([`Validated::weight`]).
const REMEMBERED_VALID_BYTES: u64 = 8 << 20;
/// Bytes of one cache entry besides its key and tree (the cache's own bookkeeping, a document's prices).
const ENTRY_BYTES: usize = 1024;

/// The three builds of the served schema [`Checked`] runs requests on.
pub struct Schemas {
    /// Strict validation, for signed-in callers.
    pub strict: AppSchema,
    /// [`ValidationMode::Fast`](async_graphql::ValidationMode::Fast): only for requests validated before.
    pub fast: AppSchema,
    /// Strict validation without field suggestions, for anonymous callers.
    pub anonymous: AppSchema,
}

/// The schema behind [`precheck`], the documents it parsed (with their prices) and the requests it found
/// valid.
///
/// Clients send the same few documents again and again (with other variables); parsing one took 7 % of a
/// 20-ticket list page's CPU, cloning the kept tree is a fraction of that. Validating it again took as
/// much again: validation is a function of the schema, the document, the operation and the variables, so
/// a request equal in all three to one that ran without errors goes to `fast`, the same schema built with
/// [`ValidationMode::Fast`](async_graphql::ValidationMode::Fast) (which still measures complexity and depth against the limits).
/// Prices ([`cost`]) are computed once per document, when it is parsed, unless a page size comes from a
/// variable. A document refused by its [`bounds`] (or that does not parse) is remembered as refused.
///
/// Anonymous callers' requests are validated by `anonymous`, the same schema without "Did you mean …"
/// suggestions in its errors: a caller who has not signed in learns no field names from typos.
#[derive(Clone)]
pub struct Checked {
    schema: AppSchema,
    fast: AppSchema,
    anonymous: AppSchema,
    model: Arc<cost::Model>,
    limits: Arc<GraphqlLimits>,
    documents: Cache<String, Arc<Document>>,
    validated: Cache<Validated, ()>,
    /// Documents allowed to run in allow-list mode ([`allow_list`]), if it is on.
    trusted: Option<Arc<allow_list::Registry>>,
    /// Documents remembered for Automatic Persisted Queries.
    persisted: allow_list::Persisted,
}

/// What validating a request depends on besides the schema.
#[derive(Hash, PartialEq, Eq)]
struct Validated {
    query: String,
    operation: Option<String>,
    variables: String,
}

impl Validated {
    fn of(request: &Request) -> Self {
        Validated {
            query: request.query.clone(),
            operation: request.operation_name.clone(),
            variables: serde_json::to_string(&request.variables).unwrap_or_default(),
        }
    }

    /// Its three strings and the entry.
    fn weight(&self) -> u32 {
        let operation = self.operation.as_ref().map_or(0, String::len);
        let bytes = self.query.len() + self.variables.len() + operation + ENTRY_BYTES / 4;
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }
}

impl Checked {
    /// Wrap `schema`, `fast`, the same schema built with [`ValidationMode::Fast`](async_graphql::ValidationMode::Fast),
    /// and `anonymous`, built without suggestions; `limits`: the document bounds and cost limits;
    /// `trusted`: the allow-list, when that mode is on.
    pub fn new(
        schemas: Schemas,
        model: Arc<cost::Model>,
        limits: GraphqlLimits,
        trusted: Option<Arc<allow_list::Registry>>,
    ) -> Self {
        let documents = Cache::builder()
            .weigher(
                |query: &String, document: &Arc<Document>| match document.as_ref() {
                    Document::Parsed(_) => document_weight(query),
                    Document::Refused(_) => refused_weight(query),
                },
            )
            .max_capacity(REMEMBERED_DOCUMENTS_BYTES)
            .build();
        let validated = Cache::builder()
            .weigher(|request: &Validated, _: &()| request.weight())
            .max_capacity(REMEMBERED_VALID_BYTES)
            .build();
        Checked {
            schema: schemas.strict,
            fast: schemas.fast,
            anonymous: schemas.anonymous,
            model,
            limits: Arc::new(limits),
            documents,
            validated,
            trusted,
            persisted: allow_list::Persisted::default(),
        }
    }

    /// Take the request's points from its viewer's budget ([`RateLimit`], for `rateLimit` and the
    /// headers), and refuse it when over the budget or when its operation breaks a limit. A request that
    /// does not run takes one point, so refused and broken documents are paced too.
    async fn admit(&self, request: &mut Request) -> Result<Option<RateLimit>, Refused> {
        let Some(config) = context(request).map(|ctx| ctx.state.config.clone()) else {
            // Not through a door (no viewer to charge): the limits still hold.
            let checked = self.check(request, &GraphqlLimits::default());
            return checked.map(|_| None).map_err(Refused::limit);
        };
        let checked = self.check(request, &config.graphql);
        let dry_run = checked.is_ok() && dry_run(request);
        let client = request
            .data
            .get(&TypeId::of::<ClientAddress>())
            .and_then(|c| c.downcast_ref::<ClientAddress>())
            .and_then(|c| c.0);
        let Some(ctx) = context(request) else {
            return checked.map(|_| None).map_err(Refused::limit);
        };
        let price = checked.as_ref().ok().copied().flatten();
        let amount = match price {
            Some(price) if !dry_run => price.cost.max(1),
            _ => 1,
        };
        let rate = budget::charge(ctx, client, price, amount, dry_run).await;
        if !rate.allowed {
            return Err(Refused(budget::refused(&rate), Some(rate)));
        }
        if let Err(error) = checked {
            return Err(Refused(error, Some(rate)));
        }
        if dry_run {
            only_rate_limit(request);
        }
        Ok(Some(rate))
    }

    /// Check `request` against the limits, and price it (`None`: its document does not parse or names
    /// no operation, which the executor reports).
    fn check(&self, request: &mut Request, limits: &GraphqlLimits) -> ServerResult<Option<Price>> {
        if let Some(Document::Refused(refusal)) = kept(request).as_deref() {
            return Err(refusal.clone());
        }
        precheck(request)?;
        if let Some(trusted) = &self.trusted {
            trusted.check(request)?;
        }
        let Some(price) = self.price(request) else {
            return Ok(None);
        };
        if price.root_fields > limits.max_root_fields {
            return Err(refusal(
                format!(
                    "an operation may select at most {} root fields, aliases included (got {})",
                    limits.max_root_fields, price.root_fields
                ),
                "BAD_USER_INPUT",
                &[
                    ("rootFields", price.root_fields as u64),
                    ("limit", limits.max_root_fields as u64),
                ],
            ));
        }
        if price.sensitive > 1 {
            return Err(refusal(
                "`login` and `createApiToken` may appear at most once per request".to_string(),
                "BAD_USER_INPUT",
                &[],
            ));
        }
        if price.counts > limits.max_counts {
            return Err(refusal(
                format!(
                    "an operation may run at most {} counts (`totalCount`, aliases and the lists above \
                     it included); this one could run {}",
                    limits.max_counts, price.counts
                ),
                "QUERY_TOO_COSTLY",
                &[
                    ("counts", price.counts),
                    ("cost", price.cost),
                    ("limit", limits.max_counts),
                ],
            ));
        }
        if price.node_count > limits.max_nodes {
            return Err(refusal(
                format!(
                    "this query could return {} nodes, over the limit of {}; ask for smaller pages",
                    price.node_count, limits.max_nodes
                ),
                "QUERY_TOO_COSTLY",
                &[
                    ("nodeCount", price.node_count),
                    ("cost", price.cost),
                    ("limit", limits.max_nodes),
                ],
            ));
        }
        Ok(Some(price))
    }
}

/// The request's context, put there by the door.
fn context(request: &Request) -> Option<&RequestContext> {
    request
        .data
        .get(&TypeId::of::<RequestContext>())
        .and_then(|ctx| ctx.downcast_ref::<RequestContext>())
}

/// Why a request does not run, and the budget after it when it was charged.
struct Refused(ServerError, Option<RateLimit>);

impl Refused {
    fn limit(error: ServerError) -> Self {
        Refused(error, None)
    }
}

/// An error refusing the whole request, with `code` and `figures` in its extensions.
pub fn refusal(message: String, code: &str, figures: &[(&str, u64)]) -> ServerError {
    let mut error = ServerError::new(message, None);
    let mut extensions = ErrorExtensionValues::default();
    extensions.set("code", code);
    for (name, value) in figures {
        extensions.set(*name, *value);
    }
    error.extensions = Some(extensions);
    error
}
