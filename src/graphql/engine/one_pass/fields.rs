//! `fields!`: each field of a hot GraphQL object is written once, as GraphQL spells it, with its type
//! and the expression of its value (an [`super::Answer`]); the macro makes both the `#[Object]`
//! resolver and the one-pass [`super::Plain`] arm from that one line.
//!
//! ```text
//! fields! {
//!     /// A request or incident raised by a requester.
//!     impl<'a> TicketFields<'a> as "Ticket" for Ticket, interfaces ["Node"];
//!     /// Title.
//!     title: String = |t| t.0.title.clone();
//!     /// Live comments the viewer may read, oldest first.
//!     async fn comments(&self, ctx: &Context<'_>, first: Option<i32>) -> Result<CommentConnection> { … }
//!     /// Whether the viewer may change anything on the ticket.
//!     viewerCanUpdate: bool = |t, actor| rules::can_update(actor, &t.0);
//! }
//! ```
//!
//! A field written as an `async fn` is answered by the executor only (it takes arguments or pages);
//! every entry keeps its place, which is the schema's field order.
//!
//! `|t| …` reads the object (`&Ticket`); `|t, actor| …` also the signed-in viewer, which the resolver
//! requires (UNAUTHENTICATED otherwise). The resolvers' type borrows the object through
//! [`std::borrow::Borrow`]. Field names are camelCase Rust identifiers so that the one name is both the
//! resolver and the `Plain` arm (async-graphql keeps a camelCase name as it is).
macro_rules! fields {
    (
        $(#[$tdoc:meta])*
        impl<$lt:lifetime> $resolvers:ty as $name:literal for $object:ty,
            interfaces [$($interface:literal),*];
        $($entries:tt)*
    ) => {
        $crate::graphql::engine::one_pass::fields!(@munch
            [impl [<$lt>] [$resolvers] [$name] [$object] [$($interface),*] [$(#[$tdoc])*]]
            arms [] methods [] $($entries)*);
    };
    (
        $(#[$tdoc:meta])*
        impl $resolvers:ty as $name:literal for $object:ty, interfaces [$($interface:literal),*];
        $($entries:tt)*
    ) => {
        $crate::graphql::engine::one_pass::fields!(@munch
            [impl [] [$resolvers] [$name] [$object] [$($interface),*] [$(#[$tdoc])*]]
            arms [] methods [] $($entries)*);
    };
    // A resolver only the executor answers (arguments, connections): kept as written, in its place.
    (@munch $head:tt arms [$($arms:tt)*] methods [$($methods:tt)*]
        $(#[$meta:meta])* async fn $method:ident $params:tt -> $ret:ty $body:block
        $($rest:tt)*
    ) => {
        $crate::graphql::engine::one_pass::fields!(@munch $head arms [$($arms)*]
            methods [$($methods)* $(#[$meta])* async fn $method $params -> $ret $body]
            $($rest)*);
    };
    // A field both paths answer: its resolver here, its `Plain` arm at the end.
    (@munch [impl $lt:tt $resolvers:tt $name:tt [$object:ty] $interfaces:tt $docs:tt]
        arms [$($arms:tt)*] methods [$($methods:tt)*]
        $(#[$doc:meta])* $field:ident : $ty:ty = |$s:ident $(, $actor:ident)?| $value:expr;
        $($rest:tt)*
    ) => {
        $crate::graphql::engine::one_pass::fields!(@munch
            [impl $lt $resolvers $name [$object] $interfaces $docs]
            arms [$($arms)* ($field $s [$($actor)?] ($value))]
            methods [$($methods)*
                $(#[$doc])*
                pub async fn $field(
                    &self,
                    ctx: &async_graphql::Context<'_>,
                ) -> async_graphql::Result<$ty> {
                    let $s: &$object = std::borrow::Borrow::borrow(self);
                    $(
                        let (_, viewer) = $crate::graphql::context::viewer(ctx)?;
                        let $actor: &$crate::auth::Actor = &viewer;
                    )?
                    $crate::graphql::engine::one_pass::Answer::load($value, ctx).await
                }
            ]
            $($rest)*);
    };
    (@munch [impl [$($lt:tt)*] [$resolvers:ty] [$name:literal] [$object:ty] [$($interface:literal),*]
            [$($docs:tt)*]]
        arms [$(($field:ident $s:ident [$($actor:ident)?] ($value:expr)))*]
        methods [$($methods:tt)*]
    ) => {
        impl $crate::graphql::engine::one_pass::Plain for $object {
            const NAME: &'static str = $name;
            const INTERFACES: &'static [&'static str] = &[$($interface),*];

            fn field(
                &self,
                field: &async_graphql::parser::types::Field,
                env: &$crate::graphql::engine::one_pass::Env<'_>,
            ) -> Option<async_graphql::Value> {
                match field.name.node.as_str() {
                    $(stringify!($field) => {
                        let $s: &$object = self;
                        $(let $actor: &$crate::auth::Actor = &env.actor;)?
                        $crate::graphql::engine::one_pass::Answer::now($value, field, env)
                    })*
                    _ => None,
                }
            }
        }

        $($docs)*
        #[allow(non_snake_case)]
        #[async_graphql::Object(name = $name)]
        impl $($lt)* $resolvers {
            $($methods)*
        }
    };
}
pub(crate) use fields;
