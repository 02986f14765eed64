//! Evaluating a layout: the checked, named [`LinearLayout::apply`], and a compiled
//! [`Evaluator`] for hot loops (one table lookup per input byte).

use crate::dims::{names, Dim};
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

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
    tables: Vec<[u64; 256]>,
    out_log2: Vec<u32>,
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
        let tables = columns
            .chunks(8)
            .map(|chunk| {
                let mut t = [0u64; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    *slot = chunk
                        .iter()
                        .enumerate()
                        .filter(|(b, _)| byte >> b & 1 == 1)
                        .fold(0, |acc, (_, &c)| acc ^ c);
                }
                t
            })
            .collect();
        Ok(Evaluator {
            tables,
            out_log2: layout.outs.iter().map(|o| o.log2).collect(),
        })
    }

    /// `L(x)` on flattened bits; input bits past the layout's width are ignored.
    #[inline]
    #[allow(clippy::indexing_slicing)] // a table has 256 entries and the index is one byte
    pub fn apply(&self, x: u64) -> u64 {
        let mut acc = 0;
        for (i, t) in self.tables.iter().enumerate() {
            acc ^= t[((x >> (8 * i)) & 0xff) as usize];
        }
        acc
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
