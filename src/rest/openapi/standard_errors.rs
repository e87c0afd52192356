//! Adds to every operation the error responses the shared layers can give it, and declares the security
//! schemes. Decided from the operation itself, so a newly documented path gets them without extra words:
//! 429 wherever the rate limit counts, 413 with a body (1 MiB), 400 with a body or query parameters,
//! 401 when authentication is required, 403 for secured writes (and CSRF on the web), 404 with a path id,
//! and on the HTML pages that need a session, 303 to the sign-in page for a visitor without one.
use utoipa::openapi::header::Header;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{Components, ObjectBuilder, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, OpenApi, Ref, RefOr, ResponseBuilder};

/// (status, response name, description) of the standard errors.
const ERRORS: [(&str, &str, &str); 6] = [
    (
        "400",
        "BadRequest",
        "Malformed JSON, wrong types, unknown enum values or invalid fields",
    ),
    (
        "401",
        "Unauthenticated",
        "Missing, unknown, expired or revoked credentials",
    ),
    (
        "403",
        "Forbidden",
        "Not allowed (for web writes also: missing or wrong `X-CSRFToken`)",
    ),
    (
        "404",
        "NotFound",
        "No such record, or not visible to the caller",
    ),
    ("413", "PayloadTooLarge", "Request body over 1 MiB"),
    (
        "429",
        "RateLimited",
        "Over the rate limit, or too many of the caller's requests running at once; retry after `Retry-After` seconds",
    ),
];

/// The response name of a page's redirect to the sign-in page.
const SIGN_IN: &str = "SignIn";

/// The `utoipa` modifier.
pub struct StandardErrors;

impl utoipa::Modify for StandardErrors {
    fn modify(&self, doc: &mut OpenApi) {
        let components = doc.components.get_or_insert_with(Components::new);
        add_security_schemes(components);
        for (_, name, description) in ERRORS {
            components.responses.insert(
                name.into(),
                error_response(
                    description,
                    if name == "RateLimited" {
                        "RateLimitError"
                    } else {
                        "Error"
                    },
                    name == "RateLimited",
                ),
            );
            components.responses.insert(
                format!("Web{name}"),
                error_response(description, "WebFailure", name == "RateLimited"),
            );
        }
        components.responses.insert(
            SIGN_IN.into(),
            RefOr::T(
                ResponseBuilder::new()
                    .description(
                        "Not signed in: to the sign-in page, which comes back here afterwards",
                    )
                    .header(
                        "Location",
                        Header::new(ObjectBuilder::new().schema_type(Type::String)),
                    )
                    .build(),
            ),
        );
        for (path, item) in doc.paths.paths.iter_mut() {
            let ops = [
                (false, item.get.as_mut()),
                (true, item.post.as_mut()),
                (true, item.put.as_mut()),
                (true, item.patch.as_mut()),
                (true, item.delete.as_mut()),
            ];
            for (unsafe_method, op) in ops {
                if let Some(op) = op {
                    add_errors(path, unsafe_method, op);
                }
            }
        }
    }
}

fn error_response(
    description: &str,
    schema: &str,
    retry_after: bool,
) -> RefOr<utoipa::openapi::Response> {
    let mut response = ResponseBuilder::new().description(description).content(
        "application/json",
        Content::new(Some(Ref::from_schema_name(schema))),
    );
    if retry_after {
        response = response.header(
            "Retry-After",
            Header::new(ObjectBuilder::new().schema_type(Type::Integer)),
        );
    }
    RefOr::T(response.build())
}

fn add_errors(path: &str, unsafe_method: bool, op: &mut Operation) {
    let has_tag = |t: &str| op.tags.iter().flatten().any(|tag| tag == t);
    // The pages share the web endpoints' door, so the shared layers refuse them in its shape.
    let web = has_tag("web") || has_tag("pages");
    let graphql = has_tag("graphql");
    let security: Vec<serde_json::Value> = op
        .security
        .iter()
        .flatten()
        .filter_map(|s| serde_json::to_value(s).ok())
        .collect();
    let requires_auth =
        !security.is_empty() && security.iter().all(|s| s != &serde_json::json!({}));
    let page_with_session = has_tag("pages") && security.iter().any(|s| s.get("session").is_some());
    if page_with_session && !op.responses.responses.contains_key("303") {
        op.responses
            .responses
            .insert("303".into(), RefOr::Ref(Ref::from_response_name(SIGN_IN)));
    }
    let has_body = op.request_body.is_some();
    let has_query = op
        .parameters
        .iter()
        .flatten()
        .any(|p| matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Query));
    let wanted = [
        ("400", (has_body || has_query) && !graphql),
        ("401", requires_auth),
        ("403", requires_auth && unsafe_method),
        ("404", path.contains('{')),
        ("413", has_body),
        ("429", !crate::http::ratelimit::exempt(path)),
    ];
    for (status, want) in wanted {
        if !want || op.responses.responses.contains_key(status) {
            continue;
        }
        let Some((_, name, _)) = ERRORS.iter().find(|(s, _, _)| *s == status) else {
            continue;
        };
        let name = if web {
            format!("Web{name}")
        } else {
            name.to_string()
        };
        op.responses
            .responses
            .insert(status.into(), RefOr::Ref(Ref::from_response_name(name)));
    }
}

fn add_security_schemes(components: &mut Components) {
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(
                    "An API token (from the admin CLI or the GraphQL `createApiToken` mutation) or a JWT \
                     from `POST /api/auth/token/`.",
                ))
                .build(),
        ),
    );
    components.add_security_scheme(
        "session",
        SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
            crate::auth::session::SESSION_COOKIE,
            "Session cookie set by `POST /accounts/login/`.",
        ))),
    );
    components.add_security_scheme(
        "mail_secret",
        SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
            crate::http::routes::MAIL_SECRET_HEADER,
            "`DESKGRAPH_MAIL_IN_SECRET`, shown by a mail server handing in messages (`deskgraph mail-in --url`).",
        ))),
    );
    components.add_security_scheme(
        "csrf",
        SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
            "X-CSRFToken",
            "The value of the `csrftoken` cookie; required on unsafe web requests.",
        ))),
    );
}
