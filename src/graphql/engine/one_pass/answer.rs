//! What a field definition returns ([`super::fields!`]): a value both paths read. The one-pass path
//! asks for it [`Answer::now`] (or gives up), the resolver [`Answer::load`]s it, so a field's rule is
//! written once. Each relation's data source is one small type here.
use super::{cached, object, relation, Env, Plain};
use crate::domain::{CommentType, Priority, StatusCategory, TicketStatus};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::loaders::viewer::{GroupsOfUserKey, UserKey};
use crate::graphql::loaders::{GroupKey, ProjectKey, ProjectTicketCountKey};
use crate::graphql::scalars::Date;
use crate::graphql::types::{Group, Project, User};
use async_graphql::parser::types::Field;
use async_graphql::resolver_utils::enum_value;
use async_graphql::{Context, OutputType, Result, ScalarType, Value, ID};
use chrono::{DateTime, Utc};
use std::future::Future;

/// A field's value as both paths read it.
pub trait Answer: Sized {
    /// The GraphQL output type of the field.
    type Output: OutputType;

    /// The value now, under `field`'s sub-selection, or `None` when it would have to be loaded or would be
    /// an error (the general executor then answers the whole object).
    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value>;

    /// The value for the field's resolver, loading what it must.
    fn load(self, ctx: &Context<'_>) -> impl Future<Output = Result<Self::Output>> + Send;
}

/// A value known from the row and the viewer alone.
pub trait Leaf {
    /// Its GraphQL value.
    fn value(self) -> Value;
}

impl<T: Leaf + OutputType> Answer for T {
    type Output = T;

    fn now(self, _field: &Field, _env: &Env<'_>) -> Option<Value> {
        Some(self.value())
    }

    async fn load(self, _ctx: &Context<'_>) -> Result<T> {
        Ok(self)
    }
}

/// A value that may fail to decode (a bad status in the row): the executor reports the error.
impl<T: Answer + Send, E: Into<async_graphql::Error> + Send> Answer for std::result::Result<T, E> {
    type Output = T::Output;

    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value> {
        self.ok()?.now(field, env)
    }

    async fn load(self, ctx: &Context<'_>) -> Result<T::Output> {
        self.map_err(Into::into)?.load(ctx).await
    }
}

impl Leaf for String {
    fn value(self) -> Value {
        Value::String(self)
    }
}

impl Leaf for ID {
    fn value(self) -> Value {
        Value::String(self.0)
    }
}

impl Leaf for i32 {
    fn value(self) -> Value {
        Value::from(self)
    }
}

impl Leaf for i64 {
    fn value(self) -> Value {
        Value::from(self)
    }
}

impl Leaf for bool {
    fn value(self) -> Value {
        Value::Boolean(self)
    }
}

impl Leaf for DateTime<Utc> {
    fn value(self) -> Value {
        self.to_value()
    }
}

impl Leaf for Date {
    fn value(self) -> Value {
        self.to_value()
    }
}

impl<T: Leaf> Leaf for Option<T> {
    fn value(self) -> Value {
        self.map_or(Value::Null, Leaf::value)
    }
}

impl<T: Leaf> Leaf for Vec<T> {
    fn value(self) -> Value {
        Value::List(self.into_iter().map(Leaf::value).collect())
    }
}

macro_rules! enum_leaf {
    ($($t:ty),*) => {$(
        impl Leaf for $t {
            fn value(self) -> Value {
                enum_value(self)
            }
        }
    )*};
}
enum_leaf!(TicketStatus, StatusCategory, Priority, CommentType);

/// An object the field already holds, answered with the field's sub-selection.
pub struct Nested<T>(pub T);

impl<T: Plain + OutputType> Answer for Nested<T> {
    type Output = T;

    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value> {
        object(&self.0, &field.selection_set.node, env)
    }

    async fn load(self, _ctx: &Context<'_>) -> Result<T> {
        Ok(self.0)
    }
}

/// A user by id, as the viewer may see them: one read with this request's pages, else the loader.
pub struct UserOf(pub Option<i32>);

impl Answer for UserOf {
    type Output = Option<User>;

    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let id = self.0;
        match id.and_then(|id| env.req.page_user(id)) {
            Some(user) => object(&User(user), &field.selection_set.node, env),
            None => relation(&env.req.visible, id.map(UserKey), User, field, env),
        }
    }

    async fn load(self, ctx: &Context<'_>) -> Result<Option<User>> {
        let Some(id) = self.0 else { return Ok(None) };
        let (req, _) = viewer(ctx)?;
        Ok(req.user(id).await?.map(User))
    }
}

/// A project by id, as [`UserOf`].
pub struct ProjectOf(pub Option<i32>);

impl Answer for ProjectOf {
    type Output = Option<Project>;

    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let id = self.0;
        match id.and_then(|id| env.req.page_project(id)) {
            Some(project) => object(&Project(project), &field.selection_set.node, env),
            None => relation(&env.req.loader, id.map(ProjectKey), Project, field, env),
        }
    }

    async fn load(self, ctx: &Context<'_>) -> Result<Option<Project>> {
        let Some(id) = self.0 else { return Ok(None) };
        let (req, _) = viewer(ctx)?;
        Ok(req.project(id).await?.map(Project))
    }
}

/// A group by id, through the loader.
pub struct GroupOf(pub Option<i32>);

impl Answer for GroupOf {
    type Output = Option<Group>;

    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value> {
        relation(&env.req.loader, self.0.map(GroupKey), Group, field, env)
    }

    async fn load(self, ctx: &Context<'_>) -> Result<Option<Group>> {
        let Some(id) = self.0 else { return Ok(None) };
        let (req, _) = viewer(ctx)?;
        let found = req
            .loader
            .load_one(GroupKey(id))
            .await
            .map_err(load_error)?;
        Ok(found.map(Group))
    }
}

/// The groups of a user, as the viewer may see them, by name.
pub struct GroupsOf(pub i32);

impl Answer for GroupsOf {
    type Output = Vec<Group>;

    fn now(self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let groups = cached(&env.req.visible, GroupsOfUserKey(self.0))?;
        let list = groups
            .unwrap_or_default()
            .into_iter()
            .map(|g| object(&Group(g), &field.selection_set.node, env));
        Some(Value::List(list.collect::<Option<_>>()?))
    }

    async fn load(self, ctx: &Context<'_>) -> Result<Vec<Group>> {
        let (req, _) = viewer(ctx)?;
        let groups = req
            .visible
            .load_one(GroupsOfUserKey(self.0))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(groups.into_iter().map(Group).collect())
    }
}

/// A project's non-archived ticket count, through the loader.
pub struct TicketCountOf(pub i32);

impl Answer for TicketCountOf {
    type Output = i64;

    fn now(self, _field: &Field, env: &Env<'_>) -> Option<Value> {
        let count = cached(&env.req.loader, ProjectTicketCountKey(self.0))?;
        Some(Value::from(count.unwrap_or(0)))
    }

    async fn load(self, ctx: &Context<'_>) -> Result<i64> {
        let (req, _) = viewer(ctx)?;
        let count = req
            .loader
            .load_one(ProjectTicketCountKey(self.0))
            .await
            .map_err(load_error)?;
        Ok(count.unwrap_or(0))
    }
}
