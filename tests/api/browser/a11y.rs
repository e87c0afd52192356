//! Accessibility: an axe-core audit (from the npm registry, `tests/a11y`, installed by `scripts/install-axe.sh`)
//! of every page, on the demo's data, as an administrator, an agent and a requester, at 1,400 and 500 px, and in
//! dark mode: no serious or critical violation. GraphiQL is left out: it is the GraphiQL project's interface, served as built
//! (docs/web.md says what the audit finds there).
use crate::support::browser::{in_chromium, in_chromium_dark, sign_in_with, wait_for};
use crate::support::helpers::TestApp;
use fantoccini::Client;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};

const AXE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/a11y/node_modules/axe-core/axe.min.js"
);

/// axe-core's source, or `None` (with a notice) when it is not installed; under CI its absence fails.
fn axe_source() -> Option<String> {
    match std::fs::read_to_string(AXE) {
        Ok(source) => Some(source),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but axe-core is missing: run scripts/install-axe.sh")
        }
        Err(_) => {
            eprintln!("NOTICE: axe-core not installed; accessibility audit skipped (scripts/install-axe.sh)");
            None
        }
    }
}

/// Run axe on the page at `path`: its serious and critical violations, one line each.
async fn audit(client: &Client, base: &str, axe: &str, path: &str) -> Vec<String> {
    client.goto(&format!("{base}{path}")).await.unwrap();
    wait_for(client, "main, body").await;
    client.execute(axe, vec![]).await.unwrap();
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, { resultTypes: ['violations'] })
               .then(r => done(r.violations
                 .filter(v => v.impact === 'serious' || v.impact === 'critical')
                 .map(v => v.id + ' (' + v.impact + '): ' + v.help + ' at '
                   + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))))
               .catch(e => done(['axe failed: ' + e]));",
            vec![],
        )
        .await
        .unwrap();
    let Value::Array(lines) = found else {
        panic!("axe answered {found}")
    };
    let mut problems: Vec<String> = lines
        .into_iter()
        .map(|l| format!("{path}: {}", l.as_str().unwrap_or_default()))
        .collect();
    // No page scrolls sideways, at any width.
    let wide = client
        .execute(
            "return document.documentElement.scrollWidth - window.innerWidth",
            vec![],
        )
        .await
        .unwrap();
    if wide.as_i64().unwrap_or_default() > 0 {
        problems.push(format!("{path}: scrolls sideways by {wide} px"));
    }
    problems
}

async fn sign_in_as(client: &Client, base: &str, username: &str) {
    client.delete_all_cookies().await.unwrap();
    sign_in_with(client, base, username, &format!("{username}-demo")).await;
}

