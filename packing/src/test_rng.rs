//! The unit tests' random numbers: xorshift64, seeded, the same on every platform.

/// A generator of numbers below a bound (`next(m)` is in `0..m`; `m` must be nonzero), from a
/// seed (0 is turned into 1: xorshift never leaves 0).
pub(crate) fn below(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed.max(1);
    move |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    }
}
