//! tcgen05 access atoms ([`Tcgen05Atom`]) and the register layout of a TMEM load/store
//! ([`tmem_reg_layout`]).
//!
//! A `tcgen05.ld/st.<shape>.x<n>` message moves a fixed tile between one warp's registers and
//! the 32-lane TMEM slice that warp may address (warp `w` of a warpgroup reaches lanes
//! `32·(w mod 4) ..+32`). The tile of each shape, as a layout `register, lane → row, col` (TMEM
//! lane, 32-bit column), is [`Tcgen05Atom::tile`]; [`tmem_reg_layout`] widens it to the whole
//! tensor the way Gluon's `compute_tmem_reg_layout` does.

use std::fmt;
use std::str::FromStr;

use super::tmem::{cga_parts, dim1_bases, split_buffers, TensorMemory, TmemBases};
use super::{Encoding, TensorMemoryScales};
use crate::dims::{Dim, DimSize};
use crate::families::checks::check_shape;
use crate::{DType, LayoutError, LinearLayout, Result};

const FAMILY: &str = "tmem_reg_layout";

/// The shape of one `tcgen05.ld/st` message (PTX `.shape`). `.16x32bx2` is not listed: Triton
/// only infers it (for a 32x32b layout whose lane 16 reads a second column half) and never
/// lets it be requested.
///
/// ```
/// use linear_layout::families::Tcgen05Atom;
/// let atom: Tcgen05Atom = "16x256b".parse()?;
/// assert_eq!(atom, Tcgen05Atom::M16x256b);
/// assert_eq!(atom.to_string(), "16x256b");
/// assert_eq!((atom.lanes(), atom.columns(), atom.registers()), (16, 8, 4));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tcgen05Atom {
    /// `.32x32b`: lane i of a warp reads TMEM lane i.
    M32x32b,
    /// `.16x64b`.
    M16x64b,
    /// `.16x128b`.
    M16x128b,
    /// `.16x256b`.
    M16x256b,
}

/// A tile as `(register bases, lane bases)`, each basis `[row, col]`.
type TileBases = (Vec<[u64; 2]>, Vec<[u64; 2]>);

impl Tcgen05Atom {
    /// Every atom, in the order Triton tries them when lowering (`32x32b` first).
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// assert_eq!(Tcgen05Atom::ALL.map(|a| a.ptx_shape()), ["32x32b", "16x256b", "16x64b", "16x128b"]);
    /// ```
    pub const ALL: [Tcgen05Atom; 4] = [
        Tcgen05Atom::M32x32b,
        Tcgen05Atom::M16x256b,
        Tcgen05Atom::M16x64b,
        Tcgen05Atom::M16x128b,
    ];

