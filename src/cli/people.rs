//! `deskgraph user …`, `group …` and `token list`: the operator's door to accounts and groups, over the
//! same service functions as the admin pages, GraphQL and REST (as [`Admin::command_line`]).
use super::{find_user, GroupCommand, UserCommand};
use crate::config::Config;
use crate::service::users::{self, accounts, groups, passwords, Admin};
use crate::service::{tokens, Take};
use crate::state::AppState;
use anyhow::{anyhow, bail, Context};
use entity::group;
use std::io::BufRead;

fn failed(err: crate::error::AppError) -> anyhow::Error {
    anyhow!(err.to_string())
}

async fn group_named(state: &AppState, name: &str) -> anyhow::Result<group::Model> {
    users::list_groups(&state.db.conn, Take::All)
        .await
        .map_err(failed)?
        .into_iter()
        .find(|g| g.name == name)
        .with_context(|| format!("no group named {name:?}"))
}

/// Run `deskgraph user …`.
pub async fn user(config: Config, action: UserCommand) -> anyhow::Result<()> {
    let state = AppState::init(config).await?;
    let admin = Admin::command_line();
    let deps = state.people_deps();
    match action {
        UserCommand::Create {
            username,
            password,
            full_name,
            email,
            staff,
            superuser,
            groups,
        } => {
            let group_ids = users::ensure_groups(&state.db.conn, &groups)
                .await
                .map_err(failed)?;
            let input = accounts::NewAccount {
                username,
                password: Some(password),
                full_name: full_name.unwrap_or_default(),
                email,
                is_staff: staff,
                is_superuser: superuser,
                group_ids,
            };
            let user = accounts::create(deps, &admin, input)
                .await
                .map_err(failed)?;
            println!("created user {} (id {})", user.username, user.id);
        }
        UserCommand::List {
            active,
            role,
            group,
            q,
        } => {
            let group_id = match group {
                Some(name) => Some(group_named(&state, &name).await?.id),
                None => None,
            };
            let filter = accounts::AccountFilter {
                active,
                role: role
                    .map(|r| accounts::Role::parse("role", &r))
                    .transpose()
                    .map_err(failed)?,
                group_id,
                q,
            };
            let (found, total) = accounts::list(&state.db.conn, &admin, &filter, 0, 10_000)
                .await
                .map_err(failed)?;
            println!(
                "{:<6} {:<20} {:<28} {:<8} email",
                "id", "login", "name", "state"
            );
            for u in &found {
                let state = if u.is_active { "active" } else { "inactive" };
                let email = u.email.as_deref().unwrap_or("-");
                println!(
                    "{:<6} {:<20} {:<28} {:<8} {email}",
                    u.id, u.username, u.full_name, state
                );
            }
            println!("{total} account(s)");
        }
        UserCommand::Update {
            username,
            full_name,
            email,
            staff,
            superuser,
        } => {
            let found = find_user(&state, &username).await?;
            let patch = accounts::AccountPatch {
                full_name,
                email: email.map(|e| Some(e).filter(|e| !e.trim().is_empty())),
                is_staff: staff,
                is_superuser: superuser,
                group_ids: None,
            };
            let updated = accounts::update(deps, &admin, found.id, patch)
                .await
                .map_err(failed)?;
            println!("updated user {}", updated.username);
        }
        UserCommand::Deactivate { username } => {
            let found = find_user(&state, &username).await?;
            accounts::deactivate(deps, &admin, found.id)
                .await
                .map_err(failed)?;
            let open = accounts::open_assignments(&state.db.conn, found.id)
                .await
                .map_err(failed)?;
            println!("deactivated {username}; {open} open ticket(s) still assigned to them");
        }
        UserCommand::Reactivate { username } => {
            let found = find_user(&state, &username).await?;
            accounts::reactivate(deps, &admin, found.id)
                .await
                .map_err(failed)?;
            println!("reactivated {username}");
        }
        UserCommand::SetPassword { username, password } => {
            let found = find_user(&state, &username).await?;
            let password = match password {
                Some(p) => p,
                None => {
                    let mut line = String::new();
                    std::io::stdin().lock().read_line(&mut line)?;
                    line.trim_end_matches(['\r', '\n']).to_string()
                }
            };
            passwords::set(deps, &admin, found.id, password)
                .await
                .map_err(failed)?;
            println!("password set for {username}; their sessions ended");
        }
    }
    Ok(())
}

/// Run `deskgraph group …`.
pub async fn group(config: Config, action: GroupCommand) -> anyhow::Result<()> {
    let state = AppState::init(config).await?;
    let admin = Admin::command_line();
    let deps = state.people_deps();
    match action {
        GroupCommand::List => {
            for g in users::list_groups(&state.db.conn, Take::All)
                .await
                .map_err(failed)?
            {
                let filter = accounts::AccountFilter {
                    group_id: Some(g.id),
                    ..Default::default()
                };
                let (members, _) = accounts::list(&state.db.conn, &admin, &filter, 0, 10_000)
                    .await
                    .map_err(failed)?;
                let names: Vec<&str> = members.iter().map(|u| u.username.as_str()).collect();
                println!("{:<6} {:<24} {}", g.id, g.name, names.join(", "));
            }
        }
        GroupCommand::Create { name } => {
            let created = groups::create(deps, &admin, &name).await.map_err(failed)?;
            println!("created group {} (id {})", created.name, created.id);
        }
        GroupCommand::Rename { name, new_name } => {
            let found = group_named(&state, &name).await?;
            groups::rename(deps, &admin, found.id, &new_name)
                .await
                .map_err(failed)?;
            println!("renamed {name} to {new_name}");
        }
        GroupCommand::Delete { name } => {
            let found = group_named(&state, &name).await?;
            groups::delete(deps, &admin, found.id)
                .await
                .map_err(failed)?;
            println!("deleted group {name}");
        }
        GroupCommand::Add { name, username } => {
            let found = group_named(&state, &name).await?;
            let user = find_user(&state, &username).await?;
            groups::add_member(deps, &admin, found.id, user.id)
                .await
                .map_err(failed)?;
            println!("added {username} to {name}");
        }
        GroupCommand::Remove { name, username } => {
            let found = group_named(&state, &name).await?;
            let user = find_user(&state, &username).await?;
            groups::remove_member(deps, &admin, found.id, user.id)
                .await
                .map_err(failed)?;
            println!("removed {username} from {name}");
        }
    }
    Ok(())
}

/// Run `deskgraph token list USER`.
pub async fn tokens(config: Config, username: &str) -> anyhow::Result<()> {
    let state = AppState::init(config).await?;
    let user = find_user(&state, username).await?;
    let found = tokens::list_of_account(&state.db.conn, &Admin::command_line(), user.id, Take::All)
        .await
        .map_err(failed)?;
    if found.is_empty() {
        bail!("{username} has no tokens");
    }
    println!(
        "{:<6} {:<20} {:<22} {:<22} state",
        "id", "name", "created", "last used"
    );
    let at = |t: Option<chrono::DateTime<chrono::Utc>>| {
        t.map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "-".into())
    };
    for t in found {
        let state = if t.revoked_at.is_some() {
            "revoked"
        } else if t.expires_at.is_some_and(|e| e <= chrono::Utc::now()) {
            "expired"
        } else {
            "active"
        };
        println!(
            "{:<6} {:<20} {:<22} {:<22} {state}",
            t.id,
            t.name,
            at(Some(t.created_at)),
            at(t.last_used_at)
        );
    }
    Ok(())
}
