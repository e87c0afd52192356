//! Root mutation fields: one input object in, one payload object out.
pub mod account;
pub mod assets;
pub mod projects;
pub mod tickets;

use async_graphql::MergedObject;

/// Root of all mutations.
#[derive(MergedObject, Default)]
#[graphql(name = "Mutation")]
pub struct MutationRoot(
    account::AccountMutation,
    tickets::TicketMutation,
    projects::ProjectMutation,
    assets::AssetMutation,
);
