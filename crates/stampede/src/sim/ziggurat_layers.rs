//! The layers of a ziggurat (Marsaglia and Tsang, "The Ziggurat Method for Generating
//! Random Variables", J. Stat. Softw. 5(8), 2000), built the same way for both of the
//! simulator's: the normal one (`ziggurat.rs`) and the exponential one (`ziggurat_exp.rs`).
//!
//! 256 layers of equal area `V` cover a decreasing density `f` on `[0, ∞)`. Layer `i`
//! spans `[0, x[i]]` wide and `[f(x[i]), f(x[i+1])]` high; the base layer (0) is a
//! rectangle `V / f(R)` wide, which stands for the strip up to `R` and the tail beyond it.
//! A draw picks a layer and a whole-number point `j` in it; the point is `j · w[i]`, and it
//! lies under the next layer's edge, where it is accepted at once, exactly when `|j| < k[i]`.

/// Layers.
pub(crate) const LAYERS: usize = 256;

/// A ziggurat's tables: `f[i] = f(x[i])`, `w[i] = x[i] / steps`, and `k[i]`, the least
/// whole number whose point is not under `x[i + 1]`.
pub(crate) struct Layers {
    pub(crate) f: [f64; LAYERS + 1],
    pub(crate) w: [f64; LAYERS],
    pub(crate) k: [u32; LAYERS],
}

impl Layers {
    /// The tables for right edges `x` (see [`edges`]), the density `f`, and a point's
    /// `steps` across a layer (each way, for a symmetric distribution).
    pub(crate) fn new(x: &[f64; LAYERS + 1], f: fn(f64) -> f64, steps: f64) -> Layers {
        let w: [f64; LAYERS] = core::array::from_fn(|i| x[i] / steps);
        // The least `m` whose point `m · w[i]` (as the draw computes it, rounded) is not
        // under `x[i + 1]`: from the quotient, then stepped to the exact boundary.
        let k = core::array::from_fn(|i| {
            let under = |m: u32| f64::from(m) * w[i] < x[i + 1];
            let mut m = (x[i + 1] / w[i]).min(steps) as u32;
            while m > 0 && !under(m - 1) {
                m -= 1;
            }
            while f64::from(m) < steps && under(m) {
                m += 1;
            }
            m
        });
        Layers { f: x.map(f), w, k }
    }
}

/// `x[i]`: layer `i`'s right edge, decreasing to `x[256] = 0`, from the published `R` and
/// `V`: `x[0] = V / f(R)`, `x[1] = R`, and each layer's top edge from the one below it,
/// `x[i + 1] = f⁻¹(V / x[i] + f(x[i]))`, so that every layer has area `V`.
pub(crate) fn edges(
    r: f64,
    v: f64,
    f: fn(f64) -> f64,
    f_inverse: fn(f64) -> f64,
) -> [f64; LAYERS + 1] {
    let mut x = [0.0; LAYERS + 1];
    x[0] = v / f(r);
    x[1] = r;
    for i in 1..LAYERS - 1 {
        x[i + 1] = f_inverse(v / x[i] + f(x[i]));
    }
    x[LAYERS] = 0.0;
    x
}

/// Checks both ziggurats' tests share.
#[cfg(test)]
pub(crate) mod checks {
    use super::*;

    /// Every layer has area `v`, the top one too (which the recurrence does not force: it
    /// checks the published `R` and `V` and the table built from them); the base layer's
    /// rectangle is `x0` wide (as published, within `tolerance`); the edges decrease; the
    /// top of the top layer is `f(0) = 1`.
    pub(crate) fn equal_areas(l: &Layers, x: &[f64; LAYERS + 1], v: f64, x0: f64, tolerance: f64) {
        assert!((x[0] - x0).abs() < tolerance, "{}", x[0]);
        for (i, width) in x.iter().enumerate().take(LAYERS).skip(1) {
            let area = width * (l.f[i + 1] - l.f[i]);
            assert!((area - v).abs() < 1e-11, "layer {i}: {area}");
        }
        assert_eq!(l.f[LAYERS], 1.0);
        assert!(x.windows(2).all(|w| w[0] > w[1]));
    }

    /// The integer test is the float test, `|x| < x[i + 1]` for the point `x = j · w[i]`
    /// as the draw computes it: at each layer's boundary (`±k[i]` and its neighbours, and
    /// the `extremes` of `j`) and at `points` the caller draws. The top layer always tests
    /// its wedge.
    pub(crate) fn integer_is_float(
        l: &Layers,
        x: &[f64; LAYERS + 1],
        extremes: (i64, i64),
        points: impl Iterator<Item = (usize, i64)>,
    ) {
        let float = |i: usize, j: i64| (j as f64 * l.w[i]).abs() < x[i + 1];
        let int = |i: usize, j: i64| j.unsigned_abs() < u64::from(l.k[i]);
        let (lo, hi) = extremes;
        for i in 0..LAYERS {
            let k = i64::from(l.k[i]);
            for j in [k - 2, k - 1, k, k + 1, -k - 1, -k, -k + 1, 0, lo, hi] {
                let j = j.clamp(lo, hi);
                assert_eq!(int(i, j), float(i, j), "layer {i}, point {j}");
            }
        }
        for (i, j) in points {
            assert_eq!(int(i, j), float(i, j), "layer {i}, point {j}");
        }
        assert_eq!(l.k[LAYERS - 1], 0);
    }
}
