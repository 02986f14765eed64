//! [`LinearLayout`]: a linear map over GF(2) from named input dims to named output dims.
//!
//! Representation (Triton's, flattened into one allocation): for every input bit, in in-dim
//! order and least-significant bit first, one *basis* — the output tuple produced when only that
//! bit is set — with one `u64` component per out-dim. Sizes are powers of two, kept as `log2`.
//! Unlike Triton there is no 64-bit cap on the total input or output width: a single dim may
//! have up to 63 bits, and any number of dims may be combined.

use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use crate::dim_list::DimList;
use crate::dims::{names, Dim, DimSize};
use crate::error::{LayoutError, Result};
use crate::gf2::{Echelon, Gf2Vector};

/// Largest supported `log2` of one dimension's size (values must fit a `u64`).
pub const MAX_DIM_LOG2: u32 = 63;

/// Bases of one in-dim as Triton lists them: one output tuple per input bit.
pub type DimBases = Vec<Vec<u64>>;

/// A linear layout over GF(2); see the crate docs for the model and the module docs for the
/// representation.
///
/// ```
/// use linear_layout::LinearLayout;
/// // 4 lanes hold dim0 = 0..4, 2 warps split dim1.
/// let l = LinearLayout::from_bases(
///     &[("lane", vec![vec![1, 0], vec![2, 0]]), ("warp", vec![vec![0, 1]])],
///     &[("dim0", 4), ("dim1", 2)],
///     true,
/// )?;
/// assert_eq!(l.apply(&[("lane", 3), ("warp", 1)])?, vec![("dim0".into(), 3), ("dim1".into(), 1)]);
/// assert!(l.is_invertible());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Clone)]
pub struct LinearLayout {
    /// Interned, so that results reusing an operand's dims (compose, invert_and_compose…)
    /// copy a pointer: no allocation, no reference count.
    pub(crate) ins: DimList,
    pub(crate) outs: DimList,
    /// `bases[bit * outs.len() + j]`: component in out-dim `j` of flattened input bit `bit`.
    pub(crate) bases: Vec<u64>,
    rank: OnceLock<u32>,
}

impl PartialEq for LinearLayout {
    /// Triton's `operator==`: same in-dims (order and bases), same out-dims (order and sizes).
    fn eq(&self, other: &Self) -> bool {
        self.ins == other.ins && self.outs == other.outs && self.bases == other.bases
    }
}

impl Eq for LinearLayout {}

impl Hash for LinearLayout {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.ins.hash(state);
        self.outs.hash(state);
        self.bases.hash(state);
    }
}

impl std::fmt::Debug for LinearLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LinearLayout({})", self.to_json())
    }
}

/// Runs `$body` with `$V` bound to the narrowest [`Gf2Vector`] type holding `$bits` bits.
macro_rules! with_width {
    ($bits:expr, $V:ident => $body:expr) => {
        match $crate::gf2::Width::for_bits($bits) {
            $crate::gf2::Width::W64 => {
                type $V = u64;
                $body
            }
            $crate::gf2::Width::W128 => {
                type $V = u128;
                $body
            }
            $crate::gf2::Width::Wide => {
                type $V = Vec<u64>;
                $body
            }
        }
    };
}
pub(crate) use with_width;

impl LinearLayout {
    /// Builds a layout from parts that are valid by construction (internal operations).
    /// The invariants are checked here, in debug builds, and nowhere else.
    pub(crate) fn from_parts(
        ins: impl Into<DimList>,
        outs: impl Into<DimList>,
        bases: Vec<u64>,
    ) -> Self {
        let (ins, outs) = (ins.into(), outs.into());
        debug_assert_eq!(check_parts(&ins, &outs, &bases), Ok(()));
        LinearLayout {
            ins,
            outs,
            bases,
            rank: OnceLock::new(),
        }
    }