/// The first id of `entity`'s rows, as a page path `prefix<id>/`.
async fn first<E: EntityTrait>(app: &TestApp, prefix: &str, id: E::Column) -> Option<String> {
    let found = E::find()
        .order_by_asc(id)
        .one(&app.state.db.conn)
        .await
        .unwrap()?;
    match sea_orm::ModelTrait::get(&found, id) {
        sea_orm::Value::Int(Some(id)) => Some(format!("{prefix}{id}/")),
        other => panic!("an id of {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_passes_an_axe_audit() {
    let Some(axe) = axe_source() else { return };
    let app = TestApp::sqlite().await;
    deskgraph::demo::seed(&app.state).await.unwrap();
    let carol = deskgraph::service::users::find_by_username(&app.state.db.conn, "carol")
        .await
        .unwrap()
        .unwrap();
    let carols_ticket = entity::ticket::Entity::find()
        .filter(entity::ticket::Column::RequesterId.eq(carol.id))
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .map(|t| format!("/tickets/{}/", t.id))
        .expect("the demo has a ticket of carol's");
    let mut admin_pages: Vec<String> = [
        "/tickets/",
        "/tickets/?view=mine",
        "/tickets/?q=printer",
        "/tickets/?q=zzzz",
        "/tickets/new/",
        "/reports/",
        "/settings/",
        "/admin/users/",
        "/admin/groups/",
        "/admin/tags/",
        "/admin/fields/",
        "/admin/triggers/",
        "/admin/triggers/new/",
        "/admin/time-rules/",
        "/admin/time-rules/new/",
        "/admin/webhooks/",
        "/admin/chat/",
        "/admin/mail/",
        "/admin/sla/",
        "/admin/projects/",
        "/admin/assets/",
        "/admin/audit/",
        "/no-such-page/",
    ]
    .map(String::from)
    .to_vec();
    admin_pages.push(carols_ticket.clone());
    for detail in [
        first::<entity::user::Entity>(&app, "/admin/users/", entity::user::Column::Id).await,
        first::<entity::trigger::Entity>(&app, "/admin/triggers/", entity::trigger::Column::Id)
            .await,
        first::<entity::time_rule::Entity>(
            &app,
            "/admin/time-rules/",
            entity::time_rule::Column::Id,
        )
        .await,
        first::<entity::webhook::Entity>(&app, "/admin/webhooks/", entity::webhook::Column::Id)
            .await,
    ]
    .into_iter()
    .flatten()
    {
        admin_pages.push(detail);
    }
    let agent_pages: Vec<String> = ["/tickets/", "/tickets/?view=breaching"]
        .map(String::from)
        .into_iter()
        .chain([carols_ticket.clone()])
        .collect();
    let requester_pages: Vec<String> = ["/tickets/", "/tickets/new/", "/settings/"]
        .map(String::from)
        .into_iter()
        .chain([carols_ticket.clone()])
        .collect();
    let users = [
        ("admin", &admin_pages),
        ("alice", &agent_pages),
        ("carol", &requester_pages),
    ];
    let audits = Audits {
        axe: &axe,
        users: &users,
    };
    in_chromium(&app, |client, base| async move {
        let found = audits.run(&client, &base, &[(1400, 900), (500, 900)]).await;
        assert!(
            found.is_empty(),
            "serious or critical accessibility violations:\n{}",
            found.join("\n")
        );
        // The audit ran: axe is on the last page.
        assert_eq!(
            client
                .execute("return typeof axe.run", vec![])
                .await
                .unwrap(),
            json!("function")
        );
    })
    .await;
    // Dark mode (`prefers-color-scheme: dark`) has its own colours: audited too, at one width.
    in_chromium_dark(&app, |client, base| async move {
        let dark = client
            .execute(
                "return matchMedia('(prefers-color-scheme: dark)').matches",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(dark, json!(true));
        let found = audits.run(&client, &base, &[(1400, 900)]).await;
        assert!(
            found.is_empty(),
            "serious or critical accessibility violations in dark mode:\n{}",
            found.join("\n")
        );
    })
    .await;
    // In German (longer words, `<html lang="de">`), chosen in each user's settings: audited at the narrow
    // width, where longer words would make a page scroll sideways.
    entity::user::Entity::update_many()
        .col_expr(
            entity::user::Column::Language,
            sea_orm::sea_query::Expr::value("de"),
        )
        .exec(&app.state.db.conn)
        .await
        .unwrap();
    // Changed behind the service's back: the accounts it remembers are forgotten, as its own writes do (a fast
    // run signs them in again before the remembered English ones would have expired).
    app.state.auth_cache.changed(&app.state.db).await;
    in_chromium(&app, |client, base| async move {
        let found = audits.run(&client, &base, &[(500, 900)]).await;
        assert!(
            found.is_empty(),
            "serious or critical accessibility violations in German:\n{}",
            found.join("\n")
        );
        let lang = client
            .execute("return document.documentElement.lang", vec![])
            .await
            .unwrap();
        let page = client
            .execute("return location.pathname + ' ' + document.title", vec![])
            .await
            .unwrap();
        assert_eq!(lang, json!("de"), "the last page: {page}");
    })
    .await;
}

/// What to audit: axe's source, and each user with their pages.
#[derive(Clone, Copy)]
struct Audits<'a> {
    axe: &'a str,
    users: &'a [(&'static str, &'a Vec<String>)],
}

impl Audits<'_> {
    /// Every page of every user, signed out first, at each window size: what axe found.
    async fn run(self, client: &Client, base: &str, sizes: &[(u32, u32)]) -> Vec<String> {
        let mut violations = Vec::new();
        for &(width, height) in sizes {
            client.set_window_size(width, height).await.unwrap();
            client
                .goto(&format!("{base}/accounts/login/"))
                .await
                .unwrap();
            client.delete_all_cookies().await.unwrap();
            for path in ["/accounts/login/", "/accounts/password-reset/"] {
                violations.extend(audit(client, base, self.axe, path).await);
            }
            for &(user, pages) in self.users {
                sign_in_as(client, base, user).await;
                for path in pages {
                    let found = audit(client, base, self.axe, path).await;
                    violations.extend(
                        found
                            .into_iter()
                            .map(|v| format!("{user} at {width}px, {v}")),
                    );
                }
            }
        }
        violations
    }
}
