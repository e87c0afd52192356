//! Small builders shared by the migration files.
use sea_orm_migration::prelude::*;

/// A foreign key from `table.column` to `target.id`.
pub fn fk(
    table: &str,
    column: &str,
    target: &str,
    on_delete: ForeignKeyAction,
) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{table}_{column}"))
        .from(Alias::new(table), Alias::new(column))
        .to(Alias::new(target), Alias::new("id"))
        .on_delete(on_delete)
        .to_owned()
}

/// The name of the index of `table` on `columns`.
fn index_name(table: &str, columns: &[&str]) -> String {
    format!("idx_{table}_{}", columns.join("_"))
}

/// A (possibly unique) index named after its table and columns.
pub fn index(table: &str, columns: &[&str], unique: bool) -> IndexCreateStatement {
    let mut stmt = Index::create();
    stmt.name(index_name(table, columns))
        .table(Alias::new(table))
        .if_not_exists();
    for column in columns {
        stmt.col(Alias::new(*column));
    }
    if unique {
        stmt.unique();
    }
    stmt.to_owned()
}

/// Drop the index [`index`] names for `table` and `columns`, if it is there.
pub async fn drop_index(
    manager: &SchemaManager<'_>,
    table: &str,
    columns: &[&str],
) -> Result<(), DbErr> {
    manager
        .drop_index(
            Index::drop()
                .name(index_name(table, columns))
                .table(Alias::new(table))
                .if_exists()
                .to_owned(),
        )
        .await
}

/// Create every index in `indexes`.
pub async fn create_indexes(
    manager: &SchemaManager<'_>,
    indexes: Vec<IndexCreateStatement>,
) -> Result<(), DbErr> {
    for stmt in indexes {
        manager.create_index(stmt).await?;
    }
    Ok(())
}

/// Add `column` to `table`.
pub async fn add_column(
    manager: &SchemaManager<'_>,
    table: &str,
    column: &mut ColumnDef,
) -> Result<(), DbErr> {
    manager
        .alter_table(
            Table::alter()
                .table(Alias::new(table))
                .add_column(column)
                .to_owned(),
        )
        .await
}

/// Drop `column` from `table`.
pub async fn drop_column(
    manager: &SchemaManager<'_>,
    table: &str,
    column: &str,
) -> Result<(), DbErr> {
    manager
        .alter_table(
            Table::alter()
                .table(Alias::new(table))
                .drop_column(Alias::new(column))
                .to_owned(),
        )
        .await
}

/// Drop the named tables, in order.
pub async fn drop_tables(manager: &SchemaManager<'_>, tables: &[&str]) -> Result<(), DbErr> {
    for table in tables {
        manager
            .drop_table(
                Table::drop()
                    .table(Alias::new(*table))
                    .if_exists()
                    .to_owned(),
            )
            .await?;
    }
    Ok(())
}

/// Run the statements written for the migration's engine, in order, on its connection: `postgres` on PostgreSQL,
/// `sqlite` on SQLite (for migrations whose SQL the schema builder cannot say: functions, triggers, full-text
/// tables).
pub async fn run_statements<P, S>(
    manager: &SchemaManager<'_>,
    postgres: &[P],
    sqlite: &[S],
) -> Result<(), DbErr>
where
    P: AsRef<str> + Sync,
    S: AsRef<str> + Sync,
{
    use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};
    let db = manager.get_connection();
    if manager.get_database_backend() == DbBackend::Postgres {
        for sql in postgres {
            db.execute_unprepared(sql.as_ref()).await?;
        }
    } else {
        for sql in sqlite {
            db.execute_unprepared(sql.as_ref()).await?;
        }
    }
    Ok(())
}
