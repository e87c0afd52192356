//! Counters in this process: a bounded cache, so that a flood of new keys (many client addresses) costs
//! neither unbounded memory nor a scan under a global lock.
use super::Window;
use moka::sync::Cache;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most keys counted at once. The cache admits a new key by how often keys are seen (TinyLFU), so a flood
/// of one-off keys does not push out the counts of clients that keep coming.
const MAX_KEYS: u64 = 100_000;

/// A key unused this long is forgotten: longer than any window counted in.
const IDLE: Duration = Duration::from_secs(3600 + 60);

/// A key's window index and its count in that window.
type Slot = Arc<Mutex<(u64, u64)>>;

/// In-process counters.
#[derive(Debug)]
pub struct Memory {
    slots: Cache<String, Slot>,
}

impl Memory {
    /// Empty counters.
    pub fn new() -> Self {
        Memory {
            slots: Cache::builder()
                .max_capacity(MAX_KEYS)
                .time_to_idle(IDLE)
                .build(),
        }
    }

    fn slot(&self, key: &str) -> Slot {
        // Looked up first: the key is copied only on a client's first use.
        match self.slots.get(key) {
            Some(slot) => slot,
            None => self
                .slots
                .get_with(key.to_string(), || Arc::new(Mutex::new((0, 0)))),
        }
    }

    /// Add `amount` in the window holding `now`; the new count.
    pub fn add(&self, key: &str, amount: u64, window: Window, now: u64) -> u64 {
        let slot = self.slot(key);
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        let index = window.index(now);
        if slot.0 != index {
            *slot = (index, 0);
        }
        slot.1 = slot.1.saturating_add(amount);
        slot.1
    }

    /// Subtract `amount` in the window holding `now` (never below zero; nothing in another window).
    pub fn subtract(&self, key: &str, amount: u64, window: Window, now: u64) {
        let Some(slot) = self.slots.get(key) else {
            return;
        };
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if slot.0 == window.index(now) {
            slot.1 = slot.1.saturating_sub(amount);
        }
    }

    /// The count in the window holding `now`.
    pub fn get(&self, key: &str, window: Window, now: u64) -> u64 {
        let Some(slot) = self.slots.get(key) else {
            return 0;
        };
        let slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if slot.0 == window.index(now) {
            slot.1
        } else {
            0
        }
    }

    /// Forget the key.
    pub fn delete(&self, key: &str, _window: Window, _now: u64) {
        self.slots.invalidate(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_of_keys_stays_bounded() {
        let memory = Memory::new();
        for i in 0..(MAX_KEYS * 2) {
            memory.add(&format!("ip:{i}"), 1, Window::HOUR, 10);
        }
        memory.slots.run_pending_tasks();
        assert!(memory.slots.entry_count() <= MAX_KEYS);
    }
}
