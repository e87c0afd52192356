//! [`Checked`] as the executor of every door: admit, run (validated once per distinct request), set the
//! budget's headers; and dry runs, which keep only `rateLimit`.
use super::*;

/// Requests over HTTP come parsed ([`Checked::parse`]: the handler reads the operation first); the
/// WebSocket's are parsed here.
impl Executor for Checked {
    async fn execute(&self, mut request: Request) -> Response {
        if kept(&request).is_none() {
            if let Err(error) = self.parse(&mut request) {
                return Response::from_errors(vec![error]);
            }
        }
        let rate = match self.admit(&mut request).await {
            Ok(rate) => rate,
            Err(Refused(error, rate)) => {
                let mut response = Response::from_errors(vec![error]);
                if let Some(rate) = rate {
                    budget::set_headers(&mut response.http_headers, &rate);
                }
                return response;
            }
        };
        if let Some(rate) = rate {
            request = request.data(rate);
        }
        let validated = Validated::of(&request);
        let mut response =
            if rate.is_some_and(|r| r.dry_run) || self.validated.contains_key(&validated) {
                // A dry run keeps only `rateLimit` of its document: unused fragments and variables are not
                // errors there.
                self.fast.execute(request).await
            } else {
                let response = self.validating(&request).execute(request).await;
                // No errors at all: it passed validation (an error-free run of an invalid request is impossible).
                if response.errors.is_empty() {
                    self.validated.insert(validated, ());
                }
                response
            };
        if let Some(rate) = rate {
            budget::set_headers(&mut response.http_headers, &rate);
        }
        response
    }

    fn execute_stream(
        &self,
        mut request: Request,
        session_data: Option<Arc<Data>>,
    ) -> BoxStream<'static, Response> {
        // A subscription takes its cost when it starts, as a query would: what its selection could return
        // for one event. The events that follow are not charged (each is read for its subscriber).
        let this = self.clone();
        stream::once(async move {
            let admitted = match this.parse(&mut request) {
                Ok(()) => this.admit(&mut request).await.map_err(|Refused(e, _)| e),
                Err(error) => Err(error),
            };
            match admitted {
                Ok(_) => {
                    let schema = this.validating(&request).clone();
                    Executor::execute_stream(&schema, request, session_data)
                }
                Err(error) => {
                    stream::once(async move { Response::from_errors(vec![error]) }).boxed()
                }
            }
        })
        .flatten()
        .boxed()
    }
}

impl Checked {
    /// The schema that validates `request` in full: without suggestions unless its caller signed in.
    fn validating(&self, request: &Request) -> &AppSchema {
        let signed_in = context(request).is_some_and(|ctx| ctx.auth.actor().is_some());
        if signed_in {
            &self.schema
        } else {
            &self.anonymous
        }
    }
}

/// Whether the operation selects `rateLimit(dryRun: true)` at its root.
pub(super) fn dry_run(request: &mut Request) -> bool {
    let operation_name = request.operation_name.clone();
    let variables = std::mem::take(&mut request.variables);
    let found = selects_dry_run(request, operation_name.as_deref(), &variables);
    request.variables = variables;
    found
}

fn selects_dry_run(
    request: &mut Request,
    operation_name: Option<&str>,
    variables: &async_graphql::Variables,
) -> bool {
    let Ok(document) = request.parsed_query() else {
        return false;
    };
    let Some((_, operation)) = cost::operation(document, operation_name) else {
        return false;
    };
    operation
        .node
        .selection_set
        .node
        .items
        .iter()
        .any(|item| match &item.node {
            Selection::Field(field) if field.node.name.node == RATE_LIMIT_FIELD => field
                .node
                .get_argument("dryRun")
                .and_then(|value| {
                    value
                        .node
                        .clone()
                        .into_const_with(|var| variables.get(&var).cloned().ok_or(()))
                        .ok()
                })
                .is_some_and(|value| value == Value::Boolean(true)),
            _ => false,
        })
}

/// The root field that reports the budget.
const RATE_LIMIT_FIELD: &str = "rateLimit";

/// Keep only the root `rateLimit` and `__typename` fields of the request's operation: a dry run runs
/// nothing else.
pub(super) fn only_rate_limit(request: &mut Request) {
    let operation_name = request.operation_name.clone();
    let Ok(document) = request.parsed_query() else {
        return;
    };
    let mut document = document.clone();
    let operation = match &mut document.operations {
        DocumentOperations::Single(op) => Some(op),
        DocumentOperations::Multiple(ops) => match operation_name.as_deref() {
            Some(name) => ops.get_mut(name),
            None => ops.values_mut().next(),
        },
    };
    if let Some(operation) = operation {
        operation.node.selection_set.node.items.retain(|item| {
            matches!(&item.node, Selection::Field(f)
                if f.node.name.node == RATE_LIMIT_FIELD || f.node.name.node == "__typename")
        });
    }
    request.set_parsed_query(document);
}
