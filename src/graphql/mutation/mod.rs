//! Root mutation fields: one input object in, one payload object out.
pub mod account;
pub mod assets;
pub mod attachments;
pub mod automation;
pub mod bulk;
pub mod chat;
pub mod comments;
pub mod custom_fields;
pub mod followers;
pub mod links;
pub mod mailboxes;
pub mod people;
pub mod projects;
pub mod sla;
pub mod tags;
pub mod tickets;
pub mod time_spent;
pub mod webhooks;

use async_graphql::MergedObject;

/// Root of all mutations.
#[derive(MergedObject, Default)]
#[graphql(name = "Mutation")]
pub struct MutationRoot(
    account::AccountMutation,
    people::PeopleMutation,
    tickets::TicketMutation,
    webhooks::WebhookMutation,
    chat::ChatMutation,
    mailboxes::MailboxMutation,
    sla::SlaMutation,
    comments::CommentMutation,
    projects::ProjectMutation,
    assets::AssetMutation,
    attachments::AttachmentMutation,
    automation::AutomationMutation,
    bulk::BulkMutation,
    tags::TagMutation,
    custom_fields::CustomFieldMutation,
    links::LinkMutation,
    time_spent::TimeMutation,
    followers::FollowerMutation,
);
