mod idempotency;
mod pool_share;
mod rate;
mod request;
mod statement_timeout;
