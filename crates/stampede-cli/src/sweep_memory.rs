//! How much memory a sweep's runs may hold at once.
//!
//! A sweep runs on every core, and each run's memory is bounded, not small: a million clients
//! whose attempts pile up at the servers hold ~650 MB at their peak. One run a core, a sweep
//! of such points took 1.3 GB on 2 threads, 2.6 GB on 4 and 5.4 GB on 8 (a hostile pass, with
//! `RAYON_NUM_THREADS`): a 64-core node of a Slurm array would want some 40 GB and be killed
//! for it. So each run first takes its upper estimate
//! ([`peak_bytes`](stampede::sim::peak_bytes)) from a budget of half the memory the machine
//! (or its cgroup) has free, and gives it back when it ends: big points run fewer at a time,
//! small ones one a core as before. The rows are the same whatever runs together.

use std::sync::{Condvar, Mutex};

/// The budget when the machine's memory cannot be read (not Linux): 4 GiB.
const FALLBACK_BYTES: f64 = 4.0 * 1024.0 * 1024.0 * 1024.0;

/// Bytes that runs hold together, at most `total`.
#[derive(Debug)]
pub struct MemoryBudget {
    total: f64,
    left: Mutex<f64>,
    freed: Condvar,
}

impl MemoryBudget {
    pub fn new(total: f64) -> Self {
        MemoryBudget {
            total,
            left: Mutex::new(total),
            freed: Condvar::new(),
        }
    }

    /// Half of what this machine has free (`MemAvailable`), or its cgroup allows, whichever
    /// is less; [`FALLBACK_BYTES`] where neither can be read.
    pub fn for_this_machine() -> Self {
        let available = meminfo_available();
        let cgroup = cgroup_limit();
        let free = match (available, cgroup) {
            (Some(a), Some(c)) => a.min(c),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => return Self::new(FALLBACK_BYTES),
        };
        Self::new(free / 2.0)
    }

    /// Takes `bytes` (at most the whole budget: a run bigger than it runs alone), waiting
    /// until that much is left; given back when the guard drops.
    pub fn hold(&self, bytes: f64) -> Held<'_> {
        let bytes = if bytes.is_finite() {
            bytes.clamp(0.0, self.total)
        } else {
            self.total
        };
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        while *left < bytes {
            left = self.freed.wait(left).unwrap_or_else(|e| e.into_inner());
        }
        *left -= bytes;
        Held {
            budget: self,
            bytes,
        }
    }
}

/// Bytes taken from a [`MemoryBudget`], given back on drop.
#[derive(Debug)]
pub struct Held<'a> {
    budget: &'a MemoryBudget,
    bytes: f64,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut left = self.budget.left.lock().unwrap_or_else(|e| e.into_inner());
        *left += self.bytes;
        self.budget.freed.notify_all();
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn meminfo_available() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// What this process's cgroup (v2) may still take: `memory.max` less `memory.current`,
/// where a limit is set.
fn cgroup_limit() -> Option<f64> {
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let max: f64 = read("memory.max")?.trim().parse().ok()?;
    let current: f64 = read("memory.current")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0.0);
    Some((max - current).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;
    use std::time::Duration;

    /// Holders never take more than the budget together; one bigger than it runs alone.
    #[test]
    fn holders_stay_within_the_budget() {
        let budget = MemoryBudget::new(100.0);
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        thread::scope(|s| {
            for i in 0..8 {
                let (budget, now, most) = (&budget, &now, &most);
                s.spawn(move || {
                    // 40 bytes each, and one of 1,000 (more than the whole budget).
                    let bytes = if i == 3 { 1000.0 } else { 40.0 };
                    let _held = budget.hold(bytes);
                    let held = now.fetch_add(bytes.min(100.0) as usize, Ordering::SeqCst)
                        + bytes.min(100.0) as usize;
                    most.fetch_max(held, Ordering::SeqCst);
                    thread::sleep(Duration::from_millis(5));
                    now.fetch_sub(bytes.min(100.0) as usize, Ordering::SeqCst);
                });
            }
        });
        assert!(most.load(Ordering::SeqCst) <= 100, "{most:?}");
        assert_eq!(*budget.left.lock().unwrap(), 100.0, "all given back");
    }

    #[test]
    fn this_machine_has_a_budget() {
        let b = MemoryBudget::for_this_machine();
        assert!(b.total > 0.0 && b.total.is_finite(), "{}", b.total);
    }
}
