//! Layouts of at most 64 output bits as one word per input bit: the packing the fast paths of
//! `compose` and the solvers (`invert`) share.

/// Out-dims the packed fast paths (`compose`, the solvers) keep on the stack; more take the
/// general path.
pub(crate) const SMALL: usize = 8;

/// Calls `f` with each basis of a flat basis array (`n` components each) packed into one
/// word, component `j` shifted left by `shifts[j]`; the usual widths of one and two
/// components get loops of their own. With `n = 0` the array is empty and `f` is never called.
///
/// Shifts wrap: callers place dims side by side in at most 64 bits, and a component is below
/// `2^log2` of its dim (a layout invariant), so a shift of 64 only ever meets a component of 0.
pub(crate) fn for_each_packed(bases: &[u64], n: usize, shifts: &[u32], mut f: impl FnMut(u64)) {
    match (n, shifts) {
        (1, &[s0]) => bases.iter().for_each(|&c| f(c.wrapping_shl(s0))),
        (2, &[s0, s1]) => bases.chunks_exact(2).for_each(|c| {
            if let [c0, c1] = *c {
                f(c0.wrapping_shl(s0) | c1.wrapping_shl(s1));
            }
        }),
        _ => bases.chunks_exact(n.max(1)).for_each(|c| {
            f(c.iter()
                .zip(shifts)
                .fold(0, |w, (&c, &s)| w | c.wrapping_shl(s)))
        }),
    }
}
