//! Ticket–asset links in the service: who may link, idempotence, audit, and batched lookups that
//! respect ticket and asset visibility.
use crate::db_test;
use crate::support::clients::actor;
use crate::support::helpers::TestApp;
use deskgraph::auth::Actor;
use deskgraph::domain::AssetType;
use deskgraph::error::AppError;
use deskgraph::service::assets::{self, NewAsset};
use deskgraph::service::tickets::{self, NewTicket};
use deskgraph::service::Take;
use entity::audit_event;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::json;

async fn new_asset(
    app: &TestApp,
    team: &Actor,
    name: &str,
    owner: Option<i32>,
) -> entity::asset::Model {
    assets::create(
        &app.state.db,
        team,
        NewAsset {
            name: name.into(),
            asset_type: AssetType::Hardware,
            status: None,
            location: None,
            owner_id: owner,
            description: None,
            serial_number: None,
        },
    )
    .await
    .unwrap()
}

async fn new_ticket(
    app: &TestApp,
    requester: &Actor,
    assignee: Option<i32>,
) -> entity::ticket::Model {
    app.open_for(
        requester,
        NewTicket {
            title: "Broken screen".into(),
            assignee_id: assignee,
            ..Default::default()
        },
    )
    .await
}

fn names<T>(items: Option<&Vec<T>>, name: impl Fn(&T) -> String) -> Vec<String> {
    items
        .map(|v| v.iter().map(name).collect())
        .unwrap_or_default()
}

async fn linking_is_idempotent_and_audited(app: &TestApp) {
    let agent = actor(app, &app.agent("agnes").await).await;
    let rita = actor(app, &app.user("rita").await).await;
    let ticket = new_ticket(app, &rita, None).await;
    let laptop = new_asset(app, &agent, "Laptop", None).await;

    assert!(
        assets::link_asset(&app.state.db, &agent, ticket.id, laptop.id)
            .await
            .unwrap()
    );
    assert!(
        !assets::link_asset(&app.state.db, &agent, ticket.id, laptop.id)
            .await
            .unwrap()
    );
    let linked = assets::assets_of_tickets(&app.state.db.conn, &agent, &[ticket.id], Take::All)
        .await
        .unwrap();
    assert_eq!(
        names(linked.get(&ticket.id), |a| a.name.clone()),
        ["Laptop"]
    );
    let back = assets::tickets_of_assets(&app.state.db.conn, &agent, &[laptop.id], Take::All)
        .await
        .unwrap();
    assert_eq!(
        names(back.get(&laptop.id), |t| t.id.to_string()),
        [ticket.id.to_string()]
    );

    assert!(
        assets::unlink_asset(&app.state.db, &agent, ticket.id, laptop.id)
            .await
            .unwrap()
    );
    assert!(
        !assets::unlink_asset(&app.state.db, &agent, ticket.id, laptop.id)
            .await
            .unwrap()
    );
    assert!(
        assets::assets_of_tickets(&app.state.db.conn, &agent, &[ticket.id], Take::All)
            .await
            .unwrap()
            .is_empty()
    );

    let audits = audit_event::Entity::find()
        .filter(audit_event::Column::TicketId.eq(ticket.id))
        .filter(audit_event::Column::Action.is_in(["link_asset", "unlink_asset"]))
        .order_by_asc(audit_event::Column::Id)
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let summary: Vec<(String, serde_json::Value)> =
        audits.into_iter().map(|a| (a.action, a.changes)).collect();
    assert_eq!(
        summary,
        [
            (
                "link_asset".to_string(),
                json!({"asset_id": [null, laptop.id]})
            ),
            (
                "unlink_asset".to_string(),
                json!({"asset_id": [laptop.id, null]})
            ),
        ]
    );
}
db_test!(linking_is_idempotent_and_audited);

async fn who_may_link(app: &TestApp) {
    let agent = actor(app, &app.agent("agnes").await).await;
    let rita = actor(app, &app.user("rita").await).await;
    let worker = actor(app, &app.user("walter").await).await;
    let stranger = actor(app, &app.user("sam").await).await;
    let ticket = new_ticket(app, &rita, Some(worker.id())).await;
    let walters = new_asset(app, &agent, "Walter's phone", Some(worker.id())).await;
    let ritas = new_asset(app, &agent, "Rita's laptop", Some(rita.id())).await;

    let requester = assets::link_asset(&app.state.db, &rita, ticket.id, ritas.id).await;
    assert!(
        matches!(requester, Err(AppError::Forbidden { .. })),
        "{requester:?}"
    );
    let outsider = assets::link_asset(&app.state.db, &stranger, ticket.id, walters.id).await;
    assert!(
        matches!(outsider, Err(AppError::NotFound(_))),
        "{outsider:?}"
    );
    let unseen_asset = assets::link_asset(&app.state.db, &worker, ticket.id, ritas.id).await;
    assert!(
        matches!(unseen_asset, Err(AppError::NotFound(_))),
        "{unseen_asset:?}"
    );
    assert!(
        assets::link_asset(&app.state.db, &worker, ticket.id, walters.id)
            .await
            .unwrap()
    );
    let missing = assets::link_asset(&app.state.db, &agent, ticket.id, 999_999).await;
    assert!(matches!(missing, Err(AppError::NotFound(_))), "{missing:?}");
    let no_ticket = assets::link_asset(&app.state.db, &agent, 999_999, walters.id).await;
    assert!(
        matches!(no_ticket, Err(AppError::NotFound(_))),
        "{no_ticket:?}"
    );
    let unlink = assets::unlink_asset(&app.state.db, &rita, ticket.id, walters.id).await;
    assert!(
        matches!(unlink, Err(AppError::Forbidden { .. })),
        "{unlink:?}"
    );

    assets::archive(&app.state.db, &agent, walters.id)
        .await
        .unwrap();
    let archived = assets::link_asset(&app.state.db, &agent, ticket.id, walters.id).await;
    assert!(
        matches!(archived, Err(AppError::NotFound(_))),
        "{archived:?}"
    );
    // A stale link to an archived asset can still be removed.
    assert!(
        assets::unlink_asset(&app.state.db, &agent, ticket.id, walters.id)
            .await
            .unwrap()
    );
}
db_test!(who_may_link);

