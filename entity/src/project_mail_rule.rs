//! A project's own rules for mail taken in (docs/mail.md): absent, the defaults apply.
use crate::values::{ResolvedReply, UnknownSenders};
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "project_mail_rules")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub project_id: i32,
    /// What a reply by mail to one of the project's resolved tickets does.
    pub resolved_reply: ResolvedReply,
    /// Who of the senders without an account gets one; none: the service's setting.
    pub unknown_senders: Option<UnknownSenders>,
    /// The domains `UnknownSenders::KnownDomains` accepts, lowercase, one per line.
    pub sender_domains: String,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