    /// Builds a layout from untrusted parts, checking every invariant.
    pub(crate) fn try_from_parts(
        ins: impl Into<DimList>,
        outs: impl Into<DimList>,
        bases: Vec<u64>,
        require_surjective: bool,
    ) -> Result<Self> {
        let (ins, outs): (DimList, DimList) = (ins.into(), outs.into());
        check_parts(&ins, &outs, &bases)?;
        let l = LinearLayout {
            ins,
            outs,
            bases,
            rank: OnceLock::new(),
        };
        if require_surjective && !l.is_surjective() {
            return Err(l.not_surjective());
        }
        Ok(l)
    }

    pub(crate) fn not_surjective(&self) -> LayoutError {
        LayoutError::NotSurjective {
            rank: self.rank(),
            out_bits: self.total_out_dim_size_log2(),
            out_dims: names(&self.outs),
        }
    }

    /// The layout with no dims: the neutral element of `*`.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let id = LinearLayout::identity_1d(8, "i", "o")?;
    /// assert_eq!((&LinearLayout::empty() * &id)?, id);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn empty() -> Self {
        LinearLayout::from_parts(Vec::new(), Vec::new(), Vec::new())
    }

    /// Triton's two constructors in one: `out_dims` gives each out-dim with its size.
    /// With `require_surjective`, a layout whose bases do not span every output is refused.
    ///
    /// Errors: [`LayoutError::BasisLength`] (a tuple not one per out-dim),
    /// [`LayoutError::BasisOutOfRange`], [`LayoutError::NotPowerOfTwo`] (a size),
    /// [`LayoutError::DuplicateDim`], [`LayoutError::DimTooLarge`], [`LayoutError::NotSurjective`].
    ///
    /// ```
    /// use linear_layout::{LayoutError, LinearLayout};
    /// let l = LinearLayout::from_bases(&[("offset", vec![vec![1], vec![4]])], &[("dim0", 8)], false)?;
    /// assert!(!l.is_surjective());
    /// let err = LinearLayout::from_bases(&[("offset", vec![vec![1], vec![4]])], &[("dim0", 8)], true);
    /// assert!(matches!(err, Err(LayoutError::NotSurjective { rank: 2, out_bits: 3, .. })));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn from_bases<D: Into<Dim> + Copy, E: Into<Dim> + Copy>(
        bases: &[(D, DimBases)],
        out_dims: &[(E, u64)],
        require_surjective: bool,
    ) -> Result<Self> {
        let outs = sized_dims("out", out_dims)?;
        let (ins, flat) = flatten_bases(bases, outs.len())?;
        LinearLayout::try_from_parts(ins, outs, flat, require_surjective)
    }

    /// Triton's constructor with inferred out-dim sizes: each out-dim gets the smallest power of
    /// two greater than every basis component in it (`llvm::NextPowerOf2`), at least 1, and the
    /// layout must be surjective.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases_inferred(&[("i", vec![vec![1], vec![2]])], &["o"])?;
    /// assert_eq!(l.out_dim_size("o")?, 4);
    /// // [1, 4] infers size 8, which 2 bases cannot cover:
    /// assert!(LinearLayout::from_bases_inferred(&[("i", vec![vec![1], vec![4]])], &["o"]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn from_bases_inferred<D: Into<Dim> + Copy, E: Into<Dim> + Copy>(
        bases: &[(D, DimBases)],
        out_names: &[E],
    ) -> Result<Self> {
        let n_out = out_names.len();
        let (ins, flat) = flatten_bases(bases, n_out)?;
        let mut outs: Vec<DimSize> = out_names
            .iter()
            .map(|&d| DimSize {
                dim: d.into(),
                log2: 0,
            })
            .collect();
        for chunk in flat.chunks(n_out.max(1)) {
            for (out, &v) in outs.iter_mut().zip(chunk) {
                // NextPowerOf2(v) = 2^(bit length of v)
                let log2 = 64 - v.leading_zeros();
                if log2 > MAX_DIM_LOG2 {
                    return Err(LayoutError::DimTooLarge {
                        role: "out",
                        dim: out.dim.to_string(),
                        log2,
                    });
                }
                out.log2 = out.log2.max(log2);
            }
        }
        LinearLayout::try_from_parts(ins, outs, flat, true)
    }

    /// `L(x) = x` on `size` elements (`size` a power of two; 0 gives [`LinearLayout::empty`]).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "lane", "dim0")?;
    /// assert_eq!(l.bases_of("lane")?, vec![vec![1], vec![2], vec![4]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn identity_1d(size: u64, in_dim: impl Into<Dim>, out_dim: impl Into<Dim>) -> Result<Self> {
        LinearLayout::strided_1d(size, 1, in_dim, out_dim)
    }

    /// `L(x) = stride · x` on `size` elements; the out-dim has size `stride · size`, which must
    /// be a power of two. Only `stride == 1` gives a surjective layout.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::strided_1d(4, 2, "i", "o")?;
    /// assert_eq!(l.bases_of("i")?, vec![vec![2], vec![4]]);
    /// assert_eq!(l.out_dim_size("o")?, 8);
    /// assert!(LinearLayout::strided_1d(4, 3, "i", "o").is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn strided_1d(
        size: u64,
        stride: u64,
        in_dim: impl Into<Dim>,
        out_dim: impl Into<Dim>,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(LinearLayout::empty());
        }
        let (in_dim, out_dim) = (in_dim.into(), out_dim.into());
        check_pow2(&format!("size of in-dim '{in_dim}'"), size as u128)?;
        let out_size = (size as u128) * (stride as u128);
        check_pow2(
            &format!("size of out-dim '{out_dim}' (stride {stride} × size {size})"),
            out_size,
        )?;
        let out_log2 = out_size.trailing_zeros();
        dim_fits("out", out_dim, out_log2)?;
        let log2 = size.trailing_zeros();
        let bases = (0..log2).map(|i| stride << i).collect();
        Ok(LinearLayout::from_parts(
            vec![DimSize { dim: in_dim, log2 }],
            vec![DimSize {
                dim: out_dim,
                log2: out_log2,
            }],
            bases,
        ))
    }

    /// `L(x) = 0` on `size` elements, into an out-dim of size `out_size` (non-surjective when
    /// `out_size > 1`).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::zeros_1d(4, "reg", "dim0", 1)?;
    /// assert_eq!(l.bases_of("reg")?, vec![vec![0], vec![0]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn zeros_1d(
        size: u64,
        in_dim: impl Into<Dim>,
        out_dim: impl Into<Dim>,
        out_size: u64,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(LinearLayout::empty());
        }
        let (in_dim, out_dim) = (in_dim.into(), out_dim.into());
        check_pow2(&format!("size of in-dim '{in_dim}'"), size as u128)?;
        check_pow2(&format!("size of out-dim '{out_dim}'"), out_size as u128)?;
        let log2 = size.trailing_zeros();
        Ok(LinearLayout::from_parts(
            vec![DimSize { dim: in_dim, log2 }],
            vec![DimSize {
                dim: out_dim,
                log2: out_size.trailing_zeros(),
            }],
            vec![0; log2 as usize],
        ))
    }

    // ----- introspection -------------------------------------------------------------------

    /// In-dims with their sizes, minor to major.
    pub fn in_dims(&self) -> Vec<(Dim, u64)> {
        self.ins.iter().map(|d| (d.dim, d.size())).collect()
    }

    /// Out-dims with their sizes, minor to major.
    pub fn out_dims(&self) -> Vec<(Dim, u64)> {
        self.outs.iter().map(|d| (d.dim, d.size())).collect()
    }

    /// In-dim names in order.
    pub fn in_dim_names(&self) -> Vec<Dim> {
        self.ins.iter().map(|d| d.dim).collect()
    }

    /// Out-dim names in order.
    pub fn out_dim_names(&self) -> Vec<Dim> {
        self.outs.iter().map(|d| d.dim).collect()
    }

    /// Number of in-dims.
    pub fn num_in_dims(&self) -> usize {
        self.ins.len()
    }

    /// Number of out-dims.
    pub fn num_out_dims(&self) -> usize {
        self.outs.len()
    }

    /// Whether `dim` is an in-dim.
    pub fn has_in_dim(&self, dim: impl Into<Dim>) -> bool {
        let dim = dim.into();
        self.ins.iter().any(|d| d.dim == dim)
    }

    /// Whether `dim` is an out-dim.
    pub fn has_out_dim(&self, dim: impl Into<Dim>) -> bool {
        let dim = dim.into();
        self.outs.iter().any(|d| d.dim == dim)
    }

    /// The position of in-dim `dim` and its size, or [`LayoutError::UnknownDim`] for `op`.
    pub(crate) fn in_index(&self, op: &'static str, dim: Dim) -> Result<(usize, DimSize)> {
        self.ins
            .iter()
            .enumerate()
            .find(|(_, d)| d.dim == dim)
            .map(|(k, &d)| (k, d))
            .ok_or_else(|| LayoutError::UnknownDim {
                op,
                role: "in",
                dim: dim.to_string(),
                available: names(&self.ins),
            })
    }

    /// The position of out-dim `dim` and its size, or [`LayoutError::UnknownDim`] for `op`.
    pub(crate) fn out_index(&self, op: &'static str, dim: Dim) -> Result<(usize, DimSize)> {
        self.outs
            .iter()
            .enumerate()
            .find(|(_, d)| d.dim == dim)
            .map(|(j, &d)| (j, d))
            .ok_or_else(|| LayoutError::UnknownDim {
                op,
                role: "out",
                dim: dim.to_string(),
                available: names(&self.outs),
            })
    }

    /// `log2` of an in-dim's size.
    pub fn in_dim_size_log2(&self, dim: impl Into<Dim>) -> Result<u32> {
        Ok(self.in_index("in_dim_size", dim.into())?.1.log2)
    }

    /// An in-dim's size.
    pub fn in_dim_size(&self, dim: impl Into<Dim>) -> Result<u64> {
        Ok(1u64 << self.in_dim_size_log2(dim)?)
    }

    /// `log2` of an out-dim's size.
    pub fn out_dim_size_log2(&self, dim: impl Into<Dim>) -> Result<u32> {
        Ok(self.out_index("out_dim_size", dim.into())?.1.log2)
    }

    /// An out-dim's size.
    pub fn out_dim_size(&self, dim: impl Into<Dim>) -> Result<u64> {
        Ok(1u64 << self.out_dim_size_log2(dim)?)
    }

    /// Total number of input bits.
    pub fn total_in_dim_size_log2(&self) -> u32 {
        self.ins.iter().map(|d| d.log2).sum()
    }

    /// Total number of output bits.
    pub fn total_out_dim_size_log2(&self) -> u32 {
        self.outs.iter().map(|d| d.log2).sum()
    }

    /// First flattened input bit of in-dim number `index`.
    pub(crate) fn in_offset(&self, index: usize) -> usize {
        self.ins.iter().take(index).map(|d| d.log2 as usize).sum()
    }

    /// The basis of input bit `i` of `in_dim`: one component per out-dim.
    pub fn basis(&self, in_dim: impl Into<Dim>, i: u32) -> Result<&[u64]> {
        let in_dim = in_dim.into();
        let (k, d) = self.in_index("basis", in_dim)?;
        if i >= d.log2 {
            return Err(LayoutError::Invalid {
                op: "basis",
                what: format!(
                    "in-dim '{in_dim}' has {} bases, asked for basis {i}",
                    d.log2
                ),
            });
        }
        Ok(self.basis_at(self.in_offset(k) + i as usize))
    }

    /// The basis of flattened input bit `bit` (caller keeps `bit` in range).
    pub(crate) fn basis_at(&self, bit: usize) -> &[u64] {
        let n = self.outs.len();
        self.bases.get(bit * n..(bit + 1) * n).unwrap_or(&[])
    }

    /// All bases of one in-dim, as Triton's `getBases()[dim]`.
    pub fn bases_of(&self, in_dim: impl Into<Dim>) -> Result<DimBases> {
        let (k, d) = self.in_index("bases_of", in_dim.into())?;
        let start = self.in_offset(k);
        Ok((start..start + d.log2 as usize)
            .map(|b| self.basis_at(b).to_vec())
            .collect())
    }

    /// Every in-dim with its bases, in order (Triton's `getBases()`).
    pub fn bases(&self) -> Vec<(Dim, DimBases)> {
        let mut bit = 0;
        self.ins
            .iter()
            .map(|d| {
                let b = (bit..bit + d.log2 as usize)
                    .map(|b| self.basis_at(b).to_vec())
                    .collect();
                bit += d.log2 as usize;
                (d.dim, b)
            })
            .collect()
    }

    // ----- matrix view and rank ------------------------------------------------------------

    /// Flattened output-bit offset of every out-dim.
    pub(crate) fn out_offsets(&self) -> Vec<usize> {
        let mut acc = 0;
        self.outs
            .iter()
            .map(|d| {
                let o = acc;
                acc += d.log2 as usize;
                o
            })
            .collect()
    }

    /// Basis of flattened input bit `bit` packed as one output bit vector.
    pub(crate) fn packed_column<V: Gf2Vector>(&self, bit: usize, offsets: &[usize]) -> V {
        let mut v = V::zeros(self.total_out_dim_size_log2() as usize);
        for ((&c, out), &off) in self.basis_at(bit).iter().zip(self.outs.iter()).zip(offsets) {
            v.xor_bits(off, out.log2, c);
        }
        v
    }

    /// The GF(2) rank of the layout's matrix (number of independent bases).
    pub fn rank(&self) -> u32 {
        *self.rank.get_or_init(|| {
            let out_bits = self.total_out_dim_size_log2() as usize;
            let offsets = self.out_offsets();
            let n_in = self.total_in_dim_size_log2() as usize;
            with_width!(out_bits, V => {
                let mut e: Echelon<V, u64> = Echelon::new(out_bits, 0);
                for bit in 0..n_in {
                    e.insert(self.packed_column::<V>(bit, &offsets), 0);
                }
                e.rank() as u32
            })
        })
    }

    /// Every output is reached: rank = total output bits.
    pub fn is_surjective(&self) -> bool {
        self.rank() == self.total_out_dim_size_log2()
    }

    /// No two inputs give the same output: rank = total input bits.
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_dim_size_log2()
    }

    /// Surjective and as many input as output bits.
    pub fn is_invertible(&self) -> bool {
        self.is_surjective() && self.total_in_dim_size_log2() == self.total_out_dim_size_log2()
    }

    /// The dense matrix, one row per output bit (out-dims in order, LSB first), one column per
    /// input bit — Triton's `get_matrix_view()`.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![1, 0], vec![0, 1], vec![1, 1]])], &[("a", 2), ("b", 2)], true)?;
    /// assert_eq!(l.matrix_view(), vec![vec![1, 0, 1], vec![0, 1, 1]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn matrix_view(&self) -> Vec<Vec<u8>> {
        let n_in = self.total_in_dim_size_log2() as usize;
        let mut rows = Vec::new();
        for (j, out) in self.outs.iter().enumerate() {
            for r in 0..out.log2 {
                rows.push(
                    (0..n_in)
                        .map(|bit| (self.basis_at(bit).get(j).copied().unwrap_or(0) >> r & 1) as u8)
                        .collect(),
                );
            }
        }
        rows
    }
}

