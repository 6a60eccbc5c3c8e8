//! Structured values from a fuzzer's raw bytes.
//!
//! A tiny, dependency-free stand-in for the `arbitrary` crate, so the stable replay tests
//! read a corpus file exactly as the fuzz target did. Reads past the end give zeros, so every
//! byte string decodes to some input and a short file is still a valid case.

/// A cursor over the fuzzer's bytes.
pub struct Input<'a> {
    data: &'a [u8],
}

/// Numbers a careless front end can send as a setting, and the edges of the crate's ranges:
/// NaN, both infinities, both zeros, the smallest subnormal and normal, the extremes, and
/// each limit with its neighbour just past it.
const SPECIAL_F64: [f64; 28] = [
    0.0,
    -0.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    f64::from_bits(1),                     // the smallest subnormal, 5e-324
    f64::from_bits(0x000F_FFFF_FFFF_FFFF), // the largest subnormal
    f64::MAX,
    f64::MIN,
    f64::EPSILON,
    -1.0,
    1.0,
    0.001,
    1e-6,
    100.0,
    1000.0,
    60_000.0,
    86_400_000.0,                                // MAX_DURATION_MS
    f64::from_bits(86_400_000f64.to_bits() + 1), // just past it
    1e9,                                         // MAX_TOKENS, the most clients, …
    f64::from_bits(1e9f64.to_bits() + 1),        // just past it
    20_000_000.0,
    9_007_199_254_740_993.0, // 2^53 + 1 (rounds to 2^53)
    1e15,
    1e300,
    -1e300,
];

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// The next `N` bytes, zero-padded past the end.
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        out
    }

    /// One byte.
    pub fn byte(&mut self) -> u8 {
        self.take::<1>()[0]
    }

    /// A flag (the byte's low bit).
    pub fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }

    /// A whole number in `lo..=hi`.
    pub fn u32_in(&mut self, lo: u32, hi: u32) -> u32 {
        let span = u64::from(hi - lo) + 1;
        lo + (u64::from(self.u32()) % span) as u32
    }

    /// One of `n` choices, `0..n` (one byte).
    pub fn choice(&mut self, n: u8) -> u8 {
        self.byte() % n
    }

    /// Any `f64`, the awkward ones often: a tag byte picks raw bits (NaN payloads,
    /// subnormals, huge values), a whole number, a fraction, or one of [`SPECIAL_F64`].
    pub fn f64_any(&mut self) -> f64 {
        match self.byte() % 4 {
            0 => f64::from_bits(self.u64()),
            1 => f64::from(self.u32()),
            2 => f64::from(self.u32()) / 1000.0,
            _ => SPECIAL_F64[usize::from(self.byte()) % SPECIAL_F64.len()],
        }
    }

    /// A finite `f64`: [`f64_any`](Self::f64_any), with NaN and the infinities read as 0.
    pub fn f64_finite(&mut self) -> f64 {
        let v = self.f64_any();
        if v.is_finite() { v } else { 0.0 }
    }

    /// A number in `[lo, hi]`, spread evenly over 2^32 steps.
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        let u = f64::from(self.u32()) / f64::from(u32::MAX);
        (lo + (hi - lo) * u).clamp(lo, hi)
    }

    /// `Some` of `value` or `None`, as a flag says.
    pub fn maybe<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.flag() { Some(value(self)) } else { None }
    }

    /// A string of at most `max` bytes (lossy UTF-8), prefixed by its length byte.
    pub fn short_str(&mut self, max: usize) -> String {
        let n = usize::from(self.byte()).min(max).min(self.data.len());
        let (s, rest) = self.data.split_at(n);
        self.data = rest;
        String::from_utf8_lossy(s).into_owned()
    }

    /// Everything left, as lossy UTF-8.
    pub fn rest_str(self) -> String {
        String::from_utf8_lossy(self.data).into_owned()
    }
}
