//! The ticket page's "Before the edit" versions follow the same rule as every other door: a version
//! that was internal is shown only to those who may read internal comments.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::world::{actor, add, login, world};
use deskgraph::domain::CommentType;
use deskgraph::service::comments::{self, CommentPatch};

db_test!(earlier_internal_versions_stay_off_the_requesters_page);
async fn earlier_internal_versions_stay_off_the_requesters_page(app: &TestApp) {
    let w = world(app).await;
    let note = add(
        app,
        &w.agent,
        w.ticket.id,
        "root cause: the admin password is in the wiki",
        CommentType::Internal,
    )
    .await;
    // Published with new text: the internal text is now only an earlier version.
    comments::edit(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &w.agent).await,
        note.id,
        CommentPatch {
            body: Some("Fixed on our side, please try again".into()),
            comment_type: Some(CommentType::Public),
        },
    )
    .await
    .unwrap();
    let path = format!("/tickets/{}/", w.ticket.id);

    let page = login(app, &w.owner).await.page(app, &path).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("Fixed on our side"), "{}", page.text);
    assert!(
        !page.text.contains("admin password"),
        "the requester reads an earlier internal version: {}",
        page.text
    );
    for reader in [&w.agent, &w.assignee, &w.grouper] {
        let page = login(app, reader).await.page(app, &path).await;
        assert_eq!(page.status, 200, "{}", page.text);
        assert!(
            page.text.contains("Before the edit") && page.text.contains("admin password"),
            "{} should see the earlier version: {}",
            reader.username,
            page.text
        );
    }
}
