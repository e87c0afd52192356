//! `GET /tickets/live/`: the queue's live feed, as server-sent events, so that an open queue page follows new
//! and changed tickets without a reload (`static/app.js` fetches the page's rows again when told).
//!
//! It carries the same events as the GraphQL subscription (`service::ticket_events`), checked for the signed-in
//! user at each event: a ticket they may not see is never named. An event names only the ticket's id and what
//! happened; the page reads the rest through the queue's own read. The feed ends when the session does
//! (sign-out, expiry, deactivation), after [`FEED_LIFETIME`] (the browser reconnects), and when the server
//! shuts down. A user holds at most
//! [`crate::notify::live::Lasting::QueueFeed`] feeds on an instance at once (429 beyond).
use crate::notify::live::LiveKind;
use crate::service::ticket_events::{self, SignedInWith};
use crate::state::AppState;
use crate::web::session::WebActor;
use crate::web::WebResult;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::time::Duration;

/// How long one feed lasts before the browser is asked to connect again.
pub const FEED_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// How long the browser waits before it connects again after the feed ended or the connection broke.
const RETRY: Duration = Duration::from_secs(3);

/// The name an event goes by in the feed.
fn kind_name(kind: &LiveKind) -> &'static str {
    match kind {
        LiveKind::Created => "created",
        LiveKind::Updated => "updated",
        LiveKind::StatusChanged => "status_changed",
        LiveKind::CommentAdded => "comment_added",
        LiveKind::SlaChanged => "sla_changed",
    }
}

/// `GET /tickets/live/`: events `ticket` (`{"id": 42, "kind": "created"}`) for every ticket the signed-in user
/// may see as it is created or changed, and `end` when the session has ended.
#[utoipa::path(get, path = "/tickets/live/", tag = "pages", operation_id = "pageQueueLive",
    summary = "The queue's live feed: server-sent events naming each visible ticket as it changes.",
    responses(
        (status = 200, description = "`text/event-stream`: `ticket` events with `{id, kind}`; `end` once the \
            session has ended", content_type = "text/event-stream", body = String),
        (status = 401, description = "No live session", body = crate::error::bodies::WebFailure),
        (status = 429, description = "Too many feeds open for this user on this instance",
            body = crate::error::bodies::WebFailure),
    ),
    security(("session" = [])))]
pub async fn feed(State(state): State<AppState>, user: WebActor) -> WebResult<Response> {
    let subscriber = state.subscriber(SignedInWith::Session(user.secret.into()));
    let events = ticket_events::follow(&state.live, subscriber, &user.actor, None).await?;
    let stream = events
        .map(move |event| {
            Ok::<_, std::convert::Infallible>(match event {
                Ok(seen) => Event::default().event("ticket").data(format!(
                    r#"{{"id":{},"kind":"{}"}}"#,
                    seen.ticket.id,
                    kind_name(&seen.event.kind)
                )),
                Err(_) => Event::default().event("end").data("signed out"),
            })
        })
        .take_until(tokio::time::sleep(FEED_LIFETIME))
        .take_until(crate::http::connections::stopping());
    let opening =
        futures_util::stream::once(async { Ok(Event::default().retry(RETRY).comment("live")) });
    Ok(Sse::new(opening.chain(stream))
        .keep_alive(KeepAlive::default())
        .into_response())
}
