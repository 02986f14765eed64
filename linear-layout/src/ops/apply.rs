//! Evaluating a layout: the checked, named [`LinearLayout::apply`], and a compiled
//! [`Evaluator`] for hot loops (one table lookup per input byte).

use std::sync::Arc;

use crate::dims::{names, Dim};
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use crate::ops::gfni::GfniMatrices;

impl LinearLayout {
    /// `L(x)`: XOR of the bases of the set bits of every input. Every in-dim must be given
    /// exactly once ([`LayoutError::DimsMismatch`]) and every value must be inside its dim
    /// ([`LayoutError::InputOutOfRange`]; Triton silently drops the high bits). Returns one value
    /// per out-dim, in out-dim order.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let a = LinearLayout::from_bases(&[("reg", vec![vec![1, 0], vec![0, 1], vec![2, 0]]), ("lane", vec![vec![0, 2], vec![2, 2]])], &[("x", 4), ("y", 4)], true)?;
    /// assert_eq!(a.apply(&[("reg", 7), ("lane", 3)])?, vec![("x".into(), 1), ("y".into(), 1)]);
    /// assert!(a.apply(&[("reg", 8), ("lane", 0)]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn apply<D: Into<Dim> + Copy>(&self, inputs: &[(D, u64)]) -> Result<Vec<(Dim, u64)>> {
        let given: Vec<Dim> = inputs.iter().map(|(d, _)| (*d).into()).collect();
        let mismatch = || LayoutError::DimsMismatch {
            op: "apply",
            what: "the given inputs and the layout's in-dims",
            left: given.iter().map(|d| d.to_string()).collect(),
            right: names(&self.ins),
        };
        if given.len() != self.ins.len() {
            return Err(mismatch());
        }
        let mut out = vec![0u64; self.outs.len()];
        for (k, d) in self.ins.iter().enumerate() {
            let mut found = given.iter().zip(inputs).filter(|(g, _)| **g == d.dim);
            let (Some((_, &(_, value))), None) = (found.next(), found.next()) else {
                return Err(mismatch());
            };
            if value >> d.log2 != 0 {
                return Err(LayoutError::InputOutOfRange {
                    dim: d.dim.to_string(),
                    value,
                    size: d.size() as u128,
                });
            }
            let start = self.in_offset(k);
            let mut rest = value;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                for (o, &c) in out.iter_mut().zip(self.basis_at(start + b)) {
                    *o ^= c;
                }
            }
        }
        Ok(self.outs.iter().map(|o| o.dim).zip(out).collect())
    }

    /// Compiles the layout for fast evaluation of flattened inputs; see [`Evaluator`].
    /// Requires at most 64 input and 64 output bits ([`LayoutError::Invalid`] otherwise).
    pub fn evaluator(&self) -> Result<Evaluator> {
        Evaluator::new(self)
    }
}

/// A layout compiled to byte tables: `apply(x)` maps the flattened input `x` (in-dims
/// concatenated minor to major, as in the matrix view) to the flattened output with one table
/// lookup and XOR per input byte.
///
/// ```
/// use linear_layout::LinearLayout;
/// let l = LinearLayout::from_bases(&[("offset", vec![vec![0, 1], vec![0, 2], vec![1, 2], vec![2, 0]])], &[("dim0", 4), ("dim1", 4)], true)?;
/// let eval = l.evaluator()?;
/// // offset 5 = bits 0 and 2 → (0,1) ^ (1,2) = (1,3), flattened dim0 | dim1 << 2
/// assert_eq!(eval.apply(5), 1 | 3 << 2);
/// assert_eq!(eval.split(eval.apply(5)), vec![1, 3]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Evaluator {
    tables: Tables,
    /// `apply_many` on AVX-512 + GFNI, where the CPU has it and the layout fits 32 → 32 bits.
    gfni: Option<Arc<GfniMatrices>>,
    out_log2: Arc<[u32]>,
}

/// The byte tables (shared: cloning an evaluator, or an `AddressMap` holding one, copies a
/// pointer), in the narrowest form the layout allows: up to 16 (32) input bits take
/// exactly two (four) tables (unused ones stay zero), so `apply` is two (four) lookups with no
/// loop; up to 32 output bits store 32-bit entries (4 KiB at most, well inside L1).
#[derive(Clone, Debug)]
enum Tables {
    Two32(Arc<[[u32; 256]; 2]>),
    Four32(Arc<[[u32; 256]; 4]>),
    Four64(Arc<[[u64; 256]; 4]>),
    Any(Arc<[[u64; 256]]>),
}

