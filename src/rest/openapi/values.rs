//! Schemas of the domain's string values, for `#[schema(schema_with = …)]` on the fields that hold them:
//! the enum lists come from each domain type's `ALL`, so the document cannot drift from what is accepted.
use crate::domain::{AssetStatus, AssetType, CommentType, Priority, StatusCategory, TicketStatus};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

/// Declares a function returning the string schema of one domain enum.
macro_rules! value_schema {
    ($fn:ident, $domain:ty, $doc:literal) => {
        #[doc = concat!("The schema of `", stringify!($domain), "`: ", $doc)]
        pub fn $fn() -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some($doc))
                .enum_values(Some(<$domain>::ALL.iter().map(|v| v.as_str())))
                .into()
        }
    };
}

value_schema!(ticket_status, TicketStatus, "Ticket status.");
value_schema!(
    status_category,
    StatusCategory,
    "Category of a ticket status."
);
value_schema!(priority, Priority, "Ticket priority.");
value_schema!(comment_type, CommentType, "Who may read a comment.");
value_schema!(asset_type, AssetType, "Kind of inventory item.");
value_schema!(
    asset_status,
    AssetStatus,
    "Where an inventory item is in its life."
);
