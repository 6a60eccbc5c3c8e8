//! The load balancer: which server gets the next request.
//!
//! `least-loaded` keeps the servers' loads (requests in service and waiting) in a
//! tournament tree, so a pick and an update are O(log servers) rather than a scan of all
//! of them (at 10,000 servers a scan per arrival would be most of a run's time).

use rand::RngExt;

use super::model::Balance;
use crate::SeededRng;

#[derive(Debug, Clone)]
pub(crate) struct Balancer {
    kind: Balance,
    servers: usize,
    next: usize,
    /// `least-loaded`: a complete binary tree over `leaves` leaves, each node the least
    /// load below it; leaves past the servers hold `u32::MAX`.
    tree: Vec<u32>,
    leaves: usize,
}

impl Balancer {
    pub(crate) fn new(kind: Balance, servers: usize) -> Self {
        let leaves = servers.next_power_of_two();
        let tree = if kind == Balance::LeastLoaded && servers > 1 {
            let mut t = vec![u32::MAX; 2 * leaves];
            for leaf in &mut t[leaves..leaves + servers] {
                *leaf = 0;
            }
            for i in (1..leaves).rev() {
                t[i] = t[2 * i].min(t[2 * i + 1]);
            }
            t
        } else {
            Vec::new()
        };
        Balancer {
            kind,
            servers,
            next: 0,
            tree,
            leaves,
        }
    }

    /// The server for the next request.
    #[inline]
    pub(crate) fn pick(&mut self, rng: &mut SeededRng) -> usize {
        if self.servers == 1 {
            return 0;
        }
        match self.kind {
            Balance::Random => rng.random_range(0..self.servers),
            Balance::LeastLoaded => {
                // Down from the root, to the left on a tie: the lowest-numbered server of
                // the least load.
                let mut i = 1;
                while i < self.leaves {
                    i = if self.tree[2 * i] <= self.tree[2 * i + 1] {
                        2 * i
                    } else {
                        2 * i + 1
                    };
                }
                i - self.leaves
            }
            _ => {
                let k = self.next;
                self.next = if k + 1 == self.servers { 0 } else { k + 1 };
                k
            }
        }
    }

    /// Server `k`'s load is now `load` (requests in service and waiting).
    #[inline]
    pub(crate) fn loaded(&mut self, k: usize, load: usize) {
        if self.tree.is_empty() {
            return;
        }
        let mut i = self.leaves + k;
        self.tree[i] = u32::try_from(load).unwrap_or(u32::MAX - 1);
        while i > 1 {
            i /= 2;
            let least = self.tree[2 * i].min(self.tree[2 * i + 1]);
            if self.tree[i] == least {
                break;
            }
            self.tree[i] = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_takes_turns() {
        let mut rng = crate::seeded(1);
        let mut b = Balancer::new(Balance::RoundRobin, 3);
        let picks: Vec<usize> = (0..7).map(|_| b.pick(&mut rng)).collect();
        assert_eq!(picks, [0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn least_loaded_matches_a_scan_lowest_index_on_ties() {
        let mut rng = crate::seeded(2);
        for servers in [2usize, 3, 5, 8, 13] {
            let mut b = Balancer::new(Balance::LeastLoaded, servers);
            let mut loads = vec![0usize; servers];
            for step in 0..2000 {
                let want = (0..servers).min_by_key(|&k| (loads[k], k)).unwrap();
                assert_eq!(b.pick(&mut rng), want, "{servers} servers, step {step}");
                // Load the pick, and sometimes unload a random server.
                loads[want] += 1;
                b.loaded(want, loads[want]);
                let k = rng.random_range(0..servers);
                if loads[k] > 0 && rng.random::<bool>() {
                    loads[k] -= 1;
                    b.loaded(k, loads[k]);
                }
            }
        }
    }

    #[test]
    fn random_spreads_over_every_server() {
        let mut rng = crate::seeded(3);
        let mut b = Balancer::new(Balance::Random, 4);
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            seen[b.pick(&mut rng)] += 1;
        }
        // Each near 1000 (binomial sd ≈ 27): 850..1150 is over 5 sd.
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
    }
}