async fn lookups_respect_visibility_and_are_batched(app: &TestApp) {
    let agent = actor(app, &app.agent("agnes").await).await;
    let rita = actor(app, &app.user("rita").await).await;
    let olga = actor(app, &app.user("olga").await).await;
    let ritas_ticket = new_ticket(app, &rita, None).await;
    let olgas_ticket = new_ticket(app, &olga, None).await;
    let archived_ticket = new_ticket(app, &olga, None).await;
    let shared = new_asset(app, &agent, "Printer", Some(olga.id())).await;
    let ritas_own = new_asset(app, &agent, "Badge", Some(rita.id())).await;
    let retired = new_asset(app, &agent, "Old printer", Some(olga.id())).await;
    for (t, a) in [
        (ritas_ticket.id, shared.id),
        (ritas_ticket.id, ritas_own.id),
        (ritas_ticket.id, retired.id),
        (olgas_ticket.id, shared.id),
        (archived_ticket.id, shared.id),
    ] {
        assets::link_asset(&app.state.db, &agent, t, a)
            .await
            .unwrap();
    }
    tickets::archive(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        archived_ticket.id,
    )
    .await
    .unwrap();
    assets::archive(&app.state.db, &agent, retired.id)
        .await
        .unwrap();
    let db = &app.state.db.conn;
    let all_tickets = [ritas_ticket.id, olgas_ticket.id, archived_ticket.id];

    let before = app.statements();
    let for_team = assets::assets_of_tickets(db, &agent, &all_tickets, Take::All)
        .await
        .unwrap();
    assert_eq!(
        app.statements() - before,
        2,
        "one query for links, one for assets"
    );
    assert_eq!(
        names(for_team.get(&ritas_ticket.id), |a| a.name.clone()),
        ["Badge", "Printer"]
    );
    assert_eq!(
        names(for_team.get(&olgas_ticket.id), |a| a.name.clone()),
        ["Printer"]
    );
    assert!(!for_team.contains_key(&archived_ticket.id));

    // Rita sees her own ticket, and among its assets only the one she owns.
    let for_rita = assets::assets_of_tickets(db, &rita, &all_tickets, Take::All)
        .await
        .unwrap();
    assert_eq!(
        names(for_rita.get(&ritas_ticket.id), |a| a.name.clone()),
        ["Badge"]
    );
    assert_eq!(for_rita.len(), 1);

    let before = app.statements();
    let by_asset = assets::tickets_of_assets(
        db,
        &agent,
        &[shared.id, ritas_own.id, retired.id],
        Take::All,
    )
    .await
    .unwrap();
    assert_eq!(
        app.statements() - before,
        2,
        "one query for links, one for tickets"
    );
    let ids = |v: Option<&Vec<entity::ticket::Model>>| names(v, |t| t.id.to_string());
    assert_eq!(
        ids(by_asset.get(&shared.id)),
        [olgas_ticket.id.to_string(), ritas_ticket.id.to_string()]
    );
    assert_eq!(
        ids(by_asset.get(&ritas_own.id)),
        [ritas_ticket.id.to_string()]
    );
    assert!(!by_asset.contains_key(&retired.id));

    // Olga owns the printer but sees only her own ticket about it; Rita may not see Olga's asset at all.
    let for_olga = assets::tickets_of_assets(db, &olga, &[shared.id, ritas_own.id], Take::All)
        .await
        .unwrap();
    assert_eq!(ids(for_olga.get(&shared.id)), [olgas_ticket.id.to_string()]);
    assert_eq!(for_olga.len(), 1);
    let for_rita = assets::tickets_of_assets(db, &rita, &[shared.id, ritas_own.id], Take::All)
        .await
        .unwrap();
    assert!(!for_rita.contains_key(&shared.id));
    assert_eq!(
        ids(for_rita.get(&ritas_own.id)),
        [ritas_ticket.id.to_string()]
    );

    assert!(assets::assets_of_tickets(db, &agent, &[], Take::All)
        .await
        .unwrap()
        .is_empty());
}
db_test!(lookups_respect_visibility_and_are_batched);
