//! Operations served by one handler under a second method or path: `PUT /api/tickets/{id}/` (the PATCH
//! handler) and the alternative comment paths `/tickets/{id}/comment/…` (the `/api/…/comments/…`
//! handlers). Each copy is the documented original with its own operation id, so the two cannot drift.
use utoipa::openapi::path::{HttpMethod, Operation, PathItem};
use utoipa::openapi::OpenApi;

/// The `utoipa` modifier that adds the copies.
pub struct Aliases;

/// The comment operations' path pairs: (documented, alternative).
const COMMENT_PATHS: [(&str, &str); 2] = [
    ("/api/tickets/{id}/comments/", "/tickets/{id}/comment/"),
    (
        "/api/tickets/{id}/comments/{comment_id}/",
        "/tickets/{id}/comment/{comment_id}/",
    ),
];

fn operation(item: &PathItem, method: &HttpMethod) -> Option<Operation> {
    match method {
        HttpMethod::Get => item.get.clone(),
        HttpMethod::Post => item.post.clone(),
        HttpMethod::Put => item.put.clone(),
        HttpMethod::Patch => item.patch.clone(),
        HttpMethod::Delete => item.delete.clone(),
        _ => None,
    }
}

impl utoipa::Modify for Aliases {
    fn modify(&self, doc: &mut OpenApi) {
        let paths = &mut doc.paths.paths;
        if let Some(mut put) = paths
            .get("/api/tickets/{id}/")
            .and_then(|item| item.patch.clone())
        {
            put.operation_id = Some("replaceTicket".into());
            put.summary = Some("Change some fields of a ticket (same as PATCH).".into());
            if let Some(item) = paths.get_mut("/api/tickets/{id}/") {
                item.put = Some(put);
            }
        }
        for (original, alternative) in COMMENT_PATHS {
            let Some(item) = paths.get(original) else {
                continue;
            };
            let mut copy = PathItem::default();
            for method in [
                HttpMethod::Get,
                HttpMethod::Post,
                HttpMethod::Patch,
                HttpMethod::Delete,
            ] {
                let Some(mut op) = operation(item, &method) else {
                    continue;
                };
                op.operation_id = op.operation_id.map(|id| format!("{id}Alt"));
                op.tags = Some(vec!["comments (alternative paths)".into()]);
                match method {
                    HttpMethod::Get => copy.get = Some(op),
                    HttpMethod::Post => copy.post = Some(op),
                    HttpMethod::Patch => copy.patch = Some(op),
                    _ => copy.delete = Some(op),
                }
            }
            paths.insert(alternative.to_string(), copy);
        }
    }
}
