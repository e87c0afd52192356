//! Blobs in the database's `blob_chunks` table, one row per [`CHUNK_BYTES`](super::CHUNK_BYTES) piece:
//! works on SQLite and PostgreSQL and is shared by every instance on the same database.
use super::{check_name, read_chunk, BlobStore, ByteStream};
use entity::blob_chunk;
use futures_util::StreamExt;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QuerySelect, Set};

/// The database as a blob store.
#[derive(Debug, Clone)]
pub struct DatabaseStore {
    conn: DatabaseConnection,
}

impl DatabaseStore {
    /// The store over `conn`.
    pub fn new(conn: DatabaseConnection) -> Self {
        DatabaseStore { conn }
    }
}

#[async_trait::async_trait]
impl BlobStore for DatabaseStore {
    async fn put(&self, sha256: &str, mut file: tokio::fs::File) -> anyhow::Result<()> {
        check_name(sha256)?;
        let mut seq = 0i32;
        loop {
            let chunk = read_chunk(&mut file).await?;
            if chunk.is_empty() && seq > 0 {
                break;
            }
            let last = chunk.len() < super::CHUNK_BYTES;
            // Chunk `seq` of a name has one possible content: a concurrent writer's row is the same one.
            blob_chunk::Entity::insert(blob_chunk::ActiveModel {
                sha256: Set(sha256.to_string()),
                seq: Set(seq),
                data: Set(chunk),
            })
            .on_conflict_do_nothing()
            .exec_without_returning(&self.conn)
            .await?;
            seq += 1;
            if last {
                break;
            }
        }
        Ok(())
    }

    async fn get(&self, sha256: &str) -> anyhow::Result<ByteStream> {
        check_name(sha256)?;
        let conn = self.conn.clone();
        let name = sha256.to_string();
        let stream = futures_util::stream::try_unfold(0i32, move |seq| {
            let conn = conn.clone();
            let name = name.clone();
            async move {
                let data: Option<Vec<u8>> = blob_chunk::Entity::find()
                    .select_only()
                    .column(blob_chunk::Column::Data)
                    .filter(blob_chunk::Column::Sha256.eq(name))
                    .filter(blob_chunk::Column::Seq.eq(seq))
                    .into_tuple()
                    .one(&conn)
                    .await
                    .map_err(std::io::Error::other)?;
                Ok(data
                    .filter(|d| !d.is_empty())
                    .map(|d| (bytes::Bytes::from(d), seq + 1)))
            }
        });
        Ok(stream.boxed())
    }

    async fn delete(&self, sha256: &str) -> anyhow::Result<()> {
        check_name(sha256)?;
        blob_chunk::Entity::delete_many()
            .filter(blob_chunk::Column::Sha256.eq(sha256))
            .exec(&self.conn)
            .await?;
        Ok(())
    }
}
