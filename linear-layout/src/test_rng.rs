//! A seeded xorshift64 (shifts 13, 7, 17) for the crate's unit tests: random cases that are
//! the same on every run. (The integration tests have `test_support::random_tree::XorShift`,
//! which the crate's own unit tests cannot reach.)

/// The generator's state; never 0.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// The next state.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value below `n` (not exactly uniform: enough for test cases).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
