//! Accounts, groups and passwords: admins manage accounts and groups; anyone signed in changes their own
//! password; anyone asks for and uses a reset link. Each mutation is a door over `service::users`.
use crate::graphql::context::{request, viewer};
use crate::graphql::ids;
use crate::graphql::types::{Group, User};
use crate::http::client_ip::ClientAddress;
use crate::service::users::{accounts, groups, passwords, Admin};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};

/// Account and group mutations.
#[derive(Default)]
pub struct PeopleMutation;

/// A new account (admins).
#[derive(InputObject)]
pub struct CreateUserInput {
    /// Login name, 1–150 characters, unique whatever its letter case.
    username: String,
    /// Initial password (at least the configured minimum, not the user name).
    password: String,
    /// Display name.
    full_name: Option<String>,
    /// Email, unique whatever its letter case.
    email: Option<String>,
    /// Staff flag (default false).
    is_staff: Option<bool>,
    /// Superuser flag (default false; only a superuser may set it).
    is_superuser: Option<bool>,
    /// Groups to join.
    group_ids: Option<Vec<ID>>,
}

/// Changes to an account (admins); absent fields stay, `email: null` clears it.
#[derive(InputObject)]
pub struct UpdateUserInput {
    /// The account.
    id: ID,
    /// New display name.
    full_name: Option<String>,
    /// New email, or null to clear it.
    email: MaybeUndefined<String>,
    /// New staff flag.
    is_staff: Option<bool>,
    /// New superuser flag (only a superuser may change it).
    is_superuser: Option<bool>,
    /// The account's groups, replacing the current ones.
    group_ids: Option<Vec<ID>>,
}

/// An account to act on (admins).
#[derive(InputObject)]
pub struct DeactivateUserInput {
    /// The account.
    id: ID,
}

/// An account to act on (admins).
#[derive(InputObject)]
pub struct ReactivateUserInput {
    /// The account.
    id: ID,
}

/// A new password for an account (admins).
#[derive(InputObject)]
pub struct SetUserPasswordInput {
    /// The account.
    id: ID,
    /// The new password.
    password: String,
}

/// The viewer's new password.
#[derive(InputObject)]
pub struct ChangeMyPasswordInput {
    /// The password now.
    current_password: String,
    /// The new one.
    new_password: String,
}

/// Where to send a reset link.
#[derive(InputObject)]
pub struct RequestPasswordResetInput {
    /// The account's email address.
    email: String,
}

/// A reset link's secret and the new password.
#[derive(InputObject)]
pub struct ResetPasswordInput {
    /// The secret from the emailed link (`/accounts/password-reset/<token>/`).
    token: String,
    /// The new password.
    new_password: String,
}

/// A new group (admins).
#[derive(InputObject)]
pub struct CreateGroupInput {
    /// Name, unique whatever its letter case.
    name: String,
}

/// A group's new name (admins; not a team group).
#[derive(InputObject)]
pub struct UpdateGroupInput {
    /// The group.
    id: ID,
    /// New name.
    name: String,
}

/// A group to delete (admins; refused while open tickets are assigned to it).
#[derive(InputObject)]
pub struct DeleteGroupInput {
    /// The group.
    id: ID,
}

/// A membership to add (admins).
#[derive(InputObject)]
pub struct AddGroupMemberInput {
    /// The group.
    group_id: ID,
    /// The account.
    user_id: ID,
}

/// A membership to remove (admins).
#[derive(InputObject)]
pub struct RemoveGroupMemberInput {
    /// The group.
    group_id: ID,
    /// The account.
    user_id: ID,
}

/// The account after the change.
#[derive(SimpleObject)]
pub struct UserPayload {
    /// The account.
    user: User,
}

/// The deactivated account, and what it leaves to reassign.
#[derive(SimpleObject)]
pub struct DeactivateUserPayload {
    /// The account.
    user: User,
    /// Open tickets still assigned to it (find them with `tickets(filter: {assigneeId})`).
    open_assignment_count: i64,
}

/// The outcome of a reset request: always true, whether or not an account has the address.
#[derive(SimpleObject)]
pub struct RequestPasswordResetPayload {
    /// True: if an active account has the address, a link is on its way.
    accepted: bool,
}

