//! Root query fields, split by noun.
pub mod assets;
pub mod projects;
pub mod tickets;
pub mod viewer;

use async_graphql::MergedObject;

/// Root of all queries.
#[derive(MergedObject, Default)]
#[graphql(name = "Query")]
pub struct QueryRoot(
    viewer::ViewerQuery,
    tickets::TicketQuery,
    projects::ProjectQuery,
    assets::AssetQuery,
);
