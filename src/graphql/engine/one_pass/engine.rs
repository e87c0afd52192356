//! The only code that reads async-graphql items marked `#[doc(hidden)]` (not covered by its semver):
//! the selection an object is asked for (`ContextSelectionSet::item`), the document's fragments
//! (`query_env.fragments`), the schema registry and `indexmap`'s re-export. The tests below pin the
//! version this was written against and check each item still means what the one-pass path assumes;
//! after an upgrade, re-read these uses against the new async-graphql, then update [`REVIEWED`].
use super::{Env, Plain};
use crate::graphql::context::RequestContext;
use async_graphql::{ContextSelectionSet, Name, Value};
use std::sync::atomic::Ordering;

/// The async-graphql version whose hidden items this module was checked against.
pub const REVIEWED: &str = "7.2.1";

/// The field map of a `Value::Object`.
pub type Map = async_graphql::indexmap::IndexMap<Name, Value>;

/// The one-pass answer for `object` under the selection of `ctx` when it is plain (and plain answers are
/// on), counted in `graphql_plain_objects_total`; `None` leaves it to the general executor.
pub fn answer<T: Plain>(object: &T, ctx: &ContextSelectionSet<'_>) -> Option<Value> {
    let req = ctx.data_opt::<RequestContext>()?;
    if !req.state.config.graphql_plain {
        return None;
    }
    let actor = req.actor().ok()?;
    let env = Env {
        fragments: &ctx.query_env.fragments,
        req,
        actor,
    };
    let value = super::object(object, &ctx.item.node, &env)?;
    req.state.plain_objects.fetch_add(1, Ordering::Relaxed);
    Some(value)
}

/// The GraphQL output of `$outer` through `$fields`, the `#[Object]` resolvers of every field (built by
/// `$outer::fields(&self)`): plain selections are answered by [`answer`], the rest by the executor with
/// `$fields`. Registers `$fields`' type under its GraphQL name.
macro_rules! plain_output {
    ($outer:ty, $fields:ident) => {
        impl async_graphql::OutputType for $outer {
            fn type_name() -> std::borrow::Cow<'static, str> {
                <$fields<'static> as async_graphql::OutputType>::type_name()
            }

            fn create_type_info(registry: &mut async_graphql::registry::Registry) -> String {
                <$fields<'static> as async_graphql::OutputType>::create_type_info(registry)
            }

            async fn resolve(
                &self,
                ctx: &async_graphql::ContextSelectionSet<'_>,
                _field: &async_graphql::Positioned<async_graphql::parser::types::Field>,
            ) -> async_graphql::ServerResult<async_graphql::Value> {
                match $crate::graphql::engine::one_pass::engine::answer(self, ctx) {
                    Some(value) => Ok(value),
                    None => {
                        async_graphql::resolver_utils::resolve_container(ctx, &self.fields()).await
                    }
                }
            }
        }

        impl async_graphql::ContainerType for $outer {
            async fn resolve_field(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> async_graphql::ServerResult<Option<async_graphql::Value>> {
                async_graphql::ContainerType::resolve_field(&self.fields(), ctx).await
            }
        }

        impl async_graphql::ObjectType for $outer {}
    };
}
pub(crate) use plain_output;

#[cfg(test)]
mod tests {
    use super::REVIEWED;
    use async_graphql::parser::types::Selection;
    use async_graphql::{ContextSelectionSet, EmptyMutation, EmptySubscription, Object, Schema};
    use async_graphql::{OutputType, Positioned, ServerResult, Value};
    use std::borrow::Cow;

    /// The async-graphql in Cargo.lock.
    fn locked_version() -> Option<String> {
        let lock = include_str!("../../../../Cargo.lock");
        let mut lines = lock.lines();
        lines.find(|l| *l == "name = \"async-graphql\"")?;
        let version = lines.next()?.strip_prefix("version = \"")?;
        Some(version.trim_end_matches('"').to_owned())
    }

    #[test]
    fn async_graphql_is_the_reviewed_version() {
        assert_eq!(
            locked_version().as_deref(),
            Some(REVIEWED),
            "async-graphql changed: re-check src/graphql/engine/one_pass/engine.rs against it, then update REVIEWED"
        );
    }

    /// An object whose output reports what the hidden items show it: its selection's field names and
    /// the fragments the document defines.
    struct Probe;

    #[Object(name = "Probe")]
    impl ProbeFields {
        async fn a(&self) -> i32 {
            1
        }
    }

    struct ProbeFields;

    impl OutputType for Probe {
        fn type_name() -> Cow<'static, str> {
            ProbeFields::type_name()
        }

        fn create_type_info(registry: &mut async_graphql::registry::Registry) -> String {
            // The registry keeps the type under its GraphQL name, as `plain_output!` relies on.
            let name = ProbeFields::create_type_info(registry);
            assert!(registry.types.contains_key("Probe"));
            name
        }

        async fn resolve(
            &self,
            ctx: &ContextSelectionSet<'_>,
            _field: &Positioned<async_graphql::parser::types::Field>,
        ) -> ServerResult<Value> {
            let mut map = super::Map::new();
            for item in &ctx.item.node.items {
                if let Selection::Field(f) = &item.node {
                    map.insert(f.node.response_key().node.clone(), Value::from(0));
                }
            }
            let mut fragments: Vec<_> = ctx
                .query_env
                .fragments
                .keys()
                .map(|n| n.to_string())
                .collect();
            fragments.sort();
            map.insert(
                async_graphql::Name::new("fragments"),
                Value::from(fragments.join(",")),
            );
            Ok(Value::Object(map))
        }
    }

    struct Root;

    #[Object]
    impl Root {
        async fn probe(&self) -> Probe {
            Probe
        }
    }

    #[tokio::test]
    async fn hidden_items_mean_what_plain_answers_assume() {
        let schema = Schema::new(Root, EmptyMutation, EmptySubscription);
        let doc =
            "{ probe { x: a ...F ...G } } fragment F on Probe { a } fragment G on Probe { a }";
        let response = schema.execute(doc).await;
        assert!(response.errors.is_empty(), "{:?}", response.errors);
        let json = response.data.into_json().unwrap_or_default();
        // `item` is the object's own selection set, unflattened; `fragments` are the document's.
        assert_eq!(
            json,
            serde_json::json!({ "probe": { "x": 0, "fragments": "F,G" } })
        );
    }
}
