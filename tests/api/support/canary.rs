//! The canary world: one ticket on which a unique marker is planted through every way text becomes
//! internal, the people around it, and what each of them receives live, by email, by webhook and in a chat
//! channel.
use crate::support::events::{state_with, Mode, Receiver};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::subscriptions::{serve, wait_for_subscribers, WsClient, ARRIVES, NOTHING};
use crate::support::world::actor;
use deskgraph::domain::{AssetType, CommentType};
use deskgraph::jobs::worker;
use deskgraph::notify::mailer::MemoryMailer;
use deskgraph::service::assets::{self, NewAsset};
use deskgraph::service::comments::{self, CommentPatch};
use deskgraph::service::tickets::{self, NewTicket};
use deskgraph::service::{custom_fields, links, tags, time_spent};
use serde_json::json;
use std::sync::Arc;

/// A way a marker becomes something only some may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The body of an internal comment.
    Internal,
    /// The internal text of a comment since edited and made public.
    WasInternal,
    /// The text of a public comment made internal by an edit.
    NowInternal,
    /// The body of an internal comment since deleted (left in the history only).
    Deleted,
    /// The name of an asset linked to the ticket that the requester may not see.
    Asset,
    /// A history entry linking that asset (`link_asset`, with its id).
    Link,
    /// A tag on the ticket (tags are the team's and its workers').
    Tag,
    /// The activity of time logged on the ticket (time is the team's and its workers').
    Time,
    /// The title of a ticket the ticket is linked to, which only the team may see.
    HiddenLink,
    /// The value of a team-only custom field (the team's and its workers').
    Field,
}

impl Mark {
    /// Every mark.
    pub const ALL: [Mark; 10] = [
        Mark::Internal,
        Mark::WasInternal,
        Mark::NowInternal,
        Mark::Deleted,
        Mark::Asset,
        Mark::Link,
        Mark::Tag,
        Mark::Time,
        Mark::HiddenLink,
        Mark::Field,
    ];

    /// The marks of text, assets and their history (what the ticket's own query, history and events show):
    /// the first six of [`Mark::ALL`].
    pub const TEXT: &'static [Mark] = Mark::ALL.split_at(6).0;

    /// The text that betrays it in a response.
    pub fn text(self, base: &str) -> String {
        match self {
            Mark::Internal => format!("{base}-internal"),
            Mark::WasInternal => format!("{base}-wasinternal"),
            Mark::NowInternal => format!("{base}-nowinternal"),
            Mark::Deleted => format!("{base}-deleted"),
            Mark::Asset => format!("{base}-asset"),
            Mark::Link => "link_asset".to_string(),
            // Tags and activities are kept in lower case.
            Mark::Tag => format!("{}-tag", base.to_lowercase()),
            Mark::Time => format!("{}-time", base.to_lowercase()),
            Mark::HiddenLink => format!("{base}-hidden"),
            Mark::Field => format!("{base}-field"),
        }
    }
}

/// Someone who looks, and the marks they may read.
pub struct Role {
    pub name: &'static str,
    pub user: TestUser,
    pub may_read: &'static [Mark],
    /// Their subscription: to the ticket when they can see it, else to every ticket.
    pub live: WsClient,
}

/// The planted world.
pub struct Canary {
    /// The unique part of every marker.
    pub base: String,
    pub ticket_id: i32,
    /// Internal, was internal, now internal, deleted.
    pub comment_ids: Vec<i32>,
    pub asset_id: i32,
    pub roles: Vec<Role>,
    /// Where the emails of the markers' changes went.
    pub mailer: Arc<MemoryMailer>,
    pub hooks: Receiver,
    /// A Slack channel that is not the team's own: it hears of every comment on the ticket.
    pub chat: Receiver,
}

/// The last public comment, which every subscriber of the ticket hears about.
pub const TRIGGER: &str = "All done here, closing soon";

