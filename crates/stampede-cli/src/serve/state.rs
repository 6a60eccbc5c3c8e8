//! The demo API's memory: a request counter and an arrival log per key.
//!
//! Everything sits behind one [`std::sync::Mutex`]; every critical section is a
//! few map operations, so contention stays negligible even under the load test.
//!
//! The state is bounded (see [`AppConfig`]): at most `max_keys` keys, at most
//! `max_log_entries` entries in one key's log (its oldest entry is dropped
//! first) and at most `max_total_log_entries` entries in all the logs together.
//! Past a limit on keys or on all entries, the least recently *created* key
//! (other than the one being recorded) is evicted whole. A log entry is a
//! fixed [`ENTRY_BYTES`] bytes: the method is kept inline, which is why
//! methods longer than [`MAX_METHOD_BYTES`] are refused.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::http::{Method, StatusCode};
use serde::Serialize;

use super::AppConfig;

/// The longest request method the log keeps, in bytes. Every method in the
/// IANA registry fits (`BASELINE-CONTROL` has 16 bytes) but WebDAV's
/// `UPDATEREDIRECTREF` (17).
pub const MAX_METHOD_BYTES: usize = 16;

/// The size of one log entry in memory, in bytes.
pub const ENTRY_BYTES: usize = 32;

/// A request method of at most [`MAX_METHOD_BYTES`] bytes, kept inline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MethodName {
    len: u8,
    bytes: [u8; MAX_METHOD_BYTES],
}

impl MethodName {
    /// `method`, if it has at most [`MAX_METHOD_BYTES`] bytes.
    pub(crate) fn new(method: &Method) -> Option<Self> {
        let name = method.as_str().as_bytes();
        let len = u8::try_from(name.len())
            .ok()
            .filter(|_| name.len() <= MAX_METHOD_BYTES)?;
        let mut bytes = [0; MAX_METHOD_BYTES];
        bytes[..name.len()].copy_from_slice(name);
        Some(Self { len, bytes })
    }

    pub(crate) fn as_str(&self) -> &str {
        // Always valid: copied from a `Method`, whose names are ASCII tokens.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("?")
    }
}

/// One request as the server saw it, in [`ENTRY_BYTES`] bytes.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Arrival time in microseconds, measured from [`Store::started`].
    at_us: u64,
    status: StatusCode,
    method: MethodName,
}

/// What the server remembers about one key.
#[derive(Debug)]
struct KeyState {
    /// Creation sequence number: the key's position in the eviction order.
    seq: u64,
    /// When the key's first request arrived (outages are timed from it).
    created: Instant,
    /// How many requests were recorded for the key, including those whose log
    /// entries were dropped since.
    requests: u64,
    log: VecDeque<Entry>,
}

#[derive(Debug, Default)]
struct Inner {
    keys: HashMap<Arc<str>, KeyState>,
    /// Creation sequence number → key, oldest first.
    order: BTreeMap<u64, Arc<str>>,
    next_seq: u64,
    /// The number of entries in all the logs together.
    entries: usize,
}

impl Inner {
    /// Forgets the least recently created key other than the one numbered
    /// `keep`; returns false if there is no such key.
    fn evict_oldest_except(&mut self, keep: Option<u64>) -> bool {
        let Some(seq) = self.order.keys().copied().find(|seq| Some(*seq) != keep) else {
            return false;
        };
        if let Some(key) = self.order.remove(&seq) {
            if let Some(state) = self.keys.remove(&key) {
                self.entries = self.entries.saturating_sub(state.log.len());
            }
        }
        true
    }
}

/// What a recorded request learned about its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen {
    /// 1-based number of this request among all requests recorded for the key.
    pub attempt: u64,
    /// How long ago the key's first request arrived (zero for the first one).
    pub since_first: Duration,
}

/// A log entry as `/api/log` shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct LogEntry {
    /// Milliseconds since the server started (microsecond resolution).
    pub t_ms: f64,
    /// Milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// The request's method, e.g. `"POST"`.
    pub method: String,
    /// The status the server answered with.
    pub status: u16,
}

/// The shared state of one app.
#[derive(Debug)]
pub(crate) struct Store {
    inner: Mutex<Inner>,
    config: AppConfig,
    started: Instant,
    /// [`Self::started`] as milliseconds since the Unix epoch.
    started_unix_ms: u64,
}

