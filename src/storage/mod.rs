//! Where attachment bytes live, behind one trait ([`BlobStore`]) chosen by `DESKGRAPH_STORAGE_URL`:
//! the database (the default: works on SQLite and PostgreSQL and across instances, no extra service), a
//! local folder (`file:///path`) or an S3-compatible bucket (`s3://bucket/prefix`, `s3`). Content is named
//! by its SHA-256, so the same bytes are stored once.
//! Reads and writes go chunk by chunk: memory is bounded by [`CHUNK_BYTES`], not by the file.
mod database;
mod folder;
mod s3;

pub use database::DatabaseStore;
pub use folder::FolderStore;
pub use s3::S3Store;

use crate::db::Db;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use std::sync::Arc;

/// Size of the pieces bytes are moved and stored in.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// A blob's bytes as they are read, piece by piece.
pub type ByteStream = BoxStream<'static, std::io::Result<Bytes>>;

/// A place for content-addressed bytes.
#[async_trait::async_trait]
pub trait BlobStore: Send + Sync + std::fmt::Debug {
    /// Store the bytes of `file` (read from its start) under `sha256`, their hash. Storing the same name
    /// again, or concurrently, leaves one complete copy.
    async fn put(&self, sha256: &str, file: tokio::fs::File) -> anyhow::Result<()>;
    /// The bytes stored under `sha256`.
    async fn get(&self, sha256: &str) -> anyhow::Result<ByteStream>;
    /// Forget the bytes stored under `sha256` (absent ones are not an error).
    async fn delete(&self, sha256: &str) -> anyhow::Result<()>;
}

/// The store `DESKGRAPH_STORAGE_URL` names: none or `database` for the database, `file:///path` for a
/// folder, `s3://bucket/prefix` for an S3-compatible bucket (reached as `s3` says).
pub fn from_url(
    url: Option<&str>,
    s3: &crate::config::S3Settings,
    db: &Db,
) -> anyhow::Result<Arc<dyn BlobStore>> {
    match url {
        None | Some("database") | Some("db") => Ok(Arc::new(DatabaseStore::new(db.conn.clone()))),
        Some(url) if url.starts_with("s3://") => Ok(Arc::new(S3Store::new(url, s3)?)),
        Some(url) => match url.strip_prefix("file://") {
            Some(path) if !path.is_empty() => Ok(Arc::new(FolderStore::new(path)?)),
            _ => anyhow::bail!(
                "DESKGRAPH_STORAGE_URL must be `database`, file:///path or s3://bucket/prefix (got {url:?})"
            ),
        },
    }
}

/// Whether `name` is a lowercase hex SHA-256, the only names stores accept (so none can reach a path).
pub fn is_sha256(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn check_name(name: &str) -> anyhow::Result<()> {
    if is_sha256(name) {
        Ok(())
    } else {
        anyhow::bail!("not a SHA-256 name: {name:?}")
    }
}

/// Read the next piece of up to [`CHUNK_BYTES`] from `file`; empty at the end.
async fn read_chunk(file: &mut tokio::fs::File) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::with_capacity(CHUNK_BYTES);
    while buf.len() < CHUNK_BYTES {
        let n = (&mut *file)
            .take((CHUNK_BYTES - buf.len()) as u64)
            .read_to_end(&mut buf)
            .await?;
        if n == 0 {
            break;
        }
    }
    Ok(buf)
}
