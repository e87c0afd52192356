//! Custom field definitions (administrators): `createCustomField`, `updateCustomField` (which archives and
//! restores too). Values are set with `setTicketFields`, `createTicket` and `updateTicket`.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::CustomField;
use crate::service::custom_fields::{self, FieldPatch, NewField};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};
use entity::values::{FieldKind, StatusCategory};
use std::sync::Arc;

/// Custom field mutations.
#[derive(Default)]
pub struct CustomFieldMutation;

/// A new custom field.
#[derive(InputObject)]
pub struct CreateCustomFieldInput {
    /// 1-50 lowercase letters, digits and `_`, starting with a letter; unique; fixed once made.
    key: String,
    /// 1-200 characters.
    label: String,
    /// The type of its values; fixed once made.
    kind: FieldKind,
    /// Only this project's tickets carry it; fixed once made.
    project_id: Option<ID>,
    /// 1-200 choices for CHOICE and MULTI_CHOICE fields.
    choices: Option<Vec<String>>,
    /// From which status category on a value is required (TODO: always; DONE: to resolve).
    required_from: Option<StatusCategory>,
    /// Seen and set by the team only (default false).
    team_only: Option<bool>,
    /// Order among the fields (default: after the last).
    position: Option<i32>,
}

/// A change to a custom field; omitted fields stay.
#[derive(InputObject)]
pub struct UpdateCustomFieldInput {
    /// The field.
    id: ID,
    /// New label.
    label: Option<String>,
    /// The whole new list of choices (a choice tickets hold may not be dropped).
    choices: Option<Vec<String>>,
    /// From which status category on a value is required; null: never.
    required_from: MaybeUndefined<StatusCategory>,
    /// Team only or everyone.
    team_only: Option<bool>,
    /// New position.
    position: Option<i32>,
    /// True archives (hidden, values kept), false restores.
    archived: Option<bool>,
}

/// The field after a change.
#[derive(SimpleObject)]
pub struct CustomFieldPayload {
    /// The field.
    field: CustomField,
}

#[Object]
impl CustomFieldMutation {
    /// Define a custom field (administrators).
    async fn create_custom_field(
        &self,
        ctx: &Context<'_>,
        input: CreateCustomFieldInput,
    ) -> Result<CustomFieldPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewField {
            key: input.key,
            label: input.label,
            kind: input.kind,
            project_id: ids::decode_opt(input.project_id.as_ref(), "Project", "projectId")?,
            choices: input.choices.unwrap_or_default(),
            required_from: input.required_from,
            team_only: input.team_only.unwrap_or(false),
            position: input.position,
        };
        let state = &req.state;
        let max = state.config.max_custom_fields;
        let field =
            custom_fields::create(&state.db, &state.custom_fields, &actor, new, max).await?;
        Ok(CustomFieldPayload {
            field: CustomField(Arc::new(field)),
        })
    }

    /// Change, archive or restore a custom field (administrators; its key, kind and project stay).
    async fn update_custom_field(
        &self,
        ctx: &Context<'_>,
        input: UpdateCustomFieldInput,
    ) -> Result<CustomFieldPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "CustomField", "id")?;
        let patch = FieldPatch {
            label: input.label,
            choices: input.choices,
            required_from: match input.required_from {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(c) => Some(Some(c)),
            },
            team_only: input.team_only,
            position: input.position,
            archived: input.archived,
        };
        let state = &req.state;
        let max = state.config.max_custom_fields;
        let field =
            custom_fields::update(&state.db, &state.custom_fields, &actor, id, patch, max).await?;
        Ok(CustomFieldPayload {
            field: CustomField(Arc::new(field)),
        })
    }
}
