//! A circuit per delivery destination: after a few failures in a row the destination is left alone for a
//! while (growing with every further failure), then one row probes it. Per process, like the lanes.
use super::outbox::{backoff_ms, Destination, Outcome};
use std::collections::HashMap;
use std::sync::Mutex;

/// Failures in a row after which a destination's circuit opens.
pub const THRESHOLD: u32 = 3;
/// The longest a circuit stays open before the next probe.
const MAX_OPEN_MS: i64 = 300_000;

#[derive(Clone, Copy, Debug, Default)]
struct Circuit {
    failures: u32,
    open_until_ms: i64,
}

/// The circuits of every destination this process has delivered to.
#[derive(Debug, Default)]
pub struct Circuits {
    lanes: Mutex<HashMap<Destination, Circuit>>,
}

impl Circuits {
    /// Destinations whose circuit is open at `now_ms`.
    pub fn open(&self, now_ms: i64) -> Vec<Destination> {
        match self.lanes.lock() {
            Ok(lanes) => lanes
                .iter()
                .filter(|(_, c)| c.open_until_ms > now_ms)
                .map(|(d, _)| *d)
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Whether `destination`'s circuit is open at `now_ms`.
    pub fn is_open(&self, destination: Destination, now_ms: i64) -> bool {
        self.lanes
            .lock()
            .map(|lanes| {
                lanes
                    .get(&destination)
                    .is_some_and(|c| c.open_until_ms > now_ms)
            })
            .unwrap_or(false)
    }

    /// Count one attempt's `outcome` at `now_ms`. A retryable failure counts against the destination; a
    /// row given up (endpoint deleted, unreadable message) says nothing about it. `base_ms` is the
    /// outbox backoff base, so a circuit waits like a row does, and never when it is 0.
    pub fn record(&self, destination: Destination, outcome: &Outcome, base_ms: i64, now_ms: i64) {
        let Ok(mut lanes) = self.lanes.lock() else {
            return;
        };
        let circuit = lanes.entry(destination).or_default();
        let label = destination.label();
        match outcome {
            Outcome::Delivered => {
                if circuit.failures >= THRESHOLD {
                    tracing::info!(destination = %label, "delivery circuit closed: the destination answers again");
                }
                *circuit = Circuit::default();
                metrics::gauge!("outbox_circuit_open", "destination" => label).set(0.0);
            }
            Outcome::Retry(reason) => {
                circuit.failures = circuit.failures.saturating_add(1);
                if circuit.failures >= THRESHOLD {
                    let wait = backoff_ms(base_ms, (circuit.failures - THRESHOLD + 1) as i32)
                        .min(MAX_OPEN_MS);
                    circuit.open_until_ms = now_ms + wait;
                    if wait > 0 {
                        tracing::warn!(destination = %label, failures = circuit.failures, retry_in_ms = wait, %reason, "delivery circuit open: leaving the destination alone");
                        metrics::counter!("outbox_circuit_opened_total", "destination" => label.clone())
                            .increment(1);
                        metrics::gauge!("outbox_circuit_open", "destination" => label).set(1.0);
                    }
                }
            }
            Outcome::Wait { after_ms, reason } => {
                // Asked to wait, not failing: the destination is held, its failures untouched.
                let until = now_ms + after_ms.clamp(&0, &super::outbox::MAX_WAIT_MS);
                circuit.open_until_ms = circuit.open_until_ms.max(until);
                tracing::info!(destination = %label, retry_in_ms = after_ms, %reason, "destination asked to wait");
            }
            Outcome::GiveUp(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_threshold_and_closes_on_success() {
        let circuits = Circuits::default();
        let hook = Destination::Webhook(7);
        let fail = Outcome::Retry("timed out".into());
        for _ in 0..THRESHOLD - 1 {
            circuits.record(hook, &fail, 1000, 0);
        }
        assert!(!circuits.is_open(hook, 0));
        circuits.record(hook, &fail, 1000, 0);
        assert!(circuits.is_open(hook, 0));
        assert_eq!(circuits.open(0), vec![hook]);
        // Other destinations are untouched, and the circuit lets a probe through later.
        assert!(!circuits.is_open(Destination::Email, 0));
        assert!(!circuits.is_open(hook, 1001));
        circuits.record(hook, &Outcome::Delivered, 1000, 1001);
        assert!(!circuits.is_open(hook, 1001));
        circuits.record(hook, &fail, 1000, 1001);
        assert!(!circuits.is_open(hook, 1001));
    }

    #[test]
    fn a_zero_backoff_never_opens() {
        let circuits = Circuits::default();
        for _ in 0..10 {
            circuits.record(Destination::Email, &Outcome::Retry("x".into()), 0, 0);
        }
        assert!(!circuits.is_open(Destination::Email, 0));
    }
}
