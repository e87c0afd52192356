//! Blobs in an S3-compatible bucket (`s3://bucket/prefix`: AWS S3, MinIO, Ceph, R2…) through the
//! `object_store` crate. Keys are `<prefix>/<ab>/<sha256>`: content addresses only, never a name a user
//! chose. Writes go in [`PART_BYTES`] parts (S3's smallest multipart part), so memory is bounded by
//! [`PART_BYTES`] × [`PARTS_IN_FLIGHT`], not by the file; reads stream as the server sends.
use super::{check_name, BlobStore, ByteStream};
use crate::config::S3Settings;
use anyhow::Context;
use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::buffered::BufWriter;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use std::sync::Arc;
use tokio::io::AsyncWriteExt;

/// Size of the parts an upload is sent in: S3 refuses smaller ones (but the last).
pub const PART_BYTES: usize = 5 * 1024 * 1024;
/// Parts of one upload sent at once.
pub const PARTS_IN_FLIGHT: usize = 2;

/// A bucket (and key prefix) as a blob store.
#[derive(Debug)]
pub struct S3Store {
    store: Arc<dyn ObjectStore>,
    prefix: String,
}

impl S3Store {
    /// The store `s3://bucket/prefix` names, with `settings` over the standard `AWS_*` environment.
    pub fn new(url: &str, settings: &S3Settings) -> anyhow::Result<Self> {
        let rest = url
            .strip_prefix("s3://")
            .context("an S3 storage URL starts with s3://")?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        anyhow::ensure!(!bucket.is_empty(), "the S3 storage URL names no bucket");
        let prefix = prefix.trim_matches('/').to_string();
        anyhow::ensure!(
            prefix.is_empty()
                || prefix
                    .split('/')
                    .all(|part| !part.is_empty() && part != "." && part != ".."),
            "the S3 key prefix {prefix:?} has an empty, `.` or `..` segment"
        );
        // Reqwest's rustls needs a process-wide provider; the mailer installs the same one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
        if let Some(endpoint) = &settings.endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_allow_http(endpoint.starts_with("http://"))
                // MinIO, Ceph and most others address buckets by path, not by host name.
                .with_virtual_hosted_style_request(false);
        }
        if let Some(region) = &settings.region {
            builder = builder.with_region(region);
        }
        if let Some(key) = &settings.access_key_id {
            builder = builder.with_access_key_id(key);
        }
        if let Some(secret) = &settings.secret_access_key {
            builder = builder.with_secret_access_key(secret);
        }
        let store = builder
            .build()
            .context("cannot configure S3 storage (see DESKGRAPH_S3_* in docs/operations.md)")?;
        Ok(S3Store {
            store: Arc::new(store),
            prefix,
        })
    }

    fn key(&self, sha256: &str) -> anyhow::Result<Path> {
        check_name(sha256)?;
        let name = format!("{}/{sha256}", &sha256[..2]);
        Ok(if self.prefix.is_empty() {
            Path::from(name)
        } else {
            Path::from(format!("{}/{name}", self.prefix))
        })
    }
}

#[async_trait::async_trait]
impl BlobStore for S3Store {
    async fn put(&self, sha256: &str, mut file: tokio::fs::File) -> anyhow::Result<()> {
        let key = self.key(sha256)?;
        let mut out = BufWriter::with_capacity(self.store.clone(), key, PART_BYTES)
            .with_max_concurrency(PARTS_IN_FLIGHT);
        let written = async {
            tokio::io::copy(&mut file, &mut out).await?;
            out.shutdown().await
        }
        .await;
        if let Err(err) = written {
            // An unfinished multipart upload is not an object; abort it so the bucket keeps no parts.
            let _ = out.abort().await;
            return Err(err).with_context(|| format!("cannot store blob {sha256}"));
        }
        Ok(())
    }

    async fn get(&self, sha256: &str) -> anyhow::Result<ByteStream> {
        let found = self
            .store
            .get(&self.key(sha256)?)
            .await
            .with_context(|| format!("cannot open blob {sha256}"))?;
        Ok(found.into_stream().map_err(std::io::Error::other).boxed())
    }

    async fn delete(&self, sha256: &str) -> anyhow::Result<()> {
        match self.store.delete(&self.key(sha256)?).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(err) => Err(err.into()),
        }
    }
}
