//! Normal deviates from one implementation on every platform.
//!
//! `rand_distr`'s ziggurat calls the platform's `exp`/`ln`, whose last bits differ between
//! a native libm and wasm's; this is Marsaglia's polar method with `libm::log` (the same
//! code on every target) and IEEE `sqrt`, which is exact everywhere. Hand-written because
//! it is eight lines and keeps the simulator bit-for-bit reproducible across platforms.

use rand::Rng;

use crate::backoff::uniform;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Normal {
    spare: Option<f64>,
}

impl Normal {
    /// A standard normal deviate (mean 0, sd 1).
    #[inline]
    pub(crate) fn standard<R: Rng + ?Sized>(&mut self, rng: &mut R) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        loop {
            let u = uniform(rng, -1.0, 1.0);
            let v = uniform(rng, -1.0, 1.0);
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let m = (-2.0 * libm::log(s) / s).sqrt();
                self.spare = Some(v * m);
                return u * m;
            }
        }
    }

    /// `|Normal(mean, sd)|`, the AWS simulator's network delay.
    #[inline]
    pub(crate) fn abs<R: Rng + ?Sized>(&mut self, rng: &mut R, mean: f64, sd: f64) -> f64 {
        if sd == 0.0 {
            return mean.abs();
        }
        (mean + sd * self.standard(rng)).abs()
    }
}

/// An exponential deviate of the given rate (events per ms): a Poisson process's gap.
#[inline]
pub(crate) fn exponential<R: Rng + ?Sized>(rng: &mut R, rate_per_ms: f64) -> f64 {
    // 1 - u is in (0, 1], so the log is finite.
    let u = uniform(rng, 0.0, 1.0);
    -libm::log(1.0 - u) / rate_per_ms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded;

    #[test]
    fn moments() {
        let mut rng = seeded(1);
        let mut n = Normal::default();
        let k = 100_000;
        let xs: Vec<f64> = (0..k).map(|_| n.abs(&mut rng, 10.0, 2.0)).collect();
        let mean = xs.iter().sum::<f64>() / k as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / k as f64;
        // Standard error of the mean: 2 / sqrt(1e5) ≈ 0.006; allow 0.03. The sd within 2%.
        assert!((mean - 10.0).abs() < 0.03, "{mean}");
        assert!((var.sqrt() - 2.0).abs() < 0.04, "{}", var.sqrt());
        let gaps: f64 = (0..k).map(|_| exponential(&mut rng, 0.5)).sum::<f64>() / k as f64;
        assert!((gaps - 2.0).abs() < 0.03, "{gaps}");
    }
}
