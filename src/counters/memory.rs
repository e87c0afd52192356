//! Counters in this process: a bounded cache, so that a flood of new keys (many client addresses) costs
//! neither unbounded memory nor a scan under a global lock.
use super::Window;
use moka::sync::Cache;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most keys counted at once. The cache admits a new key by how often keys are seen (TinyLFU), so a flood
/// of one-off keys does not push out the counts of clients that keep coming.
const MAX_KEYS: u64 = 100_000;

/// A key unused this long is forgotten: longer than two of any window counted in (a sliding count reads
/// the previous window too).
const IDLE: Duration = Duration::from_secs(2 * 3600 + 60);

/// A key's latest window, its count there and its count in the window before.
#[derive(Debug, Default)]
struct Counts {
    index: u64,
    count: u64,
    previous: u64,
}

impl Counts {
    /// Move on to window `index`: the count becomes the previous one when `index` is the next window.
    fn roll(&mut self, index: u64) {
        if index == self.index {
            return;
        }
        self.previous = if index == self.index + 1 {
            self.count
        } else {
            0
        };
        self.count = 0;
        self.index = index;
    }

    /// The count in window `index`, as far as it is kept.
    fn at(&self, index: u64) -> u64 {
        if index == self.index {
            self.count
        } else if index + 1 == self.index {
            self.previous
        } else {
            0
        }
    }
}

type Slot = Arc<Mutex<Counts>>;

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
            None => self.slots.get_with(key.to_string(), Slot::default),
        }
    }

    /// Add `amount` in the window holding `now`; the new count.
    pub fn add(&self, key: &str, amount: u64, window: Window, now: u64) -> u64 {
        let slot = self.slot(key);
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        slot.roll(window.index(now));
        slot.count = slot.count.saturating_add(amount);
        slot.count
    }

    /// Subtract `amount` in the window holding `now` (never below zero; nothing in another window).
    pub fn subtract(&self, key: &str, amount: u64, window: Window, now: u64) {
        let Some(slot) = self.slots.get(key) else {
            return;
        };
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if slot.index == window.index(now) {
            slot.count = slot.count.saturating_sub(amount);
        }
    }

    /// The count in the window holding `now`.
    pub fn get(&self, key: &str, window: Window, now: u64) -> u64 {
        let Some(slot) = self.slots.get(key) else {
            return 0;
        };
        let count = slot
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .at(window.index(now));
        count
    }

    /// Forget the key, in every window.
    pub fn delete(&self, key: &str) {
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