impl Evaluator {
    fn new(layout: &LinearLayout) -> Result<Evaluator> {
        let (n_in, n_out) = (
            layout.total_in_dim_size_log2(),
            layout.total_out_dim_size_log2(),
        );
        if n_in > 64 || n_out > 64 {
            return Err(LayoutError::Invalid {
                op: "evaluator",
                what: format!("a compiled evaluator holds at most 64 input and 64 output bits, the layout has {n_in} and {n_out}"),
            });
        }
        let offsets = layout.out_offsets();
        let columns: Vec<u64> = (0..n_in as usize)
            .map(|bit| layout.packed_column::<u64>(bit, &offsets))
            .collect();
        let table = |chunk: &[u64]| {
            let mut t = [0u64; 256];
            for byte in 1..256usize {
                let low = byte.trailing_zeros() as usize;
                let rest = t.get(byte & (byte - 1)).copied().unwrap_or(0);
                let column = chunk.get(low).copied().unwrap_or(0);
                if let Some(slot) = t.get_mut(byte) {
                    *slot = rest ^ column;
                }
            }
            t
        };
        let wide: Vec<[u64; 256]> = columns.chunks(8).map(table).collect();
        let mut gfni = None;
        let tables = if n_in <= 16 && n_out <= 32 {
            let mut two = [[0u32; 256]; 2];
            for (dst, src) in two.iter_mut().zip(&wide) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = s as u32;
                }
            }
            gfni = GfniMatrices::new(&two);
            Tables::Two32(Arc::new(two))
        } else if n_in <= 32 && n_out <= 32 {
            let mut four = [[0u32; 256]; 4];
            for (dst, src) in four.iter_mut().zip(&wide) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = s as u32;
                }
            }
            gfni = GfniMatrices::new(&four);
            Tables::Four32(Arc::new(four))
        } else if n_in <= 32 {
            let mut four = [[0u64; 256]; 4];
            for (dst, src) in four.iter_mut().zip(&wide) {
                *dst = *src;
            }
            Tables::Four64(Arc::new(four))
        } else {
            Tables::Any(wide.into())
        };
        Ok(Evaluator {
            tables,
            gfni: gfni.map(Arc::new),
            out_log2: layout
                .outs
                .iter()
                .map(|o| o.log2)
                .collect::<Vec<_>>()
                .into(),
        })
    }

    /// `L(x)` on flattened bits; input bits past the layout's width are ignored.
    #[inline]
    #[allow(clippy::indexing_slicing)] // a table has 256 entries and every index is one byte
    pub fn apply(&self, x: u64) -> u64 {
        let byte = |i: u32| ((x >> (8 * i)) & 0xff) as usize;
        match &self.tables {
            Tables::Two32(t) => u64::from(t[0][byte(0)] ^ t[1][byte(1)]),
            Tables::Four32(t) => {
                u64::from(t[0][byte(0)] ^ t[1][byte(1)] ^ t[2][byte(2)] ^ t[3][byte(3)])
            }
            Tables::Four64(t) => t[0][byte(0)] ^ t[1][byte(1)] ^ t[2][byte(2)] ^ t[3][byte(3)],
            Tables::Any(tables) => {
                let mut acc = 0;
                for (i, t) in (0u32..).zip(tables.iter()) {
                    acc ^= t[byte(i)];
                }
                acc
            }
        }
    }

    /// `out[k] = L(xs[k])` for every `k` (the shorter length wins): the table form is chosen
    /// once for the whole batch. Layouts of up to 32 input and 32 output bits run sixteen
    /// addresses per step where the CPU has AVX-512 and GFNI (see `ops/gfni.rs`), the same
    /// values as [`Evaluator::apply`].
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![2], vec![1]])], &[("o", 4)], true)?;
    /// let mut out = [0u64; 4];
    /// l.evaluator()?.apply_many(&[0, 1, 2, 3], &mut out);
    /// assert_eq!(out, [0, 2, 1, 3]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn apply_many(&self, xs: &[u64], out: &mut [u64]) {
        let done = self.gfni.as_ref().map_or(0, |g| g.apply_many(xs, out));
        let (xs, out) = (
            xs.get(done..).unwrap_or_default(),
            out.get_mut(done..).unwrap_or_default(),
        );
        self.apply_many_scalar(xs, out);
    }

    /// [`Evaluator::apply_many`] one address at a time, table lookups only (the portable
    /// path, and the reference the vector path is tested against).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![2], vec![1]])], &[("o", 4)], true)?;
    /// let e = l.evaluator()?;
    /// let xs: Vec<u64> = (0..40).collect();
    /// let (mut fast, mut scalar) = (vec![0; 40], vec![0; 40]);
    /// e.apply_many(&xs, &mut fast);
    /// e.apply_many_scalar(&xs, &mut scalar);
    /// assert_eq!(fast, scalar);
    /// assert_eq!(scalar[..4], [0, 2, 1, 3]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    #[allow(clippy::indexing_slicing)] // a table has 256 entries and every index is one byte
    pub fn apply_many_scalar(&self, xs: &[u64], out: &mut [u64]) {
        let byte = |x: u64, i: u32| ((x >> (8 * i)) & 0xff) as usize;
        match &self.tables {
            Tables::Two32(t) => {
                for (o, &x) in out.iter_mut().zip(xs) {
                    *o = u64::from(t[0][byte(x, 0)] ^ t[1][byte(x, 1)]);
                }
            }
            Tables::Four32(t) => {
                for (o, &x) in out.iter_mut().zip(xs) {
                    *o = u64::from(
                        t[0][byte(x, 0)] ^ t[1][byte(x, 1)] ^ t[2][byte(x, 2)] ^ t[3][byte(x, 3)],
                    );
                }
            }
            _ => {
                for (o, &x) in out.iter_mut().zip(xs) {
                    *o = self.apply(x);
                }
            }
        }
    }

    /// `out[k] = L(start + k)` for every `k` (wrapping past `u64::MAX`): a whole tile's
    /// worth of consecutive inputs. Inputs that differ only in their low byte share the rest
    /// of the sum, so each block of 256 costs one full evaluation and then one lookup and XOR
    /// per input, a loop the compiler vectorises.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![2], vec![1]])], &[("o", 4)], true)?;
    /// let mut out = [0u64; 6];
    /// l.evaluator()?.apply_range(1, &mut out);
    /// assert_eq!(out, [2, 1, 3, 0, 2, 1]); // bits past the layout's two are ignored
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    #[allow(clippy::indexing_slicing)] // a table has 256 entries and every index is one byte
    pub fn apply_range(&self, start: u64, out: &mut [u64]) {
        let mut x = start;
        let mut rest = out;
        while !rest.is_empty() {
            let low = (x & 0xff) as usize;
            let n = (256 - low).min(rest.len());
            let (block, tail) = rest.split_at_mut(n);
            let high = self.apply(x & !0xff);
            match &self.tables {
                Tables::Two32(t) => xor_block(block, high, &t[0][low..low + n]),
                Tables::Four32(t) => xor_block(block, high, &t[0][low..low + n]),
                Tables::Four64(t) => xor_block(block, high, &t[0][low..low + n]),
                Tables::Any(t) => match t.first() {
                    Some(t0) => xor_block(block, high, &t0[low..low + n]),
                    None => block.fill(0),
                },
            }
            x = x.wrapping_add(n as u64);
            rest = tail;
        }
    }

    /// Splits a flattened output into one value per out-dim.
    pub fn split(&self, mut flat: u64) -> Vec<u64> {
        self.out_log2
            .iter()
            .map(|&l| {
                let v = flat & ((1u64 << l) - 1);
                flat = flat.checked_shr(l).unwrap_or(0);
                v
            })
            .collect()
    }
}

