//! `Macro`: a saved set of ticket changes and replies a team member applies in one step, and what applying
//! one would do (`MacroPreview`).
use crate::graphql::engine::one_pass::{Answer, GroupOf, UserOf};
use crate::graphql::ids;
use crate::graphql::types::{Group, Ticket, User};
use crate::service::automation::macros::{self, Preview, Scope};
use async_graphql::{Context, Enum, Json, Object, Result, SimpleObject, ID};
use chrono::{DateTime, Utc};
use entity::ticket_macro;

/// Who a macro is for.
#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum MacroScope {
    /// Its owner's alone.
    Personal,
    /// The members of a group (`group`).
    Group,
    /// Everyone on the team.
    Everyone,
}

/// A saved set of ticket changes and replies, in the rule language's actions (docs/automation.md).
pub struct Macro(pub ticket_macro::Model);

/// A saved set of ticket changes and replies, written as the rule language's actions.
#[Object]
impl Macro {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Macro", self.0.id)
    }

    /// The integer id.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// Who it is for.
    async fn scope(&self) -> MacroScope {
        match macros::scope_of(&self.0) {
            Scope::Personal => MacroScope::Personal,
            Scope::Group(_) => MacroScope::Group,
            Scope::Everyone => MacroScope::Everyone,
        }
    }

    /// The owner of a personal macro.
    async fn owner(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        UserOf(self.0.owner_id).load(ctx).await
    }

    /// The group of a group's macro.
    async fn group(&self, ctx: &Context<'_>) -> Result<Option<Group>> {
        GroupOf(self.0.group_id).load(ctx).await
    }

    /// `[action…]`: `{"set": field, "value": …}` or `{"comment": template, "internal": bool}`.
    async fn actions(&self) -> Json<serde_json::Value> {
        Json(self.0.actions.clone())
    }

    /// When it was added.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When it last changed.
    async fn updated_at(&self) -> DateTime<Utc> {
        self.0.updated_at
    }
}

/// A reply a macro would post.
#[derive(SimpleObject)]
pub struct MacroReply {
    /// The body, HTML, rendered for the ticket.
    body: String,
    /// An internal note rather than a public reply.
    internal: bool,
}

/// What applying a macro to a ticket would do, with every check applying makes; nothing is written.
pub struct MacroPreview(pub Preview);

/// What applying a macro to a ticket would do, with every check applying makes; nothing is written.
#[Object]
impl MacroPreview {
    /// The ticket as it is.
    async fn ticket(&self) -> Ticket {
        Ticket(self.0.before.clone())
    }

    /// `{field: [old, new]}` of the fields it would change (REST names; ids for people, groups and
    /// projects). Triggers run on the write itself and are not included.
    async fn changes(&self) -> Json<serde_json::Value> {
        Json(self.0.changes())
    }

    /// The replies it would post, in order.
    async fn replies(&self) -> Vec<MacroReply> {
        self.0
            .replies
            .iter()
            .map(|r| MacroReply {
                body: r.body.clone(),
                internal: r.internal,
            })
            .collect()
    }
}
