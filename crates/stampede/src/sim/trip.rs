//! How long one trip over the network takes (client to server, or back): drawn for every
//! attempt, by a rule chosen once per run. A child of `herd.rs`.

use crate::sim::model::LatencyDist;
use crate::sim::normal::{exponential, uniform32};
use crate::{SeededRng, float};

/// How one trip's latency is drawn, decided once per run: for `normal`, `latency/2` plus
/// uniform jitter of standard deviation `sd/sqrt(2)`, never negative (a uniform draw costs
/// a tenth of a normal one, and the herd's shape does not depend on the jitter's;
/// `aws-occ` keeps the AWS model's normal delays); for `exponential`, exponential with
/// mean `latency/2`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Trip {
    /// `lo + width · u`: `latency/2 ∓ sqrt(3) · sd/sqrt(2)`, so that a round trip (two
    /// trips) has standard deviation `sd`.
    Uniform { lo: f64, width: f64 },
    /// No jitter (or no latency).
    Fixed(f64),
    /// Exponential of this rate (per ms).
    Exponential { rate: f64 },
}

impl Trip {
    pub(super) fn new(dist: LatencyDist, half_latency: f64, sd: f64) -> Trip {
        let halfwidth = 1.5f64.sqrt() * sd;
        if dist == LatencyDist::Exponential && half_latency > 0.0 {
            Trip::Exponential {
                rate: 1.0 / half_latency,
            }
        } else if halfwidth == 0.0 {
            Trip::Fixed(half_latency)
        } else {
            let lo = half_latency - halfwidth;
            Trip::Uniform {
                lo,
                width: (half_latency + halfwidth) - lo,
            }
        }
    }

    /// One trip's latency (ms).
    #[inline(always)]
    pub(super) fn draw(&self, rng: &mut SeededRng) -> f64 {
        match *self {
            Trip::Uniform { lo, width } => float::max(lo + width * uniform32(rng, 0.0, 1.0), 0.0),
            Trip::Fixed(ms) => ms,
            Trip::Exponential { rate } => exponential(rng, rate),
        }
    }
}
