/// Redis for the shared-budget tests (`.ci/run` starts one on this address).
pub fn redis_url() -> String {
    std::env::var("DESKGRAPH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// Whether a Redis test is skipped (with a notice): when Redis does not answer, unless `CI` is set
/// (`.ci/run` starts Redis, so there a missing Redis is a failure).
pub async fn skip_without_redis() -> bool {
    let url = redis_url();
    let addr = url
        .trim_start_matches("redis://")
        .trim_end_matches('/')
        .to_string();
    if tokio::net::TcpStream::connect(addr).await.is_ok() {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but Redis does not answer"
    );
    eprintln!("Redis unreachable: shared-store test skipped");
    true
}
