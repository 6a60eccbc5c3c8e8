//! Normal deviates by the ziggurat method (Marsaglia and Tsang, "The Ziggurat Method for
//! Generating Random Variables", J. Stat. Softw. 5(8), 2000), the same on every platform:
//! the `aws-occ` network delays, four per write.
//!
//! Marsaglia's polar method ([`Normal`](super::normal::Normal)) takes a `log` and a
//! `sqrt` for every two deviates and throws a quarter of its pairs away; in `aws-occ` it
//! was two fifths of the time. The ziggurat takes one 32-bit draw, a multiply and a
//! compare 99% of the time: 256 layers of equal area `V` cover the half-normal density
//! `f(x) = exp(-x²/2)`; a draw picks a layer (the low 8 bits) and a point in it (the top 24
//! bits), and returns at once when the point lies under the next layer's edge. Only the
//! wedges (about 1%) evaluate `exp`, and the base layer's tail (about 0.03%) samples
//! Marsaglia's 1964 tail method with two `log`s.
//!
//! One 32-bit draw, as in Marsaglia and Tsang's own code, rather than the 64 bits of
//! `rand_distr`'s: the generator ([`SeededRng`](crate::SeededRng), PCG32) makes 32 bits a
//! step, so a 64-bit draw cost a second step, a tenth of a write's instructions in
//! `aws-occ`. The point's 2^24 positions in a layer put neighbouring deviates 2^-23 of the
//! layer's width apart, under 5·10^-7 standard deviations: a millionth of a millisecond
//! in the AWS experiment's 2 ms, far below anything its results can show.
//!
//! Reproducible to the bit, as the rest of the simulator: the layer table is computed once
//! from the published constants `R` and `V` with `libm` (the same code on every target) and
//! IEEE `sqrt`, and the draws use `libm::exp`/`libm::log`, never the platform's. As in
//! `rand_distr`'s ziggurat (whose tables are these, hard-coded), the layer index and the
//! point come from disjoint bits of the draw (Doornik 2005 warns against sharing them,
//! which Marsaglia and Tsang's code does).

use std::sync::LazyLock;

use rand::Rng;

use super::ziggurat_layers::{self, LAYERS, Layers};

use crate::backoff::uniform;

/// The base layer's right edge: where the tail starts (Marsaglia and Tsang, 256 layers).
const R: f64 = 3.654_152_885_361_009;
/// Each layer's area, the base layer's tail included.
const V: f64 = 0.004_928_673_233_99;

/// The tables of the layers, whose right edges are [`edges`]: `f[i] = f(x[i])`. For the
/// common case in integers, as in Marsaglia and Tsang's code: a point `j` (a whole number
/// in `[-2^23, 2^23)`) of layer `i` is `j · w[i]`, with `w[i] = x[i] / 2^23`, and lies
/// under the next layer's edge exactly when `|j| < k[i]`.
pub(crate) struct Ziggurat {
    l: Layers,
}

static TABLES: LazyLock<Ziggurat> = LazyLock::new(Ziggurat::build);

/// The half-normal density, unnormalised.
#[inline]
fn density(x: f64) -> f64 {
    libm::exp(-0.5 * x * x)
}

/// A point's position in its layer: `2^23` steps each way.
const STEPS: f64 = (1u32 << 23) as f64;

impl Ziggurat {
    /// The tables, built on first use.
    pub(crate) fn get() -> &'static Ziggurat {
        &TABLES
    }

    fn build() -> Ziggurat {
        Ziggurat {
            l: Layers::new(&edges(), density, STEPS),
        }
    }

    /// A standard normal deviate (mean 0, sd 1). The common case, inlined: one draw,
    /// under the next layer's edge.
    #[inline(always)]
    pub(crate) fn standard<G: Rng + ?Sized>(&self, rng: &mut G) -> f64 {
        let (i, j) = point(rng);
        if j.unsigned_abs() < self.l.k[i] {
            return f64::from(j) * self.l.w[i];
        }
        self.edge(rng, i, j)
    }

    /// The rest of a draw whose point `j` of layer `i` fell beyond the next layer's
    /// edge: the tail, a wedge, or a fresh draw.
    #[cold]
    #[inline(never)]
    fn edge<G: Rng + ?Sized>(&self, rng: &mut G, i: usize, j: i32) -> f64 {
        let (mut i, mut j) = (i, j);
        loop {
            let x = f64::from(j) * self.l.w[i];
            if j.unsigned_abs() < self.l.k[i] {
                return x;
            }
            if i == 0 {
                return tail(rng, j < 0);
            }
            let y = self.l.f[i + 1] + (self.l.f[i] - self.l.f[i + 1]) * uniform(rng, 0.0, 1.0);
            if y < density(x) {
                return x;
            }
            (i, j) = point(rng);
        }
    }

    /// `|Normal(mean, sd)|`, the AWS simulator's network delay. It draws even when `sd`
    /// is 0 (the caller knows when it is, and need not draw at all).
    #[inline(always)]
    pub(crate) fn abs<G: Rng + ?Sized>(&self, rng: &mut G, mean: f64, sd: f64) -> f64 {
        (mean + sd * self.standard(rng)).abs()
    }
}

/// `x[i]`: layer `i`'s right edge, decreasing to `x[256] = 0`; `x[0] = V / f(R)` is the
/// width of a rectangle of the base layer's area. Each layer's top edge comes from the one
/// below it: layer `i` spans `[0, x[i]]` wide and `[f(x[i]), f(x[i+1])]` high, with area
/// `V`.
fn edges() -> [f64; LAYERS + 1] {
    ziggurat_layers::edges(R, V, density, |y| (-2.0 * libm::log(y)).sqrt())
}

