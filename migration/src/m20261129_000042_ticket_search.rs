//! Ranked full-text search over tickets and their comments.
//!
//! Each ticket has two documents: the **public** one (title, description, public comments) and the **whole**
//! one (the same and the internal comments). A viewer who may not read a ticket's internal notes is matched and
//! ranked on its public document alone, so a word that only an internal note holds neither finds the ticket
//! nor moves its rank for them. Deleted comments are left out; an edited comment is indexed as it reads now.
//!
//! Triggers keep both documents in step with every write, whichever path makes it (a reply by mail, a merge
//! moving comments, a restore): the service has no second place to forget.
//!
//! - **PostgreSQL:** `ticket_search` holds two `tsvector`s, weighted title A, description B, comments C, built
//!   with the text search configuration `deskgraph`: the `simple` parser's words through an English Snowball
//!   stemmer without stop words (so "the" is still a word, and "dropping" finds "dropped"). Markup is not
//!   indexed: the parser reads tags as tags. One GIN index, on the whole document, serves every viewer: a
//!   requester's match is the whole document's, checked again on the public one.
//! - **SQLite:** two contentless FTS5 tables, `ticket_search_public` and `ticket_search_all`, with the `porter`
//!   tokenizer, ranked with bm25 (`rowid` is the ticket id). FTS5 reads tags as words: the tag names in stored
//!   HTML (`p`, `br`, `a`) are indexed on SQLite and, being in nearly every document, weigh next to nothing.
use crate::helpers::run_statements;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The statement that writes ticket `tid`'s two documents afresh, from its row and its live comments: the one
/// definition of what a ticket's documents hold, run by `deskgraph_search_refresh`.
macro_rules! refresh_statement {
    () => {
        r#"INSERT INTO ticket_search (ticket_id, public_doc, all_doc)
       SELECT t.id, d.doc, d.doc || setweight(to_tsvector('deskgraph', coalesce(i.body, '')), 'C')
       FROM tickets t
       CROSS JOIN LATERAL (SELECT
           setweight(to_tsvector('deskgraph', t.title), 'A')
           || setweight(to_tsvector('deskgraph', t.description), 'B')
           || setweight(to_tsvector('deskgraph', coalesce((
                SELECT string_agg(c.body, ' ' ORDER BY c.id) FROM comments c
                WHERE c.ticket_id = t.id AND c.comment_type = 'public' AND NOT c.is_deleted), '')), 'C')
           AS doc) d
       CROSS JOIN LATERAL (SELECT string_agg(c.body, ' ' ORDER BY c.id) AS body FROM comments c
           WHERE c.ticket_id = t.id AND c.comment_type = 'internal' AND NOT c.is_deleted) i
       WHERE t.id = tid
       ON CONFLICT (ticket_id) DO UPDATE
       SET public_doc = EXCLUDED.public_doc, all_doc = EXCLUDED.all_doc"#
    };
}
pub(crate) use refresh_statement;

const POSTGRES_UP: &[&str] = &[
    "CREATE TEXT SEARCH DICTIONARY deskgraph_stem (TEMPLATE = snowball, Language = english)",
    "CREATE TEXT SEARCH CONFIGURATION deskgraph (COPY = simple)",
    "ALTER TEXT SEARCH CONFIGURATION deskgraph ALTER MAPPING FOR \
     asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH deskgraph_stem",
    "CREATE TABLE ticket_search (\
       ticket_id integer PRIMARY KEY REFERENCES tickets (id) ON DELETE CASCADE, \
       public_doc tsvector NOT NULL, \
       all_doc tsvector NOT NULL)",
    "CREATE INDEX idx_ticket_search_all ON ticket_search USING gin (all_doc)",
    concat!(
        "CREATE FUNCTION deskgraph_search_refresh(tid integer) RETURNS void LANGUAGE sql AS $body$ ",
        refresh_statement!(),
        " $body$"
    ),
    r#"CREATE FUNCTION deskgraph_search_ticket() RETURNS trigger LANGUAGE plpgsql AS $body$
     BEGIN
       PERFORM deskgraph_search_refresh(NEW.id);
       RETURN NULL;
     END
     $body$"#,
    r#"CREATE FUNCTION deskgraph_search_comment() RETURNS trigger LANGUAGE plpgsql AS $body$
     BEGIN
       IF TG_OP <> 'INSERT' THEN
         PERFORM deskgraph_search_refresh(OLD.ticket_id);
       END IF;
       IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.ticket_id <> OLD.ticket_id) THEN
         PERFORM deskgraph_search_refresh(NEW.ticket_id);
       END IF;
       RETURN NULL;
     END
     $body$"#,
    "CREATE TRIGGER ticket_search_created AFTER INSERT ON tickets \
     FOR EACH ROW EXECUTE FUNCTION deskgraph_search_ticket()",
    "CREATE TRIGGER ticket_search_changed AFTER UPDATE OF title, description ON tickets FOR EACH ROW \
     WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description) \
     EXECUTE FUNCTION deskgraph_search_ticket()",
    "CREATE TRIGGER ticket_search_comment_added AFTER INSERT OR DELETE ON comments \
     FOR EACH ROW EXECUTE FUNCTION deskgraph_search_comment()",
    "CREATE TRIGGER ticket_search_comment_changed \
     AFTER UPDATE OF body, comment_type, is_deleted, ticket_id ON comments FOR EACH ROW \
     WHEN (OLD.body IS DISTINCT FROM NEW.body OR OLD.comment_type IS DISTINCT FROM NEW.comment_type \
       OR OLD.is_deleted IS DISTINCT FROM NEW.is_deleted OR OLD.ticket_id IS DISTINCT FROM NEW.ticket_id) \
     EXECUTE FUNCTION deskgraph_search_comment()",
    "SELECT deskgraph_search_refresh(id) FROM tickets",
];