/// `(name, size)` pairs as dims, refusing sizes that are not powers of two and repeated names.
pub(crate) fn sized_dims<D: Into<Dim> + Copy>(
    role: &'static str,
    list: &[(D, u64)],
) -> Result<Vec<DimSize>> {
    let dims = list
        .iter()
        .map(|&(d, size)| {
            let dim = d.into();
            check_pow2(&format!("size of {role}-dim '{dim}'"), size as u128)?;
            Ok(DimSize {
                dim,
                log2: size.trailing_zeros(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    for (i, d) in dims.iter().enumerate() {
        if dims.iter().take(i).any(|e| e.dim == d.dim) {
            return Err(LayoutError::DuplicateDim {
                role,
                dim: d.dim.to_string(),
            });
        }
    }
    Ok(dims)
}

fn check_pow2(what: &str, value: u128) -> Result<()> {
    if value.is_power_of_two() {
        Ok(())
    } else {
        Err(LayoutError::NotPowerOfTwo {
            what: what.to_owned(),
            value,
        })
    }
}

fn dim_fits(role: &'static str, dim: Dim, log2: u32) -> Result<()> {
    if log2 > MAX_DIM_LOG2 {
        return Err(LayoutError::DimTooLarge {
            role,
            dim: dim.to_string(),
            log2,
        });
    }
    Ok(())
}

/// Flattens Triton-shaped bases, checking tuple lengths and the in-dim widths.
fn flatten_bases<D: Into<Dim> + Copy>(
    bases: &[(D, DimBases)],
    n_out: usize,
) -> Result<(Vec<DimSize>, Vec<u64>)> {
    let mut ins = Vec::with_capacity(bases.len());
    let mut flat = Vec::new();
    for (d, dim_bases) in bases {
        let dim = (*d).into();
        let log2 = u32::try_from(dim_bases.len()).unwrap_or(u32::MAX);
        dim_fits("in", dim, log2)?;
        for (index, basis) in dim_bases.iter().enumerate() {
            if basis.len() != n_out {
                return Err(LayoutError::BasisLength {
                    in_dim: dim.to_string(),
                    index,
                    len: basis.len(),
                    expected: n_out,
                });
            }
            flat.extend_from_slice(basis);
        }
        ins.push(DimSize { dim, log2 });
    }
    Ok((ins, flat))
}

/// The layout invariants, stated once: unique dim names, every dim at most 63 bits, one
/// component per (input bit, out-dim), every component inside its out-dim.
pub(crate) fn check_parts(ins: &[DimSize], outs: &[DimSize], bases: &[u64]) -> Result<()> {
    for (role, dims) in [("in", ins), ("out", outs)] {
        for (i, d) in dims.iter().enumerate() {
            dim_fits(role, d.dim, d.log2)?;
            if dims.iter().take(i).any(|e| e.dim == d.dim) {
                return Err(LayoutError::DuplicateDim {
                    role,
                    dim: d.dim.to_string(),
                });
            }
        }
    }
    let n_in: usize = ins.iter().map(|d| d.log2 as usize).sum();
    if bases.len() != n_in * outs.len() {
        return Err(LayoutError::Invalid {
            op: "layout",
            what: format!(
                "{} basis components for {n_in} input bits × {} out-dims",
                bases.len(),
                outs.len()
            ),
        });
    }
    // One chunk of `outs.len()` components per input bit, in in-dim order.
    let mut rows = bases.chunks(outs.len().max(1));
    for d in ins {
        for (index, row) in rows.by_ref().take(d.log2 as usize).enumerate() {
            for (&value, out) in row.iter().zip(outs) {
                if value >> out.log2 != 0 {
                    return Err(LayoutError::BasisOutOfRange {
                        in_dim: d.dim.to_string(),
                        index,
                        out_dim: out.dim.to_string(),
                        value: value as u128,
                        size: out.size() as u128,
                    });
                }
            }
        }
    }
    Ok(())
}
