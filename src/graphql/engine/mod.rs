//! The executor's plumbing, the one place that works around async-graphql: selections answered in one
//! pass (`one_pass`), loader batches driven inside the request's task (`batches`), and the relations of a
//! ticket page read before its fields resolve (`prefetch`).
pub mod batches;
pub mod one_pass;
pub mod prefetch;
