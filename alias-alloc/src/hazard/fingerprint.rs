//! [`fingerprint`]: a 128-bit digest the explorers remember instead of a state.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Two 64-bit SipHashes of `value`, under two prefixes: two values that differ share a
/// fingerprint with a probability near 2⁻¹²⁸ a pair — below 10⁻²⁵ among a billion states —
/// so a memo of fingerprints answers "seen before?" as a memo of the states would, in 16
/// bytes a state.
pub(super) fn fingerprint(value: &impl Hash) -> u128 {
    let half = |prefix: u8| {
        let mut h = DefaultHasher::new();
        prefix.hash(&mut h);
        value.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}