/// A layer (the low 8 bits of one 32-bit draw) and a point in it, a whole number in
/// `[-2^23, 2^23)` (the top 24 bits): `u · 2^23` for a uniform `u` in [-1, 1).
#[inline(always)]
fn point<G: Rng + ?Sized>(rng: &mut G) -> (usize, i32) {
    let bits = rng.next_u32();
    ((bits & 0xff) as usize, (bits >> 8) as i32 - (1 << 23))
}

/// A deviate beyond `R` (or below `-R`), by Marsaglia's tail method: `R + a` with `a`
/// exponential of rate `R`, kept with probability `exp(-a²/2)`.
#[cold]
fn tail<G: Rng + ?Sized>(rng: &mut G, negative: bool) -> f64 {
    loop {
        // 1 - u is in (0, 1], so both logs are finite.
        let a = -libm::log(1.0 - uniform(rng, 0.0, 1.0)) / R;
        let b = -libm::log(1.0 - uniform(rng, 0.0, 1.0));
        if 2.0 * b > a * a {
            return if negative { -(R + a) } else { R + a };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded;
    use crate::sim::ziggurat_layers::checks;

    /// Every layer has area `V` and the base layer's rectangle is `V / f(R)` wide
    /// (3.9107579595370900, as published): see `ziggurat_layers::checks`.
    #[test]
    fn the_layers_have_equal_areas() {
        checks::equal_areas(&Ziggurat::get().l, &edges(), V, 3.910_757_959_537_09, 1e-12);
    }

    /// The integer test is the float one at every layer's boundary and at 100,000 seeded
    /// points; a point is `2^23` steps each way.
    #[test]
    fn the_integer_test_is_the_float_test() {
        let mut rng = seeded(13);
        let points = (0..100_000).map(|_| {
            let (i, j) = point(&mut rng);
            (i, i64::from(j))
        });
        let extremes = (-(1 << 23), (1 << 23) - 1);
        checks::integer_is_float(&Ziggurat::get().l, &edges(), extremes, points);
        assert!(Ziggurat::get().l.k.iter().all(|&k| k < 1 << 23));
    }

    /// Against the normal distribution function, in 40 bins of width 0.25 from -5 to 5
    /// (plus both tails), over 2,000,000 seeded draws: Pearson's chi-square with 41
    /// degrees of freedom has mean 41 and sd 9; its 99.9th percentile is 74.7.
    #[test]
    fn draws_are_standard_normal() {
        let z = Ziggurat::get();
        let mut rng = seeded(11);
        let n = 2_000_000;
        let mut bins = [0u32; 42];
        let (mut sum, mut sq) = (0.0, 0.0);
        for _ in 0..n {
            let x = z.standard(&mut rng);
            sum += x;
            sq += x * x;
            let b = ((x + 5.0) / 0.25).floor().clamp(-1.0, 40.0) + 1.0;
            bins[b as usize] += 1;
        }
        let cdf = |x: f64| 0.5 * libm::erfc(-x / core::f64::consts::SQRT_2);
        let mut chi2 = 0.0;
        for (k, &got) in bins.iter().enumerate() {
            let lo = if k == 0 {
                f64::NEG_INFINITY
            } else {
                -5.0 + 0.25 * (k - 1) as f64
            };
            let hi = if k == 41 {
                f64::INFINITY
            } else {
                -5.0 + 0.25 * k as f64
            };
            let want = n as f64 * (cdf(hi) - cdf(lo));
            chi2 += (f64::from(got) - want).powi(2) / want;
        }
        assert!(chi2 < 74.7, "chi-square {chi2}");
        // Mean within 4 standard errors (1/sqrt(n) = 0.0007); variance likewise (sqrt(2/n)).
        let mean = sum / n as f64;
        let var = sq / n as f64 - mean * mean;
        assert!(mean.abs() < 0.003, "{mean}");
        assert!((var - 1.0).abs() < 0.004, "{var}");
    }

    /// The tail beyond `R` has the right mass: P(|Z| > R) = 2.58e-4; over 2,000,000 draws
    /// 516 expected, sd 23; and no tail draw lies inside `R`.
    #[test]
    fn the_tail_has_its_mass() {
        let z = Ziggurat::get();
        let mut rng = seeded(12);
        let n = 2_000_000;
        let beyond = (0..n).filter(|_| z.standard(&mut rng).abs() > R).count() as f64;
        let want = n as f64 * libm::erfc(R / core::f64::consts::SQRT_2);
        assert!(
            (beyond - want).abs() < 5.0 * want.sqrt(),
            "{beyond} vs {want}"
        );
        for neg in [false, true] {
            for _ in 0..1000 {
                let t = tail(&mut rng, neg);
                assert!(t.abs() > R && (t < 0.0) == neg, "{t}");
            }
        }
    }

    /// Value stability, to the bit: seed 42's first draws (pinned here as the polar
    /// method's are in `normal.rs`; the wasm build reaches them through the golden
    /// `aws-occ` run).
    #[test]
    fn pinned_draws_of_seed_42() {
        let z = Ziggurat::get();
        let mut rng = seeded(42);
        let got: [u64; 6] = core::array::from_fn(|_| z.standard(&mut rng).to_bits());
        // 1.2767115636308946, 1.1136130467109524, -0.9311802986734395,
        // 1.9240282100958754, -0.30590815212229006, 0.42453351782280213
        assert_eq!(
            got,
            [
                0x3ff46d691ac383f4,
                0x3ff1d15bea005c00,
                0xbfedcc3aa02f6c03,
                0x3ffec8d1cdef175b,
                0xbfd393ffc93c7b5a,
                0x3fdb2b8ea1c6b486,
            ],
            "{:?}",
            got.map(f64::from_bits)
        );
    }
}
