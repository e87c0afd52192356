//! Saved views of the queue: a user's name for a set of the queue's filters, view and order, kept as the queue's
//! query string. Only their owner lists, replaces or removes them. A view holds no rights of its own: opening one
//! runs the queue's read with the viewer as they are then, so it never shows more than the queue would.
use crate::auth::Actor;
use crate::db::remembered::{Kind, Remembered};
use crate::db::Db;
use crate::error::{AppError, AppResult, OnConstraint};
use chrono::Utc;
use entity::saved_view;
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};

/// Most views one user keeps.
pub const MOST_PER_USER: u64 = 50;
/// Longest name, in characters.
pub const MAX_NAME: usize = 80;
/// Longest query string a view keeps, in bytes.
pub const MAX_QUERY: usize = 2000;

/// The queue's parameters a view keeps, in this order (with the custom-field filters, `field.<key>…`, after
/// them); paging and anything else is left out.
const KEPT: [&str; 10] = [
    "view", "q", "status", "priority", "assigned", "tag", "tag_any", "closed", "sort", "limit",
];

/// One saved view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedView {
    /// Its id.
    pub id: i32,
    /// Its name, as typed.
    pub name: String,
    /// The queue's query string: `/tickets/?{query}` opens it.
    pub query: String,
}

impl From<saved_view::Model> for SavedView {
    fn from(m: saved_view::Model) -> Self {
        SavedView {
            id: m.id,
            name: m.name,
            query: m.query,
        }
    }
}

/// The part of a queue query string a view keeps: the known parameters that have a value, in one order, so that
/// the same filters always read the same (the queue marks the view it shows by comparing them).
pub fn normalise(query: &str) -> String {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(_, v)| !v.trim().is_empty())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for key in KEPT {
        for (k, v) in pairs.iter().filter(|(k, _)| k == key) {
            out.append_pair(k, v);
        }
    }
    for (k, v) in pairs.iter().filter(|(k, _)| k.starts_with("field.")) {
        out.append_pair(k, v);
    }
    out.finish()
}

/// Each user's views, as remembered (keyed by user).
pub struct Views;

impl Kind for Views {
    type Key = i32;
    type Value = Vec<SavedView>;
    const CHANNEL: &'static str = "deskgraph_saved_views";
    const CAPACITY: u64 = 10_000;
    const CHANGE: &'static str = "saved view change";
}

/// Each user's views, remembered per instance, so that the queue reads no statement for its list of them:
/// saving or removing one forgets them on every instance (`db::remembered`). Cheap to clone.
pub type KnownViews = Remembered<Views>;

/// `actor`'s views, by name (remembered in `known`).
pub async fn list(
    db: &impl ConnectionTrait,
    known: &KnownViews,
    actor: &Actor,
) -> AppResult<std::sync::Arc<Vec<SavedView>>> {
    known.get_or_read(actor.id(), read(db, actor)).await
}

/// [`list`] read from the database.
async fn read(db: &impl ConnectionTrait, actor: &Actor) -> AppResult<Vec<SavedView>> {
    Ok(saved_view::Entity::find()
        .filter(saved_view::Column::UserId.eq(actor.id()))
        .order_by_asc(saved_view::Column::NameKey)
        .all(db)
        .await?
        .into_iter()
        .map(SavedView::from)
        .collect())
}

/// Save the queue's `query` (normalised) as `actor`'s view `name`, replacing the filters of their view of that
/// name in any case. VALIDATION on `name`: blank, longer than [`MAX_NAME`], control characters, the filters
/// longer than [`MAX_QUERY`], or a new view beyond [`MOST_PER_USER`].
pub async fn save(
    db: &Db,
    known: &KnownViews,
    actor: &Actor,
    name: &str,
    query: &str,
) -> AppResult<SavedView> {
    let name = name.trim();
    if name.is_empty() {
        return Err(AppError::field("name", "give the view a name"));
    }
    if name.chars().count() > MAX_NAME {
        return Err(AppError::field(
            "name",
            format!("at most {MAX_NAME} characters"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(AppError::field("name", "must not hold control characters"));
    }
    let query = normalise(query);
    if query.len() > MAX_QUERY {
        return Err(AppError::field(
            "name",
            "these filters are too long to save as a view",
        ));
    }
    let key = name.to_lowercase();
    // One read of the user's few names tells both whether this one replaces a view and how many there are.
    let kept: Vec<String> = saved_view::Entity::find()
        .select_only()
        .column(saved_view::Column::NameKey)
        .filter(saved_view::Column::UserId.eq(actor.id()))
        .into_tuple()
        .all(&db.conn)
        .await?;
    let replacing = kept.contains(&key);
    if !replacing && u64::try_from(kept.len()).unwrap_or(u64::MAX) >= MOST_PER_USER {
        return Err(AppError::field(
            "name",
            format!("you keep {MOST_PER_USER} saved views already; remove one first"),
        ));
    }
    let now = Utc::now();
    let row = saved_view::ActiveModel {
        user_id: Set(actor.id()),
        name: Set(name.to_string()),
        name_key: Set(key.clone()),
        query: Set(query),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    // Two saves of one name at once: the later one's filters stay.
    saved_view::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([saved_view::Column::UserId, saved_view::Column::NameKey])
                .update_columns([
                    saved_view::Column::Name,
                    saved_view::Column::Query,
                    saved_view::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(&db.conn)
        .await
        .on_unique("name", "a view of this name was just saved")?;
    let saved = saved_view::Entity::find()
        .filter(saved_view::Column::UserId.eq(actor.id()))
        .filter(saved_view::Column::NameKey.eq(key))
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::NotFound("no such saved view".into()))?;
    known.changed(db).await;
    Ok(saved.into())
}

/// Remove `actor`'s view `id`; NOT_FOUND when they have none of that id (another user's is not theirs).
pub async fn remove(db: &Db, known: &KnownViews, actor: &Actor, id: i32) -> AppResult<()> {
    let gone = saved_view::Entity::delete_many()
        .filter(saved_view::Column::Id.eq(id))
        .filter(saved_view::Column::UserId.eq(actor.id()))
        .exec(&db.conn)
        .await?;
    if gone.rows_affected == 0 {
        return Err(AppError::NotFound("no such saved view".into()));
    }
    known.changed(db).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn a_view_keeps_the_queues_filters_in_one_order() {
        assert_eq!(
            normalise("page=3&priority=high&q=vpn+down&bogus=1&sort=-updated&status=&view=mine"),
            "view=mine&q=vpn+down&priority=high&sort=-updated"
        );
        assert_eq!(
            normalise("field.serial=AB%261&tag=vpn&tag=home+office"),
            "tag=vpn&tag=home+office&field.serial=AB%261"
        );
        assert_eq!(normalise(""), "");
    }
}
