//! Blobs as files in a local folder (`file:///path`): `<root>/<ab>/<sha256>`, written to a temporary name
//! and renamed into place, so a reader never sees a partial file.
use super::{check_name, read_chunk, BlobStore, ByteStream};
use anyhow::Context;
use futures_util::StreamExt;
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;

/// A folder of blobs.
#[derive(Debug)]
pub struct FolderStore {
    root: PathBuf,
}

impl FolderStore {
    /// The store at `root`, created when missing.
    pub fn new(root: impl AsRef<Path>) -> anyhow::Result<Self> {
        let root = root.as_ref().to_path_buf();
        std::fs::create_dir_all(root.join("tmp"))
            .with_context(|| format!("cannot create the storage folder {}", root.display()))?;
        Ok(FolderStore { root })
    }

    fn path(&self, sha256: &str) -> anyhow::Result<PathBuf> {
        check_name(sha256)?;
        Ok(self.root.join(&sha256[..2]).join(sha256))
    }
}

#[async_trait::async_trait]
impl BlobStore for FolderStore {
    async fn put(&self, sha256: &str, mut file: tokio::fs::File) -> anyhow::Result<()> {
        let target = self.path(sha256)?;
        if tokio::fs::try_exists(&target).await? {
            return Ok(());
        }
        let temp = self
            .root
            .join("tmp")
            .join(uuid::Uuid::new_v4().simple().to_string());
        let written = async {
            let mut out = tokio::fs::File::create(&temp).await?;
            loop {
                let chunk = read_chunk(&mut file).await?;
                if chunk.is_empty() {
                    break;
                }
                out.write_all(&chunk).await?;
            }
            out.sync_all().await?;
            if let Some(dir) = target.parent() {
                tokio::fs::create_dir_all(dir).await?;
            }
            // Same bytes under the same name: a concurrent rename of another copy is harmless.
            tokio::fs::rename(&temp, &target).await
        }
        .await;
        if written.is_err() {
            let _ = tokio::fs::remove_file(&temp).await;
        }
        written.with_context(|| format!("cannot store blob {sha256}"))
    }

    async fn get(&self, sha256: &str) -> anyhow::Result<ByteStream> {
        let path = self.path(sha256)?;
        let file = tokio::fs::File::open(&path)
            .await
            .with_context(|| format!("cannot open blob {sha256}"))?;
        let stream = futures_util::stream::try_unfold(file, |mut file| async move {
            let chunk = read_chunk(&mut file).await?;
            Ok(if chunk.is_empty() {
                None
            } else {
                Some((bytes::Bytes::from(chunk), file))
            })
        });
        Ok(stream.boxed())
    }

    async fn delete(&self, sha256: &str) -> anyhow::Result<()> {
        match tokio::fs::remove_file(self.path(sha256)?).await {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(err.into()),
        }
    }
}
