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

/// A (possibly unique) index named after its table and columns.
pub fn index(table: &str, columns: &[&str], unique: bool) -> IndexCreateStatement {
    let mut stmt = Index::create();
    stmt.name(format!("idx_{table}_{}", columns.join("_")))
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
