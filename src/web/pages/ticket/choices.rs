//! The options of the ticket page's edit form: priorities, projects, people and groups.
use crate::service::users;
use crate::state::AppState;
use crate::web::pages::{display_name, Lang, PageResult};

/// An option of a select in the edit form.
pub(super) struct Choice {
    pub(super) value: String,
    pub(super) label: String,
    pub(super) selected: bool,
}

/// One option.
pub(super) fn choice(value: String, label: String, selected: bool) -> Choice {
    Choice {
        value,
        label,
        selected,
    }
}

/// The choices of the edit form: every project; people and groups when the viewer may assign.
pub(super) async fn edit_choices(
    state: &AppState,
    actor: &crate::auth::Actor,
    t: &entity::ticket::Model,
    can_edit_all: bool,
    lang: Lang,
) -> PageResult<(Vec<Choice>, Vec<Choice>, Vec<Choice>)> {
    let db = &state.db.conn;
    if !can_edit_all {
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    }
    let none = |selected: bool| choice(String::new(), lang.t("ticket-none"), selected);
    let mut projects = vec![none(t.project_id.is_none())];
    projects.extend(
        crate::service::projects::list(db)
            .await?
            .into_iter()
            .map(|p| choice(p.id.to_string(), p.name, t.project_id == Some(p.id))),
    );
    let mut people = vec![none(t.assignee_id.is_none())];
    // Team members list the team (anyone else active is assigned by name, `assigned_username`); an
    // assignee outside the team can still take the ticket themselves.
    let mut listed = if actor.is_team() {
        users::team_members(db, actor, 200).await?
    } else {
        Vec::new()
    };
    if let Some(current) = t
        .assignee_id
        .filter(|id| !listed.iter().any(|u| u.id == *id))
    {
        listed.extend(users::people(db, actor, [current]).await?.into_values());
    }
    let mut ids: Vec<i32> = listed.iter().map(|u| u.id).collect();
    people.extend(listed.iter().map(|u| {
        choice(
            u.id.to_string(),
            display_name(u),
            t.assignee_id == Some(u.id),
        )
    }));
    if !ids.contains(&actor.id()) {
        ids.push(actor.id());
        people.push(choice(
            actor.id().to_string(),
            display_name(&actor.user),
            t.assignee_id == Some(actor.id()),
        ));
    }
    let mut groups = vec![none(t.assigned_group_id.is_none())];
    groups.extend(
        users::list_groups(db, crate::service::Take::All)
            .await?
            .into_iter()
            .map(|g| choice(g.id.to_string(), g.name, t.assigned_group_id == Some(g.id))),
    );
    Ok((projects, people, groups))
}