/// The group after the change.
#[derive(SimpleObject)]
pub struct GroupPayload {
    /// The group.
    group: Group,
}

/// The deleted group.
#[derive(SimpleObject)]
pub struct DeleteGroupPayload {
    /// Its global id.
    deleted_group_id: ID,
}

/// The group and the account whose membership changed.
#[derive(SimpleObject)]
pub struct GroupMemberPayload {
    /// The group.
    group: Group,
    /// The account.
    user: User,
}

fn group_ids(ids: Option<&Vec<ID>>) -> Result<Option<Vec<i32>>> {
    Ok(ids
        .map(|ids| {
            ids.iter()
                .map(|id| ids::decode(id, "Group", "groupIds"))
                .collect::<Result<Vec<i32>, _>>()
        })
        .transpose()?)
}

#[Object]
impl PeopleMutation {
    /// Create an account (admins).
    async fn create_user(&self, ctx: &Context<'_>, input: CreateUserInput) -> Result<UserPayload> {
        let (req, actor) = viewer(ctx)?;
        let account = accounts::NewAccount {
            username: input.username,
            password: Some(input.password),
            full_name: input.full_name.unwrap_or_default(),
            email: input.email,
            is_staff: input.is_staff.unwrap_or(false),
            is_superuser: input.is_superuser.unwrap_or(false),
            group_ids: group_ids(input.group_ids.as_ref())?.unwrap_or_default(),
        };
        let created =
            accounts::create(req.state.people_deps(), &Admin::of(&actor)?, account).await?;
        Ok(UserPayload {
            user: User(created),
        })
    }

    /// Change an account's name, email, flags or groups (admins).
    async fn update_user(&self, ctx: &Context<'_>, input: UpdateUserInput) -> Result<UserPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "User", "id")?;
        let patch = accounts::AccountPatch {
            full_name: input.full_name,
            email: match input.email {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(email) => Some(Some(email)),
            },
            is_staff: input.is_staff,
            is_superuser: input.is_superuser,
            group_ids: group_ids(input.group_ids.as_ref())?,
        };
        let updated =
            accounts::update(req.state.people_deps(), &Admin::of(&actor)?, id, patch).await?;
        Ok(UserPayload {
            user: User(updated),
        })
    }