/// What live subscribers select: everything a ticket event can carry.
pub const LIVE: &str = r#"subscription($t: ID) { ticketEvents(ticketId: $t) {
  kind
  comment { body edits { previousBody } }
  ticket { commentsCount assets { name }
           comments { nodes { body edits { previousBody } } }
           history(first: 100) { nodes { action changes } } }
} }"#;

async fn connect(url: &str, user: &TestUser, ticket: Option<String>) -> WsClient {
    let mut client = WsClient::connect(url, &user.token).await;
    client
        .subscribe_to("live", LIVE, json!({ "t": ticket }))
        .await;
    client
}

/// Plant every marker on a ticket of `requester`, assigned to a plain user, with everyone subscribed.
pub async fn plant(app: &TestApp) -> Canary {
    let base = format!("CANARY{:016x}", rand::random::<u64>());
    let hooks = Receiver::start(Mode::Ok).await;
    let url = hooks.url.clone();
    let (state, mailer) = state_with(app, |c| {
        c.webhook_url = Some(url);
        c.webhook_secret = "s3cret".into();
    });
    let chat = Receiver::start(Mode::Ok).await;
    let chat_admin = actor(app, &app.admin("chatadmin").await).await;
    deskgraph::service::chat::create(
        &state.db,
        true,
        &chat_admin,
        deskgraph::service::chat::NewChat {
            name: "Desk channel".into(),
            kind: entity::values::ChatKind::Slack,
            url: Some(chat.url.clone()),
            token: None,
            channel: None,
            project_id: None,
            // Not `ticket.created`: the hidden ticket's title would be this channel's to read.
            events: vec!["comment.created".into(), "ticket.status_changed".into()],
            priorities: Vec::new(),
            team_only: Some(false),
            active: None,
        },
    )
    .await
    .unwrap();
    let requester = app.user("requester").await;
    let other_requester = app.user("otherrequester").await;
    let stranger = app.user("stranger").await;
    let agent = app.agent("agent").await;
    let assignee = app.user("assignee").await;
    let team = actor(app, &agent).await;
    // Only the team assigns: the agent opens it for the requester.
    let ticket = tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        NewTicket {
            title: "Printer queue stuck".into(),
            assignee_id: Some(assignee.id),
            requester_id: Some(requester.id),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &other_requester).await,
        NewTicket {
            title: "Their own ticket".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    let ws = serve(app.state.clone()).await;
    let gid = Some(crate::support::graphql::gid("Ticket", ticket.id));
    let mut roles = Vec::new();
    for (name, user, may_read, live) in [
        ("requester", requester, &[][..], gid.clone()),
        ("other requester", other_requester, &[][..], None),
        ("unrelated user", stranger, &[][..], None),
        ("agent", agent.clone(), &Mark::ALL[..], gid.clone()),
        (
            "assignee",
            assignee,
            &[
                Mark::Internal,
                Mark::WasInternal,
                Mark::NowInternal,
                Mark::Deleted,
                Mark::Tag,
                Mark::Time,
                Mark::Field,
            ][..],
            gid.clone(),
        ),
    ] {
        let live = connect(&ws, &user, live).await;
        roles.push(Role {
            name,
            user,
            may_read,
            live,
        });
    }
    wait_for_subscribers(&app.state, roles.len()).await;

    let write = |body: String, kind| comments::NewComment {
        body,
        comment_type: kind,
    };
    let edit = |body: String, kind| CommentPatch {
        body: Some(body),
        comment_type: Some(kind),
    };
    let created = |text: String, kind| {
        let state = state.clone();
        let team = team.clone();
        async move {
            comments::create(
                state.write_deps(deskgraph::domain::Channel::System),
                &team,
                ticket.id,
                write(text, kind),
            )
            .await
            .unwrap()
            .id
        }
    };
    let internal = created(Mark::Internal.text(&base), CommentType::Internal).await;
    let was = created(Mark::WasInternal.text(&base), CommentType::Internal).await;
    comments::edit(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        was,
        edit("Now public, nothing to hide".into(), CommentType::Public),
    )
    .await
    .unwrap();
    let now = created("A public remark".into(), CommentType::Public).await;
    comments::edit(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        now,
        edit(Mark::NowInternal.text(&base), CommentType::Internal),
    )
    .await
    .unwrap();
    let deleted = created(Mark::Deleted.text(&base), CommentType::Internal).await;
    comments::delete(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        deleted,
    )
    .await
    .unwrap();
    let asset = assets::create(
        &state.db,
        &team,
        NewAsset {
            name: Mark::Asset.text(&base),
            asset_type: AssetType::Hardware,
            status: None,
            location: None,
            owner_id: None,
            description: None,
            serial_number: None,
        },
    )
    .await
    .unwrap();
    assets::link_asset(&state.db, &team, ticket.id, asset.id)
        .await
        .unwrap();
    tags::change(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        ticket.id,
        tags::Edit::Add(vec![Mark::Tag.text(&base)]),
    )
    .await
    .unwrap();
    time_spent::log(
        &state.db,
        &team,
        ticket.id,
        time_spent::NewEntry {
            minutes: 15,
            spent_on: None,
            billable: None,
            activity: Some(Mark::Time.text(&base)),
            comment_id: None,
        },
    )
    .await
    .unwrap();
    let admin = actor(app, &app.admin("fieldadmin").await).await;
    custom_fields::create(
        &state.db,
        &state.custom_fields,
        &admin,
        custom_fields::NewField {
            key: "canary_note".into(),
            label: "Note".into(),
            kind: entity::values::FieldKind::Text,
            project_id: None,
            choices: Vec::new(),
            required_from: None,
            team_only: true,
            position: None,
        },
        50,
    )
    .await
    .unwrap();
    // The app's own instance hears of the definition as a second instance would.
    app.state.custom_fields.clear();
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        ticket.id,
        tickets::TicketPatch {
            custom_fields: Some(vec![("canary_note".into(), json!(Mark::Field.text(&base)))]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    // Opened without the webhook (its `ticket.created` body carries the title) by someone who is none of the
    // roles, and linked by the agent.
    let owner = app.user("hiddenowner").await;
    let hidden = tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &owner).await,
        NewTicket {
            title: Mark::HiddenLink.text(&base),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    links::add(
        state.write_deps(deskgraph::domain::Channel::System),
        &team,
        ticket.id,
        entity::values::LinkType::BlockedBy,
        hidden.id,
    )
    .await
    .unwrap();
    created(TRIGGER.into(), CommentType::Public).await;
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}

    Canary {
        base,
        ticket_id: ticket.id,
        comment_ids: vec![internal, was, now, deleted],
        asset_id: asset.id,
        roles,
        mailer,
        hooks,
        chat,
    }
}

/// Everything `client` received: up to the trigger event for a subscriber of the ticket, and until
/// things go quiet for the others.
pub async fn received(client: &mut WsClient, of_ticket: bool) -> String {
    let mut all = String::new();
    let deadline = tokio::time::Instant::now() + ARRIVES;
    loop {
        let wait = if of_ticket {
            deadline.saturating_duration_since(tokio::time::Instant::now())
        } else {
            NOTHING
        };
        match client.receive(wait).await {
            Some(Ok(msg)) => {
                all.push_str(&msg.to_string());
                let body = &msg["payload"]["data"]["ticketEvents"]["comment"]["body"];
                if of_ticket && body == TRIGGER {
                    return all;
                }
            }
            Some(Err(closed)) => panic!("subscription closed: {closed}"),
            None if of_ticket => panic!("the trigger event never arrived: {all}"),
            None => return all,
        }
    }
}

/// Every email sent to `user`, subjects and bodies.
pub fn mails_to(canary: &Canary, user: &TestUser) -> String {
    let address = format!("{}@example.com", user.username);
    canary
        .mailer
        .sent()
        .iter()
        .filter(|m| m.to == address)
        .map(|m| format!("{}\n{}\n{}\n", m.subject, m.text, m.html))
        .collect()
}
