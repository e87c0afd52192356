//! `mailboxes`: the IMAP folders administrators have the help desk fetch mail from.
use crate::graphql::context::viewer;
use crate::graphql::types::Mailbox;
use crate::service::mailboxes;
use async_graphql::{Context, Object, Result};

/// Queries about mailboxes.
#[derive(Default)]
pub struct MailboxQuery;

#[Object]
impl MailboxQuery {
    /// Mailboxes, oldest first. Administrators only; FORBIDDEN otherwise.
    async fn mailboxes(&self, ctx: &Context<'_>) -> Result<Vec<Mailbox>> {
        let (req, actor) = viewer(ctx)?;
        let list = mailboxes::list(&req.state.db, &actor).await?;
        Ok(list.into_iter().map(Mailbox).collect())
    }
}
