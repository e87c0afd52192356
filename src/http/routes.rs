//! Routes that know their door. Each door builds its router through [`Routes`], which records, as each
//! route is added, the door whose error shape it answers in and whether its multipart posts carry files.
//! The front layer ([`crate::http::layers::front`]) runs after routing, so it looks the matched route up
//! ([`RouteTable::kind_of`]) instead of guessing from the path: a route added under a door inherits the
//! door's behaviour. Only a path no route matches falls back to its prefix ([`Door::of_unknown_path`]).
use crate::http::errors::Door;
use crate::state::AppState;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::routing::MethodRouter;
use axum::Router;
use std::collections::HashMap;
use std::sync::Arc;

/// What the shared layers need to know of a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteKind {
    /// The door whose error shape the route's refusals (413, 429, timeout, 405) take.
    pub door: Door,
    /// What its requests' bodies are.
    pub body: BodyKind,
}

/// The header in which a mail server shows `DESKGRAPH_MAIL_IN_SECRET` ([`BodyKind::Mail`]).
pub const MAIL_SECRET_HEADER: &str = "x-deskgraph-mail-secret";

/// What a route's request bodies are, which sets how much of them the front layer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// Small requests (JSON, forms, queries): the body limit.
    Plain,
    /// Its multipart posts carry files: exempt from the body limit, bounded by the upload limit.
    Uploads,
    /// A mail message handed in by a mail server (`POST /api/mail/in/`): its sender shows the mail-in secret
    /// before any of it is read, it is bounded by the largest message taken in, and the per-sender pace of
    /// mail rather than the per-request budget governs it.
    Mail,
}

/// One door's routes, each remembering its kind.
#[derive(Debug)]
pub struct Routes {
    door: Door,
    router: Router<AppState>,
    kinds: HashMap<String, RouteKind>,
}

impl Routes {
    /// No routes yet, for `door`.
    pub fn new(door: Door) -> Self {
        Routes {
            door,
            router: Router::new(),
            kinds: HashMap::new(),
        }
    }

    /// Add a route of this door.
    pub fn route(self, path: &str, method_router: MethodRouter<AppState>) -> Self {
        self.add(path, method_router, BodyKind::Plain)
    }

    /// Add a route of this door whose multipart posts carry files; their bodies are streamed to the
    /// handler, bounded by the upload limit instead of the body limit.
    pub fn uploads(self, path: &str, method_router: MethodRouter<AppState>) -> Self {
        self.add(
            path,
            method_router.layer(DefaultBodyLimit::disable()),
            BodyKind::Uploads,
        )
    }

    /// Add the route a mail server hands messages to ([`BodyKind::Mail`]).
    pub fn mail(self, path: &str, method_router: MethodRouter<AppState>) -> Self {
        self.add(
            path,
            method_router.layer(DefaultBodyLimit::disable()),
            BodyKind::Mail,
        )
    }

    fn add(mut self, path: &str, method_router: MethodRouter<AppState>, body: BodyKind) -> Self {
        self.router = self.router.route(path, method_router);
        self.kinds.insert(
            path.to_string(),
            RouteKind {
                door: self.door,
                body,
            },
        );
        self
    }

    /// Take in another set of routes (of this door or another), each keeping its own kind.
    pub fn merge(mut self, other: Routes) -> Self {
        self.router = self.router.merge(other.router);
        self.kinds.extend(other.kinds);
        self
    }

    /// Change the router itself (a layer over all these routes), keeping the kinds.
    pub fn map(mut self, f: impl FnOnce(Router<AppState>) -> Router<AppState>) -> Self {
        self.router = f(self.router);
        self
    }

    /// The router, and the table the front layer looks its routes up in.
    pub fn into_parts(self) -> (Router<AppState>, RouteTable) {
        (self.router, RouteTable(Arc::new(self.kinds)))
    }
}

/// Every route's kind, by the path pattern `MatchedPath` names it with.
#[derive(Clone, Debug, Default)]
pub struct RouteTable(Arc<HashMap<String, RouteKind>>);

impl RouteTable {
    /// The kind of the route `req` matched; a path no route matches (the fallback answers it) takes the
    /// door its prefix names, and carries no files.
    pub fn kind_of(&self, req: &Request) -> RouteKind {
        req.extensions()
            .get::<MatchedPath>()
            .and_then(|matched| self.0.get(matched.as_str()))
            .copied()
            .unwrap_or_else(|| RouteKind {
                door: Door::of_unknown_path(req.uri().path()),
                body: BodyKind::Plain,
            })
    }
}
