//! JSON output helpers.

use serde_json::Value;

/// A number as JSON: whole values print without a fraction (`200`, not `200.0`), others
/// in the shortest form that reads back to the same `f64`. Non-finite values are `null`.
pub fn num(v: f64) -> Value {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        Value::from(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(num(200.0).to_string(), "200");
        assert_eq!(num(155.5).to_string(), "155.5");
        assert_eq!(num(f64::NAN), Value::Null);
        assert_eq!(num(-0.0).to_string(), "0");
    }
}
