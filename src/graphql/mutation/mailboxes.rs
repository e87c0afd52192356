//! Mailbox administration: create, update, delete (administrators only).
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::mutation::chat::patched;
use crate::graphql::types::Mailbox;
use crate::service::mailboxes::{self, MailboxPatch, NewMailbox};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};

/// Mailbox mutations.
#[derive(Default)]
pub struct MailboxMutation;

/// A new mailbox.
#[derive(InputObject)]
pub struct CreateMailboxInput {
    /// What administrators call it (1-100 characters).
    name: String,
    /// `imaps://user@host[:port]/Folder` (TLS), `imap://user@host/Folder` (STARTTLS), `?tls=none` for a
    /// server on the same host; `user;AUTH=XOAUTH2@` signs in with an OAuth2 bearer token. No password.
    url: String,
    /// The password, or the OAuth2 bearer token; never shown again.
    secret: String,
    /// Where taken messages are moved (made when missing); absent: flagged seen where they are.
    done_folder: Option<String>,
    /// Where messages that cannot be taken in are moved (default `failed`).
    failed_folder: Option<String>,
    /// The project new tickets open in; absent: the default project.
    project_id: Option<ID>,
    /// Whether mail is fetched (default true).
    active: Option<bool>,
}

/// The created mailbox.
#[derive(SimpleObject)]
pub struct CreateMailboxPayload {
    /// The mailbox.
    mailbox: Mailbox,
}

/// A change to a mailbox; absent fields stay as they are, null clears.
#[derive(InputObject)]
pub struct UpdateMailboxInput {
    /// Global id of the mailbox.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New URL.
    url: Option<String>,
    /// New secret.
    secret: Option<String>,
    /// New done folder (null: flag seen instead).
    done_folder: MaybeUndefined<String>,
    /// New failed folder.
    failed_folder: Option<String>,
    /// New project (null: the default project).
    project_id: MaybeUndefined<ID>,
    /// Fetch or not.
    active: Option<bool>,
}

/// The changed mailbox.
#[derive(SimpleObject)]
pub struct UpdateMailboxPayload {
    /// The mailbox.
    mailbox: Mailbox,
}

/// Which mailbox to delete.
#[derive(InputObject)]
pub struct DeleteMailboxInput {
    /// Global id of the mailbox.
    id: ID,
}

/// The deleted mailbox's id.
#[derive(SimpleObject)]
pub struct DeleteMailboxPayload {
    /// Global id of the deleted mailbox.
    deleted_mailbox_id: ID,
}

#[Object]
impl MailboxMutation {
    /// Add a mailbox to fetch mail from.
    async fn create_mailbox(
        &self,
        ctx: &Context<'_>,
        input: CreateMailboxInput,
    ) -> Result<CreateMailboxPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewMailbox {
            name: input.name,
            url: input.url,
            secret: input.secret,
            done_folder: input.done_folder,
            failed_folder: input.failed_folder,
            project_id: ids::decode_opt(input.project_id.as_ref(), "Project", "projectId")?,
            active: input.active,
        };
        let created = mailboxes::create(&req.state.db, &actor, new).await?;
        Ok(CreateMailboxPayload {
            mailbox: Mailbox(created),
        })
    }

    /// Change a mailbox; the fetcher takes the change within half a minute.
    async fn update_mailbox(
        &self,
        ctx: &Context<'_>,
        input: UpdateMailboxInput,
    ) -> Result<UpdateMailboxPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Mailbox", "id")?;
        let project_id = match patched(input.project_id) {
            None => None,
            Some(None) => Some(None),
            Some(Some(p)) => Some(Some(ids::decode(&p, "Project", "projectId")?)),
        };
        let patch = MailboxPatch {
            name: input.name,
            url: input.url,
            secret: input.secret,
            done_folder: patched(input.done_folder),
            failed_folder: input.failed_folder,
            project_id,
            active: input.active,
        };
        let updated = mailboxes::update(&req.state.db, &actor, id, patch).await?;
        Ok(UpdateMailboxPayload {
            mailbox: Mailbox(updated),
        })
    }

    /// Stop fetching from a mailbox and forget it; its mail stays on the server.
    async fn delete_mailbox(
        &self,
        ctx: &Context<'_>,
        input: DeleteMailboxInput,
    ) -> Result<DeleteMailboxPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Mailbox", "id")?;
        mailboxes::delete(&req.state.db, &actor, id).await?;
        Ok(DeleteMailboxPayload {
            deleted_mailbox_id: ids::encode("Mailbox", id),
        })
    }
}