    /// Deactivate an account (admins; not yourself, not the last admin): its sessions end, its tokens
    /// stop working and its subscriptions close at once on every instance.
    async fn deactivate_user(
        &self,
        ctx: &Context<'_>,
        input: DeactivateUserInput,
    ) -> Result<DeactivateUserPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "User", "id")?;
        let user = accounts::deactivate(req.state.people_deps(), &Admin::of(&actor)?, id).await?;
        let open = accounts::open_assignments(&req.state.db.conn, id).await?;
        Ok(DeactivateUserPayload {
            user: User(user),
            open_assignment_count: open as i64,
        })
    }

    /// Reactivate an account (admins); earlier sessions and tokens stay ended.
    async fn reactivate_user(
        &self,
        ctx: &Context<'_>,
        input: ReactivateUserInput,
    ) -> Result<UserPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "User", "id")?;
        let user = accounts::reactivate(req.state.people_deps(), &Admin::of(&actor)?, id).await?;
        Ok(UserPayload { user: User(user) })
    }

    /// Set an account's password (admins); its sessions end.
    async fn set_user_password(
        &self,
        ctx: &Context<'_>,
        input: SetUserPasswordInput,
    ) -> Result<UserPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "User", "id")?;
        let user = passwords::set(
            req.state.people_deps(),
            &Admin::of(&actor)?,
            id,
            input.password,
        )
        .await?;
        Ok(UserPayload { user: User(user) })
    }

    /// Change the viewer's password, given the current one. Other sessions and earlier access tokens
    /// (JWTs) of the account stop working; a browser's own session stays signed in.
    async fn change_my_password(
        &self,
        ctx: &Context<'_>,
        input: ChangeMyPasswordInput,
    ) -> Result<UserPayload> {
        let (req, actor) = viewer(ctx)?;
        let keep = ctx
            .data_opt::<crate::graphql::context::SessionSecret>()
            .map(|s| s.0.as_str());
        let user = passwords::change_mine(
            req.state.people_deps(),
            &actor,
            &input.current_password,
            input.new_password,
            keep,
        )
        .await?;
        Ok(UserPayload { user: User(user) })
    }

    /// Email a one-time reset link to the active account with this address, if there is one; works
    /// without authentication, answers the same either way, and is limited like failed sign-ins.
    async fn request_password_reset(
        &self,
        ctx: &Context<'_>,
        input: RequestPasswordResetInput,
    ) -> Result<RequestPasswordResetPayload> {
        let req = request(ctx)?;
        let client = ctx.data_opt::<ClientAddress>().and_then(|c| c.0);
        passwords::request_reset(
            req.state.people_deps(),
            &req.state.counters,
            req.state.config.login_throttle.window_seconds,
            &input.email,
            client,
        )
        .await?;
        Ok(RequestPasswordResetPayload { accepted: true })
    }

    /// Set a new password with a reset link's secret; works without authentication, once, before the
    /// link expires.
    async fn reset_password(
        &self,
        ctx: &Context<'_>,
        input: ResetPasswordInput,
    ) -> Result<UserPayload> {
        let req = request(ctx)?;
        let user =
            passwords::reset(req.state.people_deps(), &input.token, input.new_password).await?;
        // The caller proved only the link: they see the account as its owner would.
        Ok(UserPayload { user: User(user) })
    }

    /// Create a group (admins).
    async fn create_group(
        &self,
        ctx: &Context<'_>,
        input: CreateGroupInput,
    ) -> Result<GroupPayload> {
        let (req, actor) = viewer(ctx)?;
        let group =
            groups::create(req.state.people_deps(), &Admin::of(&actor)?, &input.name).await?;
        Ok(GroupPayload {
            group: Group(group),
        })
    }

    /// Rename a group (admins; the team groups keep their names).
    async fn update_group(
        &self,
        ctx: &Context<'_>,
        input: UpdateGroupInput,
    ) -> Result<GroupPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Group", "id")?;
        let group = groups::rename(
            req.state.people_deps(),
            &Admin::of(&actor)?,
            id,
            &input.name,
        )
        .await?;
        Ok(GroupPayload {
            group: Group(group),
        })
    }

    /// Delete a group (admins; refused with the count while open tickets are assigned to it).
    async fn delete_group(
        &self,
        ctx: &Context<'_>,
        input: DeleteGroupInput,
    ) -> Result<DeleteGroupPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Group", "id")?;
        groups::delete(req.state.people_deps(), &Admin::of(&actor)?, id).await?;
        Ok(DeleteGroupPayload {
            deleted_group_id: input.id,
        })
    }

    /// Add an account to a group (admins).
    async fn add_group_member(
        &self,
        ctx: &Context<'_>,
        input: AddGroupMemberInput,
    ) -> Result<GroupMemberPayload> {
        let (req, actor) = viewer(ctx)?;
        let group_id = ids::decode(&input.group_id, "Group", "groupId")?;
        let user_id = ids::decode(&input.user_id, "User", "userId")?;
        let (group, user) = groups::add_member(
            req.state.people_deps(),
            &Admin::of(&actor)?,
            group_id,
            user_id,
        )
        .await?;
        Ok(GroupMemberPayload {
            group: Group(group),
            user: User(user),
        })
    }

    /// Remove an account from a group (admins).
    async fn remove_group_member(
        &self,
        ctx: &Context<'_>,
        input: RemoveGroupMemberInput,
    ) -> Result<GroupMemberPayload> {
        let (req, actor) = viewer(ctx)?;
        let group_id = ids::decode(&input.group_id, "Group", "groupId")?;
        let user_id = ids::decode(&input.user_id, "User", "userId")?;
        let (group, user) = groups::remove_member(
            req.state.people_deps(),
            &Admin::of(&actor)?,
            group_id,
            user_id,
        )
        .await?;
        Ok(GroupMemberPayload {
            group: Group(group),
            user: User(user),
        })
    }
}
