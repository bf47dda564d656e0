//! Small, stable, dependency-free hashing and random numbers.
//!
//! The mock's determinism promise ("same seed + same request body → same reply") must hold
//! across Rust and crate versions, so it uses its own FNV-1a hash and SplitMix64 generator
//! instead of `DefaultHasher` or `rand`'s unspecified small RNGs.

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Mixes two words into one well-spread seed.
pub(crate) fn mix(a: u64, b: u64) -> u64 {
    let mut r = SplitMix64::new(a ^ b.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15);
    r.next_u64() ^ SplitMix64::new(b).next_u64()
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for test data and fault draws.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n > 0`); the modulo bias is irrelevant for test data.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        self.next_u64() % n.max(1)
    }

    /// Uniform in `lo..=hi` (`lo <= hi`).
    pub(crate) fn range_inclusive(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi as i128 - lo as i128 + 1) as u128;
        let r = (self.next_u64() as u128) % span;
        (lo as i128 + r as i128) as i64
    }

    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_values() {
        // Pinned so that a change of algorithm (and so of every reply) is noticed.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn ranges() {
        let mut r = SplitMix64::new(7);
        for _ in 0..1000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            let x = r.range_inclusive(-3, 3);
            assert!((-3..=3).contains(&x));
        }
        assert_eq!(r.range_inclusive(5, 5), 5);
        // The full span must not overflow.
        let _ = r.range_inclusive(i64::MIN, i64::MAX);
    }
}