    /// The PTX `.shape` qualifier, without the dot.
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// assert_eq!(format!("tcgen05.ld.sync.aligned.{}.x4.b32", Tcgen05Atom::M16x64b.ptx_shape()),
    ///            "tcgen05.ld.sync.aligned.16x64b.x4.b32");
    /// ```
    pub fn ptx_shape(self) -> &'static str {
        match self {
            Tcgen05Atom::M32x32b => "32x32b",
            Tcgen05Atom::M16x64b => "16x64b",
            Tcgen05Atom::M16x128b => "16x128b",
            Tcgen05Atom::M16x256b => "16x256b",
        }
    }

    /// TMEM lanes (rows) one warp covers with one message: 32 or 16.
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// assert_eq!(Tcgen05Atom::M32x32b.lanes(), 32);
    /// assert_eq!(Tcgen05Atom::M16x128b.lanes(), 16);
    /// ```
    pub fn lanes(self) -> u32 {
        match self {
            Tcgen05Atom::M32x32b => 32,
            _ => 16,
        }
    }

    /// 32-bit TMEM columns one `.x1` message covers: the shape's bit width / 32.
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// assert_eq!(Tcgen05Atom::ALL.map(|a| a.columns()), [1, 8, 2, 4]);
    /// ```
    pub fn columns(self) -> u32 {
        match self {
            Tcgen05Atom::M32x32b => 1,
            Tcgen05Atom::M16x64b => 2,
            Tcgen05Atom::M16x128b => 4,
            Tcgen05Atom::M16x256b => 8,
        }
    }

    /// 32-bit registers per thread one `.x1` message moves (`.xN` moves `N` times as many):
    /// `lanes · columns / 32`.
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// assert_eq!(Tcgen05Atom::ALL.map(|a| a.registers()), [1, 4, 1, 2]);
    /// ```
    pub fn registers(self) -> u32 {
        self.lanes() * self.columns() / 32
    }

    /// Triton's `getTileLayout(atom, unpacked=false, withWarp=false)` as bases `[row, col]`.
    fn tile_bases(self) -> TileBases {
        match self {
            Tcgen05Atom::M32x32b => (vec![], vec![[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
            Tcgen05Atom::M16x64b => (vec![], vec![[8, 0], [0, 1], [1, 0], [2, 0], [4, 0]]),
            Tcgen05Atom::M16x128b => (vec![[8, 0]], vec![[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]]),
            Tcgen05Atom::M16x256b => (
                vec![[0, 1], [8, 0]],
                vec![[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            ),
        }
    }

    /// One `.x1` message of one warp: `register, lane → row, col` (TMEM lane within the warp's
    /// slice, 32-bit column), out sizes [`lanes`](Self::lanes) × [`columns`](Self::columns)
    /// (Triton's `getTileLayout`). `32x32b`: lane i ↔ row i; `16x64b`: lane bit 0 → row 8, bit 1
    /// → column 1, bits 2–4 → rows 1, 2, 4; `16x128b`: lane bits 0–1 → columns 1, 2, bits 2–4 →
    /// rows 1, 2, 4, register → row 8; `16x256b`: register bit 0 → column 1, lane bits 0–1 →
    /// columns 2, 4, bits 2–4 → rows 1, 2, 4, register bit 1 → row 8.
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// let t = Tcgen05Atom::M16x256b.tile();
    /// assert_eq!(t.bases_of("register")?, vec![vec![0, 1], vec![8, 0]]);
    /// assert_eq!(t.bases_of("lane")?, vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]);
    /// assert!(t.is_invertible()); // every (row, column) of the tile is moved exactly once
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn tile(self) -> LinearLayout {
        let (reg, lane) = self.tile_bases();
        tile_layout(
            &[("register", &reg), ("lane", &lane)],
            [u64::from(self.lanes()), u64::from(self.columns())],
        )
    }

    /// [`tile`](Self::tile) for a warpgroup: warps 1 and 2 reach lanes 32 and 64 (Triton's
    /// `getTileLayout(…, withWarp=true)`), out sizes 128 × [`columns`](Self::columns).
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// let t = Tcgen05Atom::M32x32b.warp_tile();
    /// assert_eq!(t.bases_of("warp")?, vec![vec![32, 0], vec![64, 0]]);
    /// assert_eq!(t.out_dim_size("row")?, 128);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn warp_tile(self) -> LinearLayout {
        let (reg, lane) = self.tile_bases();
        tile_layout(
            &[
                ("register", &reg),
                ("lane", &lane),
                ("warp", &[[32, 0], [64, 0]]),
            ],
            [128, u64::from(self.columns())],
        )
    }
}

/// A tile layout `… → row, col` from constant bases (all inside `out`, sizes powers of two).
fn tile_layout(dims: &[(&str, &[[u64; 2]])], out: [u64; 2]) -> LinearLayout {
    let ins: Vec<DimSize> = dims
        .iter()
        .map(|(name, b)| DimSize {
            dim: Dim::new(name),
            log2: b.len() as u32,
        })
        .collect();
    let outs: Vec<DimSize> = ["row", "col"]
        .iter()
        .zip(out)
        .map(|(name, size)| DimSize {
            dim: Dim::new(name),
            log2: size.trailing_zeros(),
        })
        .collect();
    let bases = dims
        .iter()
        .flat_map(|(_, b)| b.iter().flatten().copied())
        .collect();
    LinearLayout::from_parts(ins, outs, bases)
}

impl fmt::Display for Tcgen05Atom {
    /// The PTX shape, e.g. `32x32b`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_shape())
    }
}

impl FromStr for Tcgen05Atom {
    type Err = LayoutError;

    /// `32x32b`, `16x64b`, `16x128b` or `16x256b`, with or without the leading `.`.
    /// Errors: anything else, `16x32bx2` included ([`LayoutError::InvalidParameter`]).
    ///
    /// ```
    /// use linear_layout::families::Tcgen05Atom;
    /// assert_eq!(".32x32b".parse::<Tcgen05Atom>()?, Tcgen05Atom::M32x32b);
    /// assert!("16x32bx2".parse::<Tcgen05Atom>().is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    fn from_str(s: &str) -> Result<Self> {
        let name = s.strip_prefix('.').unwrap_or(s);
        Tcgen05Atom::ALL
            .into_iter()
            .find(|a| a.ptx_shape() == name)
            .ok_or_else(|| LayoutError::InvalidParameter {
                family: "tcgen05",
                param: "atom",
                value: s.to_string(),
                reason: "expected 32x32b, 16x64b, 16x128b or 16x256b (16x32bx2 is only inferred)"
                    .into(),
            })
    }
}

/// Why Gluon's `compute_tmem_reg_layout` returns `None`.
enum Unsupported {
    /// The atom's tile is wider than the layout's columns.
    TooFewColumns { tile: u64, have: u64 },
    /// Two registers or lanes of one message would read the same element.
    NotInjective,
    /// Sub-32-bit elements neither packed nor unpacked (e.g. 8-bit with `col_stride` 2).
    NotPacked,
    /// A basis outside the TMEM layout (an internal invariant broke).
    Internal,
}

/// One CTA's TMEM layout as the algorithm sees it: `row, col → dim0, dim1`.
#[derive(Clone)]
struct Cta {
    rows: Vec<[u64; 2]>,
    cols: Vec<[u64; 2]>,
    out: [u64; 2],
}

impl Cta {
    /// `divideLeft(self, zeros1D(2^zeros, col, dim1) * identity1D(2^ident, col, dim1))`: the
    /// first `zeros` column bases must be zero and the next `ident` be `[0, 1], [0, 2], …`;
    /// every other basis must leave `dim1`'s low `ident` bits clear, which are then shifted out.
    fn divide_cols(&self, zeros: usize, ident: u32) -> Option<Cta> {
        let k = zeros + ident as usize;
        let (head, tail) = (self.cols.get(..k)?, self.cols.get(k..)?);
        let (z, i) = head.split_at(zeros);
        if z.iter().any(|b| *b != [0, 0]) || i.iter().zip(0u32..).any(|(b, j)| *b != [0, 1 << j]) {
            return None;
        }
        if self.out[1] >> ident == 0 {
            return None;
        }
        let mask = (1u64 << ident) - 1;
        let shift = |v: &[[u64; 2]]| -> Option<Vec<[u64; 2]>> {
            v.iter()
                .map(|b| (b[1] & mask == 0).then_some([b[0], b[1] >> ident]))
                .collect()
        };
        Some(Cta {
            rows: shift(&self.rows)?,
            cols: shift(tail)?,
            out: [self.out[0], self.out[1] >> ident],
        })
    }

    /// The layout applied to a TMEM `[row, col]`.
    fn apply(&self, at: [u64; 2]) -> std::result::Result<[u64; 2], Unsupported> {
        let mut v = [0, 0];
        for (bases, x) in [(&self.rows, at[0]), (&self.cols, at[1])] {
            let mut rest = x;
            while rest != 0 {
                let b = bases
                    .get(rest.trailing_zeros() as usize)
                    .ok_or(Unsupported::Internal)?;
                v = [v[0] ^ b[0], v[1] ^ b[1]];
                rest &= rest - 1;
            }
        }
        Ok(v)
    }
}

/// A register layout `register, lane, warp → dim0, dim1` under construction.
struct RegBases {
    reg: Vec<[u64; 2]>,
    lane: Vec<[u64; 2]>,
    warp: Vec<[u64; 2]>,
    out: [u64; 2],
}

impl RegBases {
    /// `identity1D(contig, register, dim1) * self`: `contig` consecutive elements per register.
    fn packed(self, contig: u32) -> RegBases {
        let k = contig.trailing_zeros();
        let wide = |v: Vec<[u64; 2]>| v.into_iter().map(|b| [b[0], b[1] << k]);
        let mut reg: Vec<[u64; 2]> = (0..k).map(|i| [0, 1 << i]).collect();
        reg.extend(wide(self.reg));
        RegBases {
            reg,
            lane: wide(self.lane).collect(),
            warp: wide(self.warp).collect(),
            out: [self.out[0], self.out[1] << k],
        }
    }
}

/// Whether the vectors (components below `out`) are linearly independent over GF(2).
fn independent(vectors: &[[u64; 2]], out: [u64; 2]) -> bool {
    let shift = out[1].trailing_zeros();
    let mut basis: Vec<u128> = Vec::new();
    for v in vectors {
        let mut x = (u128::from(v[0]) << shift) | u128::from(v[1]);
        for &b in &basis {
            x = x.min(x ^ b);
        }
        if x == 0 {
            return false;
        }
        basis.push(x);
        basis.sort_unstable_by(|a, b| b.cmp(a));
    }
    true
}

/// Triton 3.9's `getDistributedLayoutForTmemLdSt(ll, atom, numWarps, bitwidth)` for one CTA.
fn per_cta(
    ll: &Cta,
    atom: Tcgen05Atom,
    num_warps: u64,
    bits: u32,
) -> std::result::Result<RegBases, Unsupported> {
    if bits != 32 {
        // Pack consecutive elements into one 32-bit register where the layout allows it.
        let mut best = None;
        let mut contig = 2u32;
        while bits * contig <= 32 {
            match ll.divide_cols(0, contig.trailing_zeros()) {
                Some(q) => best = Some((contig, q)),
                None => break,
            }
            contig *= 2;
        }
        if let Some((contig, q)) = best {
            return Ok(per_cta(&q, atom, num_warps, bits * contig)?.packed(contig));
        }
        if bits == 16 {
            if let Some(q) = ll.divide_cols(1, 1) {
                // Unpacked 16-bit: one element per 32-bit column, two columns per register.
                return Ok(per_cta(&q, atom, num_warps, 32)?.packed(2));
            }
        }
        let padding = (32 / bits).trailing_zeros() as usize;
        if let Some(q) = ll.divide_cols(padding, 0) {
            return per_cta(&q, atom, num_warps, 32);
        }
        if ll.cols.is_empty() {
            return per_cta(ll, atom, num_warps, 32);
        }
        return Err(Unsupported::NotPacked);
    }
    let (mut reg, mut lane) = atom.tile_bases();
    let tile_cols = u64::from(atom.columns());
    let ll_cols = 1u64 << ll.cols.len();
    let missing = ll_cols / tile_cols;
    if missing == 0 {
        return Err(Unsupported::TooFewColumns {
            tile: tile_cols,
            have: ll_cols,
        });
    }
    let instr32 = atom == Tcgen05Atom::M32x32b;
    // Lane 16 of a 64-row layout reads nothing: the 32x32b message then loads half the
    // columns through it (the inferred 16x32bx2 message).
    let layout16 = ll.rows.get(4) == Some(&[0, 0]);
    // ll ∘ tile must be left-divisible by the tile: no two inputs of one message may meet.
    let checked_lanes = if instr32 { 4 } else { lane.len() };
    let comp = reg
        .iter()
        .chain(lane.iter().take(checked_lanes))
        .map(|&b| ll.apply(b))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if !independent(&comp, ll.out) {
        return Err(Unsupported::NotInjective);
    }
    // Rows 16..32 of each warp's slice: a 16-lane atom needs a warp (8+ warps) or a register
    // to reach them, unless the layout leaves them unused.
    #[derive(PartialEq)]
    enum Row16 {
        None,
        Reg,
        Warp,
    }
    let row16 = match (instr32 || layout16, num_warps > 4) {
        (true, _) => Row16::None,
        (false, true) => Row16::Warp,
        (false, false) => Row16::Reg,
    };
    let mut warps_to_tile = num_warps / if row16 == Row16::Warp { 8 } else { 4 };
    let warp_broadcast = warps_to_tile / missing.min(warps_to_tile);
    warps_to_tile /= warp_broadcast;
    let missing = missing / warps_to_tile;
    let mut cols = tile_cols;
    if missing > 1 {
        if instr32 && layout16 {
            lane.pop();
            reg.extend(dim1_bases(missing / 2, cols));
            lane.push([0, cols * (missing / 2)]);
        } else {
            reg.extend(dim1_bases(missing, cols));
        }
        cols *= missing;
    }
    let mut warp = vec![[32, 0], [64, 0]];
    match row16 {
        Row16::Reg => reg.push([16, 0]),
        Row16::Warp => warp.push([16, 0]),
        Row16::None => {}
    }
    warp.extend(dim1_bases(warps_to_tile, cols));
    cols *= warps_to_tile;
    warp.extend(std::iter::repeat_n(
        [0, 0],
        warp_broadcast.trailing_zeros() as usize,
    ));
    if cols != ll_cols {
        return Err(Unsupported::Internal);
    }
    let map = |v: Vec<[u64; 2]>| {
        v.into_iter()
            .map(|b| ll.apply(b))
            .collect::<std::result::Result<Vec<_>, _>>()
    };
    Ok(RegBases {
        reg: map(reg)?,
        lane: map(lane)?,
        warp: map(warp)?,
        out: ll.out,
    })
}

/// The register layout of a `tcgen05.ld/st` with message shape `atom` between a tensor of
/// `shape` holding `dtype` elements and TMEM laid out by `layout` — Gluon 3.9's
/// `compute_tmem_reg_layout(dtype, shape, alloc_shape, layout, num_warps, atom)` (Triton's
/// `getDistributedLayoutForTmemLdSt`), for a `#ttng.tensor_memory_encoding`
/// ([`TensorMemory`]) or a `#ttng.tensor_memory_scales_encoding`
/// ([`TensorMemoryScales`]). In-dims `register, lane, warp, block` → `dim0, dim1`.
///
/// Per CTA: sub-32-bit elements are first packed (`32 / element_bits` consecutive columns per
/// register: extra low `register` bases along `dim1`), or unpacked/padded per `col_stride`. The
/// atom's [`tile`](Tcgen05Atom::tile) then gets more `register` bases along columns until it
/// covers the layout, warps 1, 2 take lanes 32, 64, and rows 16..32 of each warp's slice go to
/// a warp (8+ warps) or a register for the 16-lane atoms; further warps split the columns or
/// broadcast. For `32x32b` on a 64-row layout, lane 16 reads the second half of the columns.
/// The result is that tile composed with the TMEM layout; the CGA adds `block` bases.
///
/// Errors: a `layout` that is not a TMEM layout; everything its `to_linear_layout` refuses for
/// `shape` or for the last two dims of `alloc_shape` (`[buffers…, M, N]`, at least `shape`);
/// element sizes other than 8, 16, 32 bits (scales: 8), or `element_bits · col_stride > 32`;
/// `num_warps` not a power of two in `4..=32` ([`LayoutError::InvalidParameter`]). Where
/// Triton returns `None`: the atom wider than the layout's columns
/// ([`LayoutError::InvalidShape`]), 8-bit elements with `col_stride` 2 or 8/16-bit elements a
/// two-CTA `block_m = 64` layout splits across rows ([`LayoutError::InvalidParameter`] on
/// `col_stride`). Departure: Triton accepts any power of two ≥ 4 warps; a CTA has at most 32.
///
/// ```
/// use linear_layout::families::{tmem_access::tmem_reg_layout, Encoding, TensorMemory, TensorMemoryScales, Tcgen05Atom};
/// use linear_layout::DType;
/// let acc = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let l = tmem_reg_layout(DType::F32, &[128, 64], &[128, 64], &acc.clone().into(), 4, Tcgen05Atom::M16x256b)?;
/// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![8, 0], vec![0, 8], vec![0, 16], vec![0, 32], vec![16, 0]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![32, 0], vec![64, 0]]);
/// // Which TMEM (row, col) each register holds:
/// let cvt = l.invert_and_compose(&acc.to_linear_layout(&[128, 64])?)?;
/// assert_eq!(cvt.bases_of("lane")?[2], vec![1, 0]);
/// // Block scales (uint8): 4 per 32-bit column, each warp's 32 lanes hold every row block.
/// let scales = Encoding::TensorMemoryScales(TensorMemoryScales::default());
/// let s = tmem_reg_layout(DType::U8, &[128, 4], &[128, 4], &scales, 4, Tcgen05Atom::M32x32b)?;
/// assert_eq!(s.bases_of("register")?, vec![vec![0, 1], vec![0, 2], vec![32, 0], vec![64, 0]]);
/// assert_eq!(s.bases_of("warp")?, vec![vec![0, 0], vec![0, 0]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn tmem_reg_layout(
    dtype: DType,
    shape: &[u64],
    alloc_shape: &[u64],
    layout: &Encoding,
    num_warps: u32,
    atom: Tcgen05Atom,
) -> Result<LinearLayout> {
    let element_bits = dtype.bits();
    let tmem = TmemEncoding::of(layout)?;
    tmem.check(element_bits)?;
    check_shape(FAMILY, shape, 2)?;
    let (_, alloc) = split_buffers(FAMILY, alloc_shape)?;
    if shape.iter().zip(alloc).any(|(&s, a)| s > a) {
        return Err(LayoutError::InvalidShape {
            family: FAMILY,
            shape: shape.to_vec(),
            reason: format!("larger than alloc_shape {alloc_shape:?}"),
        });
    }
    tmem.bases(&alloc)?;
    if !num_warps.is_power_of_two() || !(4..=32).contains(&num_warps) {
        return Err(LayoutError::InvalidParameter {
            family: FAMILY,
            param: "num_warps",
            value: num_warps.to_string(),
            reason: "must be a power of two from 4 to 32".into(),
        });
    }
    let b: TmemBases = tmem.bases(shape)?;
    let cta = Cta {
        rows: b.rows,
        cols: b.cols,
        out: b.cta_shape,
    };
    let r = per_cta(&cta, atom, u64::from(num_warps), element_bits).map_err(|u| match u {
        Unsupported::TooFewColumns { tile, have } => LayoutError::InvalidShape {
            family: FAMILY,
            shape: shape.to_vec(),
            reason: format!(
                "one tcgen05 .{atom} message spans {tile} 32-bit registers' worth of columns per TMEM lane, the layout holds only {have} per lane and CTA"
            ),
        },
        Unsupported::NotInjective => LayoutError::InvalidShape {
            family: FAMILY,
            shape: shape.to_vec(),
            reason: format!("one tcgen05 .{atom} message would read an element twice"),
        },
        Unsupported::NotPacked => LayoutError::InvalidParameter {
            family: FAMILY,
            param: "col_stride",
            value: tmem.col_stride().to_string(),
            reason: format!(
                "{element_bits}-bit elements are neither packed (consecutive elements of a row in consecutive columns) nor one per 32-bit column (col_stride {})",
                32 / element_bits
            ),
        },
        Unsupported::Internal => LayoutError::Invalid {
            op: FAMILY,
            what: "internal error: a tile basis fell outside the TMEM layout".into(),
        },
    })?;
    let pairs = |v: &[[u64; 2]]| v.iter().map(|b| b.to_vec()).collect::<Vec<_>>();
    let block: Vec<Vec<u64>> = b
        .cga
        .iter()
        .map(|c| vec![c[0] * r.out[0], c[1] * r.out[1]])
        .collect();
    LinearLayout::from_bases(
        &[
            ("register", pairs(&r.reg)),
            ("lane", pairs(&r.lane)),
            ("warp", pairs(&r.warp)),
            ("block", block),
        ],
        &[
            ("dim0", r.out[0] * b.split[0]),
            ("dim1", r.out[1] * b.split[1]),
        ],
        false,
    )
}