const POSTGRES_DOWN: &[&str] = &[
    "DROP TRIGGER IF EXISTS ticket_search_comment_changed ON comments",
    "DROP TRIGGER IF EXISTS ticket_search_comment_added ON comments",
    "DROP TRIGGER IF EXISTS ticket_search_changed ON tickets",
    "DROP TRIGGER IF EXISTS ticket_search_created ON tickets",
    "DROP FUNCTION IF EXISTS deskgraph_search_comment()",
    "DROP FUNCTION IF EXISTS deskgraph_search_ticket()",
    "DROP FUNCTION IF EXISTS deskgraph_search_refresh(integer)",
    "DROP TABLE IF EXISTS ticket_search",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS deskgraph",
    "DROP TEXT SEARCH DICTIONARY IF EXISTS deskgraph_stem",
];

/// The SQLite statements that index the tickets `rows` picks (a `WHERE` clause, or nothing for all), each
/// known in them as `id` (an SQL expression: `NEW.id` in a trigger).
fn sqlite_index(id: &str, rows: &str) -> String {
    let comments = |kind: &str| {
        format!(
            "coalesce((SELECT group_concat(body, ' ') FROM comments \
             WHERE ticket_id = {id} AND comment_type = '{kind}' AND is_deleted = 0), '')"
        )
    };
    format!(
        "INSERT INTO ticket_search_public (rowid, title, description, comments) \
         SELECT id, title, description, {public} FROM tickets {rows}; \
         INSERT INTO ticket_search_all (rowid, title, description, comments, internal) \
         SELECT id, title, description, {public}, {internal} FROM tickets {rows};",
        public = comments("public"),
        internal = comments("internal"),
    )
}

/// The SQLite statements that index ticket `id` afresh.
pub(crate) fn sqlite_refresh(id: &str) -> String {
    format!(
        "DELETE FROM ticket_search_public WHERE rowid = {id}; \
         DELETE FROM ticket_search_all WHERE rowid = {id}; {}",
        sqlite_index(id, &format!("WHERE id = {id}"))
    )
}

fn sqlite_up() -> Vec<String> {
    let fts = |name: &str, columns: &str| {
        format!(
            "CREATE VIRTUAL TABLE {name} USING fts5({columns}, content='', contentless_delete=1, \
             tokenize='porter unicode61 remove_diacritics 2')"
        )
    };
    let trigger = |name: &str, when: &str, body: String| {
        format!("CREATE TRIGGER {name} {when} BEGIN {body} END")
    };
    let forget = "DELETE FROM ticket_search_public WHERE rowid = OLD.id; \
                  DELETE FROM ticket_search_all WHERE rowid = OLD.id;";
    vec![
        fts("ticket_search_public", "title, description, comments"),
        fts(
            "ticket_search_all",
            "title, description, comments, internal",
        ),
        trigger(
            "ticket_search_created",
            "AFTER INSERT ON tickets",
            sqlite_refresh("NEW.id"),
        ),
        trigger(
            "ticket_search_changed",
            "AFTER UPDATE OF title, description ON tickets \
             WHEN OLD.title IS NOT NEW.title OR OLD.description IS NOT NEW.description",
            sqlite_refresh("NEW.id"),
        ),
        trigger(
            "ticket_search_removed",
            "AFTER DELETE ON tickets",
            forget.to_string(),
        ),
        trigger(
            "ticket_search_comment_added",
            "AFTER INSERT ON comments",
            sqlite_refresh("NEW.ticket_id"),
        ),
        trigger(
            "ticket_search_comment_changed",
            "AFTER UPDATE OF body, comment_type, is_deleted, ticket_id ON comments \
             WHEN OLD.body IS NOT NEW.body OR OLD.comment_type IS NOT NEW.comment_type \
             OR OLD.is_deleted IS NOT NEW.is_deleted OR OLD.ticket_id IS NOT NEW.ticket_id",
            sqlite_refresh("NEW.ticket_id"),
        ),
        trigger(
            "ticket_search_comment_moved",
            "AFTER UPDATE OF ticket_id ON comments WHEN OLD.ticket_id IS NOT NEW.ticket_id",
            sqlite_refresh("OLD.ticket_id"),
        ),
        trigger(
            "ticket_search_comment_removed",
            "AFTER DELETE ON comments",
            sqlite_refresh("OLD.ticket_id"),
        ),
        // The tickets that already exist, as the triggers would have indexed them.
        sqlite_index("tickets.id", ""),
    ]
}

const SQLITE_DOWN: &[&str] = &[
    "DROP TRIGGER IF EXISTS ticket_search_created",
    "DROP TRIGGER IF EXISTS ticket_search_changed",
    "DROP TRIGGER IF EXISTS ticket_search_removed",
    "DROP TRIGGER IF EXISTS ticket_search_comment_added",
    "DROP TRIGGER IF EXISTS ticket_search_comment_changed",
    "DROP TRIGGER IF EXISTS ticket_search_comment_moved",
    "DROP TRIGGER IF EXISTS ticket_search_comment_removed",
    "DROP TABLE IF EXISTS ticket_search_public",
    "DROP TABLE IF EXISTS ticket_search_all",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        run_statements(manager, POSTGRES_UP, &sqlite_up()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        run_statements(manager, POSTGRES_DOWN, SQLITE_DOWN).await
    }
}
