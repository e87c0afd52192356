//! `customFields`: the field definitions the viewer may see.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::CustomField;
use crate::service::custom_fields::{self, FieldListFilter};
use async_graphql::{Context, Object, Result, ID};
use std::sync::Arc;

/// Queries about custom fields.
#[derive(Default)]
pub struct CustomFieldQuery;

#[Object]
impl CustomFieldQuery {
    /// The custom fields the viewer may see, by position: team-only ones for the team; with `projectId`, the
    /// ones a ticket of that project carries; archived ones too for administrators who ask.
    async fn custom_fields(
        &self,
        ctx: &Context<'_>,
        project_id: Option<ID>,
        include_archived: Option<bool>,
    ) -> Result<Vec<CustomField>> {
        let (req, actor) = viewer(ctx)?;
        let filter = FieldListFilter {
            project_id: ids::decode_opt(project_id.as_ref(), "Project", "projectId")?,
            include_archived: include_archived.unwrap_or(false),
        };
        let found = custom_fields::list(&req.state.db.conn, &actor, filter).await?;
        Ok(found
            .into_iter()
            .map(|f| CustomField(Arc::new(f)))
            .collect())
    }
}