/// The TMEM layouts a `tcgen05.ld/st` reads: accumulators/operands or block scales.
enum TmemEncoding<'a> {
    Values(&'a TensorMemory),
    Scales(&'a TensorMemoryScales),
}

impl<'a> TmemEncoding<'a> {
    fn of(layout: &'a Encoding) -> Result<Self> {
        match layout {
            Encoding::TensorMemory(t) => Ok(TmemEncoding::Values(t)),
            Encoding::TensorMemoryScales(s) => Ok(TmemEncoding::Scales(s)),
            other => Err(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "layout",
                value: other.to_string(),
                reason: "not a tensor memory layout (#ttng.tensor_memory_encoding or \
                         #ttng.tensor_memory_scales_encoding)"
                    .into(),
            }),
        }
    }

    /// The layout's own parameters and the element size it holds.
    fn check(&self, element_bits: u32) -> Result<()> {
        match self {
            TmemEncoding::Values(t) => {
                t.check()?;
                t.check_element_bits(element_bits)
            }
            TmemEncoding::Scales(s) => {
                cga_parts(&s.cga_layout)?;
                if element_bits != 8 {
                    return Err(LayoutError::InvalidParameter {
                        family: FAMILY,
                        param: "dtype",
                        value: format!("{element_bits}-bit"),
                        reason: "block scales in TMEM are 8-bit (E8M0 / E4M3)".into(),
                    });
                }
                Ok(())
            }
        }
    }

    fn bases(&self, shape: &[u64]) -> Result<TmemBases> {
        match self {
            TmemEncoding::Values(t) => t.bases(shape),
            TmemEncoding::Scales(s) => s.bases(shape),
        }
    }

    /// Columns per element (scales: packed, 1).
    fn col_stride(&self) -> u32 {
        match self {
            TmemEncoding::Values(t) => t.col_stride,
            TmemEncoding::Scales(_) => 1,
        }
    }
}
