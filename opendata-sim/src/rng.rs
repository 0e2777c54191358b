//! A tiny deterministic random source (`SplitMix64`) and hashing helpers.
//!
//! Everything the server synthesizes (ids, report lags, revisions, deletions, the
//! unordered Socrata row order) comes from here, so one seed gives one run, byte for byte.

/// `SplitMix64`: small, fast, good enough for a test script, and fully reproducible.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for one sub-stream, e.g. one week or one incident of a seeded script.
    pub(crate) fn derive(seed: u64, stream: u64) -> Rng {
        Rng(mix(seed ^ mix(stream.wrapping_add(0x632B_E59B_D9B4_E019))))
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// A number in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Shuffles `items` in place (Fisher-Yates).
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// The `SplitMix64` finaliser: a bijection on `u64` that scrambles every bit.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a of a string, to turn names into seeds.
pub(crate) fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// Three groups of four characters from a 32-letter alphabet, joined by `seps`
/// in turn, e.g. `iuec-rtpx-37j2`; the shape of Socrata's `:id` and `:version` tails.
pub(crate) fn code(mut bits: u64, seps: &[char]) -> String {
    const ALPHABET: &[u8; 32] = b"23456789abcdefghijkmnpqrstuvwxyz";
    let mut out = String::with_capacity(14);
    for group in 0..3 {
        if group > 0 {
            out.push(seps[(group - 1) % seps.len()]);
        }
        for _ in 0..4 {
            out.push(char::from(ALPHABET[(bits & 31) as usize]));
            bits >>= 5;
        }
    }
    out
}
