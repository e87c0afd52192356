//! Settings of `s3://` attachment storage.

/// Where and as whom `s3://` attachment storage is reached. Each unset one falls back to the standard
/// `AWS_*` variable (`AWS_ENDPOINT`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, …) or the instance's role.
#[derive(Clone, Default)]
pub struct S3Settings {
    /// `DESKGRAPH_S3_ENDPOINT`: the server's base URL, for S3-compatible services (MinIO, Ceph, R2);
    /// `http://` ones are allowed, and buckets are then addressed by path.
    pub endpoint: Option<String>,
    /// `DESKGRAPH_S3_REGION`: the bucket's region.
    pub region: Option<String>,
    /// `DESKGRAPH_S3_ACCESS_KEY_ID`: the access key.
    pub access_key_id: Option<String>,
    /// `DESKGRAPH_S3_SECRET_ACCESS_KEY`: its secret.
    pub secret_access_key: Option<String>,
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "…"),
            )
            .finish()
    }
}
