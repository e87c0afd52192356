//! The demo tickets: every status, both kinds of comment, some in projects and some for a group.
use crate::auth::Actor;
use crate::domain::{CommentType, Priority, TicketStatus};
use crate::service::comments;
use crate::service::tickets::{self, NewTicket, TicketPatch};
use crate::state::AppState;

/// Open the demo tickets: requested by carol and dave, worked by alice and bob, some in `project_ids`
/// and some for the group `network_group`.
pub(super) async fn open(
    state: &AppState,
    alice: &Actor,
    bob: &Actor,
    carol: &Actor,
    dave: &Actor,
    project_ids: &[i32],
    network_group: i32,
) -> anyhow::Result<()> {
    use TicketStatus::*;
    type Plan<'a> = (
        &'a Actor,
        &'a str,
        &'a str,
        Priority,
        Option<usize>,
        Option<&'a Actor>,
        bool,
        &'a [TicketStatus],
    );
    let plan: &[Plan] = &[
        (
            carol,
            "Cannot connect to VPN",
            "<p>The VPN client says <em>authentication failed</em> since this morning.</p>",
            Priority::High,
            None,
            Some(alice),
            true,
            &[Open, InProgress],
        ),
        (
            carol,
            "New laptop for onboarding",
            "<p>Starting 1 December: Dana needs a laptop.</p>",
            Priority::Medium,
            Some(1),
            Some(bob),
            false,
            &[],
        ),
        (
            dave,
            "Printer on 3rd floor jams",
            "<p>Every second page jams.</p>",
            Priority::Low,
            None,
            None,
            false,
            &[Open],
        ),
        (
            dave,
            "Outlook keeps asking for password",
            "",
            Priority::High,
            Some(2),
            Some(alice),
            false,
            &[Open, OnHold],
        ),
        (
            carol,
            "Desk phones for the new office",
            "<p>We need 40 desk phones.</p>",
            Priority::Medium,
            Some(0),
            Some(bob),
            true,
            &[InProgress, Blocked],
        ),
        (
            dave,
            "Shared drive is full",
            "<p>S: has 0 bytes free.</p>",
            Priority::Critical,
            None,
            Some(alice),
            false,
            &[InProgress, Resolved],
        ),
        (
            carol,
            "Password reset for Carol",
            "",
            Priority::Medium,
            None,
            Some(alice),
            false,
            &[Resolved, Closed],
        ),
        (
            dave,
            "Wi-Fi drops in meeting room B",
            "<p>Drops every 10 minutes.</p>",
            Priority::High,
            Some(0),
            None,
            true,
            &[],
        ),
    ];
    for (requester, title, description, priority, project, assignee, network, moves) in plan {
        let created = tickets::create(
            state.write_deps(crate::domain::Channel::System),
            requester,
            NewTicket {
                title: title.to_string(),
                description: Some(description.to_string()),
                priority: Some(*priority),
                project_id: project.map(|i| project_ids[i]),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        // Only the team assigns: the agent who works it takes it (alice routes the group-only ones).
        if assignee.is_some() || *network {
            let patch = TicketPatch {
                assignee_id: assignee.map(|a| Some(a.id())),
                assigned_group_id: network.then_some(Some(network_group)),
                ..Default::default()
            };
            tickets::update(
                state.write_deps(crate::domain::Channel::System),
                assignee.unwrap_or(alice),
                created.id,
                patch,
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        add_comment(
            state,
            created.id,
            requester,
            CommentType::Public,
            "<p>Any update on this?</p>",
        )
        .await?;
        if let Some(agent) = assignee {
            add_comment(
                state,
                created.id,
                agent,
                CommentType::Public,
                "<p>Looking into it now.</p>",
            )
            .await?;
            add_comment(
                state,
                created.id,
                agent,
                CommentType::Internal,
                "<p>Internal: check the admin console logs first.</p>",
            )
            .await?;
        }
        for status in moves.iter() {
            tickets::update(
                state.write_deps(crate::domain::Channel::System),
                alice,
                created.id,
                TicketPatch {
                    status: Some(*status),
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    Ok(())
}

async fn add_comment(
    state: &AppState,
    ticket_id: i32,
    author: &Actor,
    comment_type: CommentType,
    body: &str,
) -> anyhow::Result<()> {
    let input = comments::NewComment {
        body: body.into(),
        comment_type,
    };
    comments::create(
        state.write_deps(crate::domain::Channel::System),
        author,
        ticket_id,
        input,
    )
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}
