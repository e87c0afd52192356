//! Limits on connections, logins, GraphQL operations and each viewer's share of the database.

/// How long a connection may take over a request header or sit idle, and how many may be open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// `DESKGRAPH_HEADER_TIMEOUT_SECONDS` (default 10): from a request's first byte to its blank line.
    pub header_timeout_seconds: u64,
    /// `DESKGRAPH_IDLE_TIMEOUT_SECONDS` (default 60): a kept-alive connection with no request, or a
    /// client that stops reading its response, is closed after this long.
    pub idle_timeout_seconds: u64,
    /// `DESKGRAPH_MAX_CONNECTIONS` (default 10000): connections open at once; more wait to be accepted.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout_seconds: 10,
            idle_timeout_seconds: 60,
            max_connections: 10_000,
        }
    }
}

/// Passwords and the links that reset them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountSettings {
    /// `DESKGRAPH_PASSWORD_MIN_LENGTH`: shortest password accepted when one is set (default 8).
    pub password_min_length: usize,
    /// `DESKGRAPH_PASSWORD_RESET_MINUTES`: how long an emailed reset link works (default 60).
    pub password_reset_minutes: u64,
    /// `DESKGRAPH_PUBLIC_URL`: the web interface as reached from outside (`https://desk.example.com`), for
    /// links in emails; unset, emails carry paths only.
    pub public_url: Option<String>,
}

impl Default for AccountSettings {
    fn default() -> Self {
        AccountSettings {
            password_min_length: 8,
            password_reset_minutes: 60,
            public_url: None,
        }
    }
}

/// How many failed sign-ins are allowed before further attempts are refused (see `service::sign_in::throttle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoginThrottle {
    /// `DESKGRAPH_LOGIN_MAX_FAILURES`: failures per account in one window (default 5).
    pub max_failures: u64,
    /// `DESKGRAPH_LOGIN_MAX_FAILURES_PER_ADDRESS`: failures per client address in one window (default 20).
    pub max_failures_per_address: u64,
    /// `DESKGRAPH_LOGIN_WINDOW_SECONDS`: length of a counting window (default 900, at most 3600).
    pub window_seconds: u64,
}

impl Default for LoginThrottle {
    fn default() -> Self {
        LoginThrottle {
            max_failures: 5,
            max_failures_per_address: 20,
            window_seconds: 900,
        }
    }
}

/// GraphQL cost limits and budget (see docs/graphql.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphqlLimits {
    /// `DESKGRAPH_GRAPHQL_MAX_NODES`: largest `nodeCount` an operation may have (default 50,000).
    pub max_nodes: u64,
    /// `DESKGRAPH_GRAPHQL_POINTS`: points per hour for each signed-in viewer (default 5,000).
    pub points_authenticated: u64,
    /// `DESKGRAPH_GRAPHQL_POINTS_ANONYMOUS`: points per hour for each anonymous client address (default 500).
    pub points_anonymous: u64,
    /// `DESKGRAPH_GRAPHQL_MAX_ROOT_FIELDS`: most root fields (aliases included) in one operation (default 50).
    pub max_root_fields: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_RESPONSE_BYTES`: largest response body served (default 16 MiB).
    pub max_response_bytes: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_COUNTS`: most counts (`totalCount`, aliases and lists above it included)
    /// one operation may run (default 20).
    pub max_counts: u64,
    /// `DESKGRAPH_GRAPHQL_MAX_DOCUMENT_BYTES`: longest document text, variables apart (default 256 KiB).
    pub max_document_bytes: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_TOKENS`: most lexical tokens in a document (default 20,000).
    pub max_tokens: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_OPERATIONS`: most operations in a document (default 100).
    pub max_operations: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_FRAGMENTS`: most fragment definitions in a document (default 500).
    pub max_fragments: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_SPREADS`: most fragment spreads in one selection set (default 100).
    pub max_spreads: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_SELECTIONS`: most selections a document holds once every fragment spread
    /// is expanded (default 10,000).
    pub max_selections: u64,
    /// `DESKGRAPH_GRAPHQL_TRUSTED_DOCUMENTS`: a `.graphql` file or a folder of them; when set, only these
    /// documents run (allow-list mode).
    pub trusted_documents: Option<std::path::PathBuf>,
}

impl Default for GraphqlLimits {
    fn default() -> Self {
        GraphqlLimits {
            max_nodes: 50_000,
            points_authenticated: 5_000,
            points_anonymous: 500,
            max_root_fields: 50,
            max_response_bytes: 16 << 20,
            max_counts: 20,
            max_document_bytes: 256 << 10,
            max_tokens: 20_000,
            max_operations: 100,
            max_fragments: 500,
            max_spreads: 100,
            max_selections: 10_000,
            trusted_documents: None,
        }
    }
}

/// Each viewer's share of the database pool (see `crate::db::viewer_gate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewerLimits {
    /// `DESKGRAPH_VIEWER_CONCURRENCY`: requests of one account (or one anonymous client address) that may use
    /// the database at once; unset or 0, a quarter of the pool (at least 1).
    pub concurrency: u32,
    /// `DESKGRAPH_VIEWER_QUEUE_MS` (default 1000): how long a request past that share waits for a turn before
    /// it is refused with 429.
    pub queue_ms: u64,
}

impl Default for ViewerLimits {
    fn default() -> Self {
        ViewerLimits {
            concurrency: 0,
            queue_ms: 1000,
        }
    }
}

impl ViewerLimits {
    /// Requests of one viewer allowed at once over a pool of `pool_size` connections.
    pub fn concurrency_for(&self, pool_size: u32) -> usize {
        let share = if self.concurrency == 0 {
            pool_size / 4
        } else {
            self.concurrency
        };
        share.max(1) as usize
    }
}
