//! Background work taken from the outbox: deliveries (email, webhooks) handed to `notify`, and the
//! service's own timed work (SLA checks and re-clocks), each row a typed job.
pub mod worker;
