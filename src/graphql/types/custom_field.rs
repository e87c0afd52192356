//! `CustomField` (a definition) and `TicketField` (a ticket's value of one), whose `value` is a union of one
//! type per kind, so that clients get numbers as numbers and dates as dates.
use super::{Asset, User};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::ids;
use crate::graphql::loaders::viewer::VisibleAssetKey;
use crate::graphql::scalars::Date;
use crate::service::custom_fields::{Field, FieldValue};
use async_graphql::{Context, Object, Result, SimpleObject, Union, ID};
use chrono::{DateTime, Utc};
use entity::values::{FieldKind, StatusCategory};
use std::sync::Arc;

/// A custom field an administrator defined, for every ticket or one project's.
pub struct CustomField(pub Arc<Field>);

/// A custom field an administrator defined, for every ticket or one project's.
#[Object]
impl CustomField {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("CustomField", self.0.id)
    }
    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }
    /// The name clients use (`setTicketFields`, filters, REST `custom_fields`).
    async fn key(&self) -> &str {
        &self.0.key
    }
    /// What people read.
    async fn label(&self) -> &str {
        &self.0.label
    }
    /// The type of its values.
    async fn kind(&self) -> FieldKind {
        self.0.kind
    }
    /// The project whose tickets carry it; null: every ticket.
    async fn project_id(&self) -> Option<ID> {
        self.0.project_id.map(|id| ids::encode("Project", id))
    }
    /// The allowed values of a choice field.
    async fn choices(&self) -> &[String] {
        &self.0.choices
    }
    /// From which status category on a value is required; null: never.
    async fn required_from(&self) -> Option<StatusCategory> {
        self.0.required_from
    }
    /// Seen and set by the team only.
    async fn team_only(&self) -> bool {
        self.0.team_only
    }
    /// Order among the fields.
    async fn position(&self) -> i32 {
        self.0.position
    }
    /// Archived: hidden from tickets, values kept.
    async fn archived(&self) -> bool {
        self.0.archived_at.is_some()
    }
}

/// A ticket's value of one custom field.
#[derive(SimpleObject)]
pub struct TicketField {
    /// The field.
    pub field: CustomField,
    /// The value; null when unset.
    pub value: Option<CustomFieldValue>,
}

impl TicketField {
    /// The field `field` of a ticket, holding `value`.
    pub fn of(field: Arc<Field>, value: Option<FieldValue>) -> Self {
        TicketField {
            field: CustomField(field),
            value: value.map(CustomFieldValue::of),
        }
    }
}

/// A custom field's value, typed by the field's kind.
#[derive(Union)]
pub enum CustomFieldValue {
    /// Text, long text or a single choice.
    Text(TextFieldValue),
    /// A number.
    Number(NumberFieldValue),
    /// A date.
    Date(DateFieldValue),
    /// A moment.
    DateTime(DateTimeFieldValue),
    /// Yes or no.
    Boolean(BooleanFieldValue),
    /// Several choices.
    Choices(ChoicesFieldValue),
    /// A user.
    User(UserFieldValue),
    /// An asset.
    Asset(AssetFieldValue),
}

impl CustomFieldValue {
    fn of(v: FieldValue) -> Self {
        match v {
            FieldValue::Text(text) | FieldValue::LongText(text) | FieldValue::Choice(text) => {
                CustomFieldValue::Text(TextFieldValue { text })
            }
            FieldValue::Number(number) => CustomFieldValue::Number(NumberFieldValue { number }),
            FieldValue::Date(d) => CustomFieldValue::Date(DateFieldValue { date: Date(d) }),
            FieldValue::Datetime(date_time) => {
                CustomFieldValue::DateTime(DateTimeFieldValue { date_time })
            }
            FieldValue::Boolean(boolean) => {
                CustomFieldValue::Boolean(BooleanFieldValue { boolean })
            }
            FieldValue::MultiChoice(choices) => {
                CustomFieldValue::Choices(ChoicesFieldValue { choices })
            }
            FieldValue::User(id) => CustomFieldValue::User(UserFieldValue(id)),
            FieldValue::Asset(id) => CustomFieldValue::Asset(AssetFieldValue(id)),
        }
    }
}

/// A text, long text or single-choice value.
#[derive(SimpleObject)]
pub struct TextFieldValue {
    /// The text (a choice as the field spells it).
    text: String,
}

/// A number value.
#[derive(SimpleObject)]
pub struct NumberFieldValue {
    /// The number.
    number: f64,
}

/// A date value.
#[derive(SimpleObject)]
pub struct DateFieldValue {
    /// The date.
    date: Date,
}

/// A moment value.
#[derive(SimpleObject)]
pub struct DateTimeFieldValue {
    /// The moment, UTC.
    date_time: DateTime<Utc>,
}

/// A yes-or-no value.
#[derive(SimpleObject)]
pub struct BooleanFieldValue {
    /// The answer.
    boolean: bool,
}

/// A multiple-choice value.
#[derive(SimpleObject)]
pub struct ChoicesFieldValue {
    /// The choices held, in the field's order.
    choices: Vec<String>,
}

/// A user value.
pub struct UserFieldValue(i32);

/// The value of a custom field that names a user.
#[Object]
impl UserFieldValue {
    /// The user's global id.
    async fn user_id(&self) -> ID {
        ids::encode("User", self.0)
    }
    /// The user, when the viewer may see them.
    async fn user(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        let (req, _) = viewer(ctx)?;
        Ok(req.user(self.0).await?.map(User))
    }
}

/// An asset value.
pub struct AssetFieldValue(i32);

/// The value of a custom field that names an asset.
#[Object]
impl AssetFieldValue {
    /// The asset's global id.
    async fn asset_id(&self) -> ID {
        ids::encode("Asset", self.0)
    }
    /// The asset, when the viewer may see it (batched across the page).
    async fn asset(&self, ctx: &Context<'_>) -> Result<Option<Asset>> {
        let (req, _) = viewer(ctx)?;
        let found = req
            .visible
            .load_one(VisibleAssetKey(self.0))
            .await
            .map_err(load_error)?;
        Ok(found.map(Asset))
    }
}