/// `block[k] = high ^ low[k]` (the shorter length wins).
#[inline]
fn xor_block<T: Copy + Into<u64>>(block: &mut [u64], high: u64, low: &[T]) {
    for (o, &t) in block.iter_mut().zip(low) {
        *o = high ^ t.into();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics
    use crate::LinearLayout;

    /// Each table form (2 or 4 tables of 32-bit entries, 4 of 64-bit, any number) computes the
    /// XOR of the selected columns.
    #[test]
    fn every_table_form_agrees_with_the_columns() {
        for (n_in, n_out) in [(10u32, 20u32), (24, 30), (30, 40), (40, 50), (64, 64)] {
            let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(n_in);
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mask = u64::MAX >> (64 - n_out);
            let columns: Vec<Vec<u64>> = (0..n_in).map(|_| vec![next() & mask]).collect();
            let l = LinearLayout::from_bases(
                &[("i", columns.clone())],
                &[("o", 1u64 << n_out.min(63))],
                false,
            );
            let Ok(l) = l else { continue };
            let e = l.evaluator().unwrap();
            for _ in 0..64 {
                let x = next() & (u64::MAX >> (64 - n_in));
                let want = (0..n_in as usize)
                    .filter(|&b| x >> b & 1 == 1)
                    .fold(0, |acc, b| acc ^ columns[b][0]);
                assert_eq!(e.apply(x), want, "{n_in} → {n_out} bits");
            }
            // A range crossing 256-blocks, from an unaligned start.
            let start = next();
            let mut out = vec![0u64; 700];
            e.apply_range(start, &mut out);
            for (k, &o) in (0u64..).zip(&out) {
                assert_eq!(o, e.apply(start.wrapping_add(k)), "{n_in} → {n_out} bits");
            }
        }
    }
}
