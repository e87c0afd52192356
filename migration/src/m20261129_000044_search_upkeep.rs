//! Cheaper upkeep of the search index (`m20261129_000042_ticket_search`), same documents.
//!
//! - A new ticket has no comments yet, so its documents are its title and description alone, written from the
//!   inserted row: no read of the ticket again, no aggregate over comments.
//! - On PostgreSQL, `deskgraph_search_refresh` becomes PL/pgSQL, whose statement plan each connection keeps;
//!   as an SQL function its statement was parsed and planned again on every call, which cost more than the
//!   statement itself.
use crate::helpers::run_statements;
use crate::m20261129_000042_ticket_search::{refresh_statement, sqlite_refresh};
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const POSTGRES_UP: &[&str] = &[
    concat!(
        "CREATE OR REPLACE FUNCTION deskgraph_search_refresh(tid integer) RETURNS void LANGUAGE plpgsql AS ",
        "$body$ BEGIN ",
        refresh_statement!(),
        "; END $body$"
    ),
    // What `deskgraph_search_refresh` writes for a ticket without comments (a test compares the two).
    r#"CREATE FUNCTION deskgraph_search_created() RETURNS trigger LANGUAGE plpgsql AS $body$
     DECLARE
       doc tsvector := setweight(to_tsvector('deskgraph', NEW.title), 'A')
         || setweight(to_tsvector('deskgraph', NEW.description), 'B');
     BEGIN
       INSERT INTO ticket_search (ticket_id, public_doc, all_doc) VALUES (NEW.id, doc, doc);
       RETURN NULL;
     END
     $body$"#,
    "DROP TRIGGER ticket_search_created ON tickets",
    "CREATE TRIGGER ticket_search_created AFTER INSERT ON tickets \
     FOR EACH ROW EXECUTE FUNCTION deskgraph_search_created()",
];

const POSTGRES_DOWN: &[&str] = &[
    "DROP TRIGGER IF EXISTS ticket_search_created ON tickets",
    "CREATE TRIGGER ticket_search_created AFTER INSERT ON tickets \
     FOR EACH ROW EXECUTE FUNCTION deskgraph_search_ticket()",
    "DROP FUNCTION IF EXISTS deskgraph_search_created()",
    concat!(
        "CREATE OR REPLACE FUNCTION deskgraph_search_refresh(tid integer) RETURNS void LANGUAGE sql AS ",
        "$body$ ",
        refresh_statement!(),
        " $body$"
    ),
];

/// One string, so that both run on one connection: a pooled SQLite connection still reading the schema from
/// before the `DROP` would refuse the `CREATE` ("already exists").
const SQLITE_UP: &str = "DROP TRIGGER IF EXISTS ticket_search_created; \
     CREATE TRIGGER ticket_search_created AFTER INSERT ON tickets BEGIN \
     INSERT INTO ticket_search_public (rowid, title, description, comments) \
     VALUES (NEW.id, NEW.title, NEW.description, ''); \
     INSERT INTO ticket_search_all (rowid, title, description, comments, internal) \
     VALUES (NEW.id, NEW.title, NEW.description, '', ''); END";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        run_statements(manager, POSTGRES_UP, &[SQLITE_UP]).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One statement string: the drop and the create run on one connection.
        let trigger = format!(
            "DROP TRIGGER IF EXISTS ticket_search_created; \
             CREATE TRIGGER ticket_search_created AFTER INSERT ON tickets BEGIN {} END",
            sqlite_refresh("NEW.id")
        );
        run_statements(manager, POSTGRES_DOWN, &[trigger]).await
    }
}