impl Store {
    /// An empty store that starts its clock now.
    pub(crate) fn new(config: AppConfig) -> Self {
        let started_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Self {
            inner: Mutex::new(Inner::default()),
            config,
            started: Instant::now(),
            started_unix_ms,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics while holding the lock, and the state stays consistent
        // after every statement anyway, so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a request for `key` and logs the status that `decide` picks.
    ///
    /// `decide` sees the request's attempt number and the key's age and runs
    /// under the lock, so attempt numbers and log order always agree. Creates
    /// the key when it is new, and evicts the oldest other keys as needed to
    /// stay within the limits.
    pub(crate) fn record(
        &self,
        key: &str,
        method: MethodName,
        decide: impl FnOnce(Seen) -> StatusCode,
    ) -> (Seen, StatusCode) {
        let now = Instant::now();
        let at_us = u64::try_from(now.saturating_duration_since(self.started).as_micros())
            .unwrap_or(u64::MAX);
        let max_log = self.config.max_log_entries.max(1);
        let max_entries = self.config.max_total_log_entries.max(1);
        let mut guard = self.lock();
        let inner = &mut *guard;
        if !inner.keys.contains_key(key) {
            while inner.keys.len() >= self.config.max_keys.max(1) {
                if !inner.evict_oldest_except(None) {
                    break;
                }
            }
            let seq = inner.next_seq;
            inner.next_seq += 1;
            let key: Arc<str> = Arc::from(key);
            inner.order.insert(seq, Arc::clone(&key));
            inner.keys.insert(
                key,
                KeyState {
                    seq,
                    created: now,
                    requests: 0,
                    log: VecDeque::new(),
                },
            );
        }
        let Some(state) = inner.keys.get_mut(key) else {
            // Unreachable: the key was just found or inserted.
            return (
                Seen {
                    attempt: 1,
                    since_first: Duration::ZERO,
                },
                StatusCode::INTERNAL_SERVER_ERROR,
            );
        };
        state.requests += 1;
        let seen = Seen {
            attempt: state.requests,
            since_first: now.saturating_duration_since(state.created),
        };
        let status = decide(seen);
        let seq = state.seq;
        // Make room in this key's log, then in all the logs together.
        if state.log.len() >= max_log && state.log.pop_front().is_some() {
            inner.entries = inner.entries.saturating_sub(1);
        }
        while inner.entries >= max_entries {
            if inner.evict_oldest_except(Some(seq)) {
                continue;
            }
            // This key holds every entry: drop its own oldest.
            let dropped = inner
                .keys
                .get_mut(key)
                .and_then(|state| state.log.pop_front());
            if dropped.is_none() {
                break;
            }
            inner.entries = inner.entries.saturating_sub(1);
        }
        if let Some(state) = inner.keys.get_mut(key) {
            state.log.push_back(Entry {
                at_us,
                status,
                method,
            });
            inner.entries += 1;
        }
        (seen, status)
    }

    /// The log of `key`, oldest entry first (empty for an unknown key).
    pub(crate) fn log(&self, key: &str) -> Vec<LogEntry> {
        let entries: Vec<Entry> = self
            .lock()
            .keys
            .get(key)
            .map(|state| state.log.iter().copied().collect())
            .unwrap_or_default();
        entries
            .into_iter()
            .map(|entry| LogEntry {
                // f64 is exact for integers below 2^53 µs (about 285 years).
                t_ms: entry.at_us as f64 / 1000.0,
                unix_ms: self.started_unix_ms.saturating_add(entry.at_us / 1000),
                method: entry.method.as_str().to_owned(),
                status: entry.status.as_u16(),
            })
            .collect()
    }

    /// Forgets `key`: its counter, its age and its log.
    pub(crate) fn reset(&self, key: &str) {
        let mut guard = self.lock();
        let inner = &mut *guard;
        if let Some(state) = inner.keys.remove(key) {
            inner.order.remove(&state.seq);
            inner.entries = inner.entries.saturating_sub(state.log.len());
        }
    }

    /// How many keys the store holds, checking its bookkeeping.
    #[cfg(test)]
    fn len(&self) -> usize {
        let inner = self.lock();
        assert_eq!(inner.keys.len(), inner.order.len());
        let entries: usize = inner.keys.values().map(|state| state.log.len()).sum();
        assert_eq!(inner.entries, entries);
        inner.keys.len()
    }

    /// How many entries all the logs hold together.
    #[cfg(test)]
    fn entries(&self) -> usize {
        self.lock().entries
    }

    /// How many entries the logs' buffers have room for together.
    #[cfg(test)]
    fn entry_slots(&self) -> usize {
        let inner = self.lock();
        inner.keys.values().map(|state| state.log.capacity()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::{MAX_KEYS, MAX_LOG_ENTRIES, MAX_TOTAL_LOG_ENTRIES};

    fn get() -> MethodName {
        name(&Method::GET)
    }

    fn put() -> MethodName {
        name(&Method::PUT)
    }

    fn name(method: &Method) -> MethodName {
        MethodName::new(method).unwrap()
    }

    fn ok(_: Seen) -> StatusCode {
        StatusCode::OK
    }

    fn config(max_keys: usize, max_log_entries: usize, max_total_log_entries: usize) -> AppConfig {
        AppConfig {
            max_keys,
            max_log_entries,
            max_total_log_entries,
            ..AppConfig::default()
        }
    }

    #[test]
    fn method_names_are_kept_inline_up_to_16_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), ENTRY_BYTES);
        let longest = Method::from_bytes(b"BASELINE-CONTROL").unwrap();
        assert_eq!(longest.as_str().len(), MAX_METHOD_BYTES);
        assert_eq!(name(&longest).as_str(), "BASELINE-CONTROL");
        assert_eq!(name(&Method::DELETE).as_str(), "DELETE");
        let longer = Method::from_bytes(b"UPDATEREDIRECTREF").unwrap();
        assert_eq!(MethodName::new(&longer), None);
        let huge = Method::from_bytes("X".repeat(100_000).as_bytes()).unwrap();
        assert_eq!(MethodName::new(&huge), None);
    }

    #[test]
    fn counts_attempts_per_key() {
        let store = Store::new(AppConfig::default());
        assert_eq!(store.record("a", get(), ok).0.attempt, 1);
        assert_eq!(store.record("a", name(&Method::POST), ok).0.attempt, 2);
        assert_eq!(store.record("b", get(), ok).0.attempt, 1);
        let log = store.log("a");
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].method, "GET");
        assert_eq!(log[1].method, "POST");
        assert!(log[0].t_ms <= log[1].t_ms);
        assert!(store.log("nobody").is_empty());
        assert_eq!(store.entries(), 3);
    }

    #[test]
    fn decide_sees_the_attempt_and_its_status_is_logged() {
        let store = Store::new(AppConfig::default());
        let fail_twice = |seen: Seen| {
            if seen.attempt <= 2 {
                StatusCode::SERVICE_UNAVAILABLE
            } else {
                StatusCode::OK
            }
        };
        let statuses: Vec<u16> = (0..3)
            .map(|_| store.record("k", get(), fail_twice).1.as_u16())
            .collect();
        assert_eq!(statuses, [503, 503, 200]);
        let logged: Vec<u16> = store.log("k").iter().map(|e| e.status).collect();
        assert_eq!(logged, statuses);
    }

    #[test]
    fn evicts_the_oldest_key_at_the_real_limit() {
        let store = Store::new(AppConfig::default());
        for i in 0..=MAX_KEYS {
            store.record(&format!("k{i}"), get(), ok);
        }
        assert_eq!(store.len(), MAX_KEYS);
        assert!(store.log("k0").is_empty(), "the oldest key is evicted");
        assert_eq!(store.log("k1").len(), 1);
        assert_eq!(store.log(&format!("k{MAX_KEYS}")).len(), 1);
    }

    #[test]
    fn eviction_order_is_creation_order_not_use_order() {
        let store = Store::new(config(2, MAX_LOG_ENTRIES, MAX_TOTAL_LOG_ENTRIES));
        store.record("first", get(), ok);
        store.record("second", get(), ok);
        store.record("first", get(), ok); // using it again does not renew it
        store.record("third", get(), ok);
        assert!(store.log("first").is_empty());
        assert_eq!(store.log("second").len(), 1);
        assert_eq!(store.log("third").len(), 1);
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn keeps_the_newest_log_entries_at_the_real_limit() {
        let store = Store::new(AppConfig::default());
        let extra = 5;
        for i in 0..MAX_LOG_ENTRIES + extra {
            let method = if i < extra { put() } else { get() };
            store.record("k", method, ok);
        }
        let log = store.log("k");
        assert_eq!(log.len(), MAX_LOG_ENTRIES);
        assert!(
            log.iter().all(|e| e.method == "GET"),
            "the oldest are dropped"
        );
        assert_eq!(store.entries(), MAX_LOG_ENTRIES);
        // The counter keeps counting past the log's capacity.
        let seen = store.record("k", get(), ok).0;
        assert_eq!(seen.attempt, (MAX_LOG_ENTRIES + extra + 1) as u64);
    }

    #[test]
    fn the_total_of_entries_evicts_the_oldest_other_keys() {
        let store = Store::new(config(100, 5, 10));
        for key in ["a", "b"] {
            for _ in 0..5 {
                store.record(key, get(), ok);
            }
        }
        assert_eq!(store.entries(), 10);
        store.record("c", get(), ok);
        assert!(store.log("a").is_empty(), "the oldest key goes first");
        assert_eq!(store.log("b").len(), 5);
        assert_eq!(store.log("c").len(), 1);
        assert_eq!(store.entries(), 6);
        for _ in 0..4 {
            store.record("d", get(), ok);
        }
        assert_eq!(store.entries(), 10);
        store.record("c", get(), ok);
        assert!(store.log("b").is_empty(), "b was the oldest other key");
        assert_eq!(store.log("c").len(), 2);
        assert_eq!(store.entries(), 6);
        // The oldest key is kept while it is the one being recorded.
        for _ in 0..4 {
            store.record("e", get(), ok);
        }
        assert_eq!(store.entries(), 10);
        let seen = store.record("c", get(), ok).0;
        assert_eq!(seen.attempt, 3, "c was not evicted while recorded");
        assert_eq!(store.log("c").len(), 3);
        assert!(store.log("d").is_empty(), "d was the oldest other key");
        assert_eq!(store.log("e").len(), 4);
        assert_eq!(store.entries(), 7);
        store.len();
    }

    #[test]
    fn a_single_key_never_holds_more_than_the_total() {
        let store = Store::new(config(100, 1_000, 3));
        for _ in 0..10 {
            store.record("only", get(), ok);
        }
        assert_eq!(store.log("only").len(), 3);
        assert_eq!(store.entries(), 3);
        assert_eq!(store.record("only", get(), ok).0.attempt, 11);
    }

    /// The module docs promise at most `MAX_TOTAL_LOG_ENTRIES` entries and
    /// `(2 * MAX_TOTAL_LOG_ENTRIES + 4 * MAX_KEYS) * ENTRY_BYTES` bytes of log
    /// buffers, whatever the clients do; this drives the real limits hard.
    #[test]
    fn log_memory_stays_within_the_documented_bound_at_the_real_limits() {
        let store = Store::new(AppConfig::default());
        let bound_slots = 2 * MAX_TOTAL_LOG_ENTRIES + 4 * MAX_KEYS;
        let check = |store: &Store| {
            assert!(store.len() <= MAX_KEYS);
            assert!(store.entries() <= MAX_TOTAL_LOG_ENTRIES);
            let slots = store.entry_slots();
            assert!(slots <= bound_slots, "{slots} > {bound_slots}");
        };
        // Full logs on as many keys as fit, then more.
        for k in 0..(MAX_TOTAL_LOG_ENTRIES / MAX_LOG_ENTRIES + 20) {
            for _ in 0..MAX_LOG_ENTRIES + 1 {
                store.record(&format!("full-{k}"), get(), ok);
            }
        }
        check(&store);
        assert_eq!(store.entries(), MAX_TOTAL_LOG_ENTRIES);
        // Then every key slot taken, with logs of every size.
        for k in 0..MAX_KEYS + 50 {
            for _ in 0..=(k % 13) {
                store.record(&format!("many-{k}"), get(), ok);
            }
        }
        check(&store);
        assert_eq!(store.len(), MAX_KEYS);
        // And full logs again, which evict the small keys.
        for k in 0..150 {
            for _ in 0..MAX_LOG_ENTRIES {
                store.record(&format!("again-{k}"), get(), ok);
            }
        }
        check(&store);
        assert!(store.entries() > MAX_TOTAL_LOG_ENTRIES - MAX_LOG_ENTRIES);
        assert_eq!(bound_slots * ENTRY_BYTES, 7_680_000);
        // The docs' estimate of under 512 bytes per key rests on this: an
        // 80-byte map slot, plus the key's text (at most 200 bytes) and its
        // place in the eviction order.
        assert!(std::mem::size_of::<(Arc<str>, KeyState)>() <= 80);
    }

    #[test]
    fn reset_forgets_counter_age_and_log() {
        let store = Store::new(AppConfig::default());
        store.record("k", get(), ok);
        store.record("k", get(), ok);
        store.reset("k");
        store.reset("never-seen");
        assert!(store.log("k").is_empty());
        assert_eq!(store.len(), 0);
        assert_eq!(store.entries(), 0);
        let seen = store.record("k", get(), ok).0;
        assert_eq!(seen.attempt, 1);
        assert_eq!(seen.since_first, Duration::ZERO);
    }
}
