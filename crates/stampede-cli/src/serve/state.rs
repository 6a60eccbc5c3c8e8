//! The demo API's memory: a request counter and an arrival log per key.
//!
//! Everything sits behind one [`std::sync::Mutex`]; every critical section is a
//! few map operations, so contention stays negligible even under the load test.
//! The state is bounded: at most `max_keys` keys (the least recently *created*
//! key is evicted first) and at most `max_log_entries` entries per key (the
//! oldest entry is dropped first).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::http::{Method, StatusCode};
use serde::Serialize;

use super::AppConfig;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Entry {
    /// Arrival time, measured from [`Store::started`].
    at: Duration,
    method: Method,
    status: StatusCode,
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
    keys: HashMap<String, KeyState>,
    /// Creation sequence number → key, oldest first.
    order: BTreeMap<u64, String>,
    next_seq: u64,
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
    /// the key (evicting the oldest one if the store is full) when it is new.
    pub(crate) fn record(
        &self,
        key: &str,
        method: &Method,
        decide: impl FnOnce(Seen) -> StatusCode,
    ) -> (Seen, StatusCode) {
        let now = Instant::now();
        let mut inner = self.lock();
        let inner = &mut *inner;
        if !inner.keys.contains_key(key) {
            while inner.keys.len() >= self.config.max_keys.max(1) {
                let Some((_, oldest)) = inner.order.pop_first() else {
                    break;
                };
                inner.keys.remove(&oldest);
            }
        }
        let state = inner.keys.entry(key.to_owned()).or_insert_with(|| {
            let seq = inner.next_seq;
            inner.next_seq += 1;
            inner.order.insert(seq, key.to_owned());
            KeyState {
                seq,
                created: now,
                requests: 0,
                log: VecDeque::new(),
            }
        });
        state.requests += 1;
        let seen = Seen {
            attempt: state.requests,
            since_first: now.saturating_duration_since(state.created),
        };
        let status = decide(seen);
        while state.log.len() >= self.config.max_log_entries.max(1) {
            state.log.pop_front();
        }
        state.log.push_back(Entry {
            at: now.saturating_duration_since(self.started),
            method: method.clone(),
            status,
        });
        (seen, status)
    }

    /// The log of `key`, oldest entry first (empty for an unknown key).
    pub(crate) fn log(&self, key: &str) -> Vec<LogEntry> {
        let entries: Vec<Entry> = self
            .lock()
            .keys
            .get(key)
            .map(|state| state.log.iter().cloned().collect())
            .unwrap_or_default();
        entries
            .into_iter()
            .map(|entry| {
                let micros = u64::try_from(entry.at.as_micros()).unwrap_or(u64::MAX);
                LogEntry {
                    // f64 is exact for integers below 2^53 µs (about 285 years).
                    t_ms: micros as f64 / 1000.0,
                    unix_ms: self.started_unix_ms.saturating_add(micros / 1000),
                    method: entry.method.as_str().to_owned(),
                    status: entry.status.as_u16(),
                }
            })
            .collect()
    }

    /// Forgets `key`: its counter, its age and its log.
    pub(crate) fn reset(&self, key: &str) {
        let mut inner = self.lock();
        if let Some(state) = inner.keys.remove(key) {
            inner.order.remove(&state.seq);
        }
    }

    /// How many keys the store holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        let inner = self.lock();
        debug_assert_eq!(inner.keys.len(), inner.order.len());
        inner.keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::{MAX_KEYS, MAX_LOG_ENTRIES};

    fn ok(_: Seen) -> StatusCode {
        StatusCode::OK
    }

    #[test]
    fn counts_attempts_per_key() {
        let store = Store::new(AppConfig::default());
        assert_eq!(store.record("a", &Method::GET, ok).0.attempt, 1);
        assert_eq!(store.record("a", &Method::POST, ok).0.attempt, 2);
        assert_eq!(store.record("b", &Method::GET, ok).0.attempt, 1);
        let log = store.log("a");
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].method, "GET");
        assert_eq!(log[1].method, "POST");
        assert!(log[0].t_ms <= log[1].t_ms);
        assert!(store.log("nobody").is_empty());
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
            .map(|_| store.record("k", &Method::GET, fail_twice).1.as_u16())
            .collect();
        assert_eq!(statuses, [503, 503, 200]);
        let logged: Vec<u16> = store.log("k").iter().map(|e| e.status).collect();
        assert_eq!(logged, statuses);
    }

    #[test]
    fn evicts_the_oldest_key_at_the_real_limit() {
        let store = Store::new(AppConfig::default());
        for i in 0..=MAX_KEYS {
            store.record(&format!("k{i}"), &Method::GET, ok);
        }
        assert_eq!(store.len(), MAX_KEYS);
        assert!(store.log("k0").is_empty(), "the oldest key is evicted");
        assert_eq!(store.log("k1").len(), 1);
        assert_eq!(store.log(&format!("k{MAX_KEYS}")).len(), 1);
    }

    #[test]
    fn eviction_order_is_creation_order_not_use_order() {
        let store = Store::new(AppConfig {
            max_keys: 2,
            ..AppConfig::default()
        });
        store.record("first", &Method::GET, ok);
        store.record("second", &Method::GET, ok);
        store.record("first", &Method::GET, ok); // using it again does not renew it
        store.record("third", &Method::GET, ok);
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
            let method = if i < extra { Method::PUT } else { Method::GET };
            store.record("k", &method, ok);
        }
        let log = store.log("k");
        assert_eq!(log.len(), MAX_LOG_ENTRIES);
        assert!(
            log.iter().all(|e| e.method == "GET"),
            "the oldest are dropped"
        );
        // The counter keeps counting past the log's capacity.
        let seen = store.record("k", &Method::GET, ok).0;
        assert_eq!(seen.attempt, (MAX_LOG_ENTRIES + extra + 1) as u64);
    }

    #[test]
    fn reset_forgets_counter_age_and_log() {
        let store = Store::new(AppConfig::default());
        store.record("k", &Method::GET, ok);
        store.record("k", &Method::GET, ok);
        store.reset("k");
        store.reset("never-seen");
        assert!(store.log("k").is_empty());
        assert_eq!(store.len(), 0);
        let seen = store.record("k", &Method::GET, ok).0;
        assert_eq!(seen.attempt, 1);
        assert_eq!(seen.since_first, Duration::ZERO);
    }
}
