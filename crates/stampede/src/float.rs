//! The larger or smaller of two `f64`s that are never NaN, as one comparison.
//!
//! `f64::max` and `f64::min` return the other operand when one is NaN (IEEE `maxNum`).
//! WebAssembly's `f64.max` and `f64.min` propagate NaN instead, so in wasm Rust calls
//! libm's `fmax` and `fmin`: a function call at each use (24 of them in the engine's event
//! loop); natively, the NaN test adds three instructions to `maxsd`. The simulator's times,
//! delays and counts are never NaN (every setting is validated), so its hot paths use
//! these, which are a compare and a select everywhere.

/// `a.max(b)` for operands that are not NaN.
#[inline(always)]
pub(crate) fn max(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// `a.min(b)` for operands that are not NaN.
#[inline(always)]
pub(crate) fn min(a: f64, b: f64) -> f64 {
    if a < b { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_std_on_numbers() {
        let xs = [
            0.0,
            1.0,
            -1.0,
            2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-300,
            7.0,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(max(a, b), a.max(b), "max({a}, {b})");
                assert_eq!(min(a, b), a.min(b), "min({a}, {b})");
            }
        }
        // Like std, a NaN in the first place yields the other operand.
        assert_eq!(max(f64::NAN, 0.0), 0.0);
        assert_eq!(min(f64::NAN, 0.0), 0.0);
    }
}
