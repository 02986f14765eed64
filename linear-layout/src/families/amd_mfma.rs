//! [`AmdMfma`]: `#ttg.amd_mfma`, the accumulator of AMD CDNA matrix-core instructions (MFMA),
//! in 64-lane waves.

use super::attribute::Attribute;
use super::blocked::check_pow2_list;
use super::checks::{check_cga, check_shape};
use super::mma::matrix_order;
use super::tiling::combine_cta_cga;
use crate::text::attr::{cga_suffix, list_text, AttrParser, LegacyCta, LEGACY_CTA_KEYS};
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "amd_mfma";

/// Lanes in an AMD CDNA wave.
pub const AMD_WAVE_SIZE: u64 = 64;

/// `#ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed[, tilesPerWarp]
/// [, elementBitWidth]}>`: the accumulator of an MFMA instruction of shape `M × N` (the first
/// two of `instr_shape = [M, N, K]`) on CDNA `version` 1 (gfx908), 2 (gfx90a), 3 (gfx942) or
/// 4 (gfx950), as Triton 3.9's `AMDMfmaEncodingAttr::toLinearLayout` builds it.
///
/// One wave (64 lanes) holds an `M × N` tile: each lane `height` consecutive elements along M
/// (4 for 32-bit results, 1 for 64-bit), lanes along N first, then along M, then `tiles` more
/// registers along M; `transposed` swaps the roles of M and N (each lane then holds a run
/// of N, which chained dots and global stores want). Tiles then repeat `tiles_per_warp[N]`
/// times in registers along N, over `warps_per_cta[N]` waves, across the whole tensor's N in
/// registers, then `tiles_per_warp[M]` times in registers along M and over `warps_per_cta[M]`
/// waves: N-contiguous tiles across the tensor, as the AMD dot lowering expects. A rank-3
/// layout has a batch dim 0 spread over `warps_per_cta[0]` waves.
///
/// Preconditions ([`LayoutError::InvalidParameter`] naming the parameter): `version` 1–4 (as
/// Gluon's `AMDMFMALayout`); `instr_shape` `[M, N, K]` with `(M, N)` one of `(32, 32)`,
/// `(16, 16)`, `(64, 4)` (transposed only), `(4, 64)`; `element_bitwidth` 32 or 64;
/// `warps_per_cta` and `tiles_per_warp` one power of two per dim, rank 2 or 3; `cga_layout` as
/// for [`Blocked`](super::Blocked). Shape: the same rank, powers of two
/// ([`LayoutError::InvalidShape`]; Triton asserts).
///
/// ```
/// use linear_layout::families::AmdMfma;
/// let mfma = AmdMfma::new(3, &[2, 2], &[32, 32, 8], true)?;
/// let l = mfma.to_linear_layout(&[64, 64])?;
/// // Transposed: each lane holds 4 consecutive N (dim1) elements; 32 lanes run down M.
/// assert_eq!(l.bases_of("register")?, vec![vec![0, 1], vec![0, 2], vec![0, 8], vec![0, 16]]);
/// assert_eq!(l.bases_of("lane")?[..2], [vec![1, 0], vec![2, 0]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0, 32], vec![32, 0]]); // N first
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmdMfma {
    /// CDNA generation: 1 (gfx908), 2 (gfx90a), 3 (gfx942), 4 (gfx950).
    pub version: u32,
    /// Waves per CTA, per dim.
    pub warps_per_cta: Vec<u32>,
    /// `[M, N, K]` of the instruction.
    pub instr_shape: Vec<u32>,
    /// Each lane holds a run along N instead of M.
    pub transposed: bool,
    /// MFMA tiles a wave computes, per dim (all 1 by default).
    pub tiles_per_warp: Vec<u32>,
    /// Bits of one accumulator element: 32 or 64.
    pub element_bitwidth: u32,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl AmdMfma {
    /// An MFMA accumulator layout with one tile per wave, 32-bit elements and no CGA split,
    /// checked (see [`AmdMfma`]).
    ///
    /// ```
    /// use linear_layout::families::AmdMfma;
    /// assert!(AmdMfma::new(4, &[4, 1], &[16, 16, 32], false).is_ok());
    /// assert!(AmdMfma::new(4, &[4, 1], &[16, 8, 32], false).is_err()); // no 16×8 MFMA
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(
        version: u32,
        warps_per_cta: &[u32],
        instr_shape: &[u32],
        transposed: bool,
    ) -> Result<AmdMfma> {
        let m = AmdMfma {
            version,
            warps_per_cta: warps_per_cta.to_vec(),
            instr_shape: instr_shape.to_vec(),
            transposed,
            tiles_per_warp: vec![1; warps_per_cta.len()],
            element_bitwidth: 32,
            cga_layout: Vec::new(),
        };
        m.validate()?;
        Ok(m)
    }

    /// The tensor rank, after checking every parameter (see [`AmdMfma`]).
    pub fn rank(&self) -> Result<usize> {
        self.validate()
    }

    /// `(M, N)` of the instruction.
    pub(crate) fn mn(&self) -> (u64, u64) {
        let get = |i: usize| u64::from(self.instr_shape.get(i).copied().unwrap_or(0));
        (get(0), get(1))
    }

    /// The layout `register, lane, warp, block → dim0..` for a tensor of `shape`; errors: see
    /// [`AmdMfma`].
    ///
    /// ```
    /// use linear_layout::families::AmdMfma;
    /// let mfma = AmdMfma::new(3, &[1, 1], &[16, 16, 16], false)?;
    /// let l = mfma.to_linear_layout(&[16, 32])?;
    /// // Not transposed: 4 M elements per lane, 16 lanes along N, 4 along M, one more N tile.
    /// assert_eq!(l.bases_of("register")?, vec![vec![1, 0], vec![2, 0], vec![0, 16]]);
    /// assert_eq!(l.in_dim_size("lane")?, 64);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let rank = self.validate()?;
        check_shape(FAMILY, shape, rank)?;
        let batch = rank == 3;
        let (mi, ni) = (rank - 2, rank - 1);
        let (dim_m, dim_n) = (Dim::standard(mi), Dim::standard(ni));
        let (m, n) = self.mn();
        let height = if self.element_bitwidth == 64 { 1 } else { 4 };
        let tiles = (m * n) / (AMD_WAVE_SIZE * height);
        let (along, across, a_size) = if self.transposed {
            (dim_n, dim_m, m)
        } else {
            (dim_m, dim_n, n)
        };
        // `along`: the dim each lane holds a run of; `across`: the dim lanes go first.
        let tile = [
            LinearLayout::identity_1d(height, "register", along)?,
            LinearLayout::identity_1d(a_size, "lane", across)?,
            LinearLayout::identity_1d(AMD_WAVE_SIZE / a_size, "lane", along)?,
            LinearLayout::identity_1d(tiles.max(1), "register", along)?,
        ]
        .iter()
        .try_fold(LinearLayout::empty(), |acc, p| acc.product(p))?
        .transpose_outs(&[dim_n, dim_m])?;
        let get = |v: &[u32], i: usize| u64::from(v.get(i).copied().unwrap_or(1));
        let (tpw_m, tpw_n) = (get(&self.tiles_per_warp, mi), get(&self.tiles_per_warp, ni));
        let (wpc_m, wpc_n) = (get(&self.warps_per_cta, mi), get(&self.warps_per_cta, ni));
        let n_tile = n * wpc_n * tpw_n;
        let n_repeats = shape.get(ni).copied().unwrap_or(1).div_ceil(n_tile);
        let mut parts = vec![
            LinearLayout::identity_1d(tpw_n, "register", dim_n)?,
            LinearLayout::identity_1d(wpc_n, "warp", dim_n)?,
            LinearLayout::identity_1d(n_repeats, "register", dim_n)?,
            LinearLayout::identity_1d(tpw_m, "register", dim_m)?,
            LinearLayout::identity_1d(wpc_m, "warp", dim_m)?,
        ];
        if batch {
            let b = Dim::standard(0);
            parts.push(LinearLayout::identity_1d(1, "register", b)?);
            parts.push(LinearLayout::identity_1d(1, "lane", b)?);
            parts.push(LinearLayout::identity_1d(
                get(&self.warps_per_cta, 0),
                "warp",
                b,
            )?);
        }
        let cta = parts.iter().try_fold(tile, |acc, p| acc.product(p))?;
        combine_cta_cga(&cta, &self.cga_layout, shape, true)
    }

    fn validate(&self) -> Result<usize> {
        let rank = self.warps_per_cta.len();
        if !(1..=4).contains(&self.version) {
            return Err(invalid(
                "version",
                &self.version,
                "must be 1 (gfx908), 2 (gfx90a), 3 (gfx942) or 4 (gfx950)".into(),
            ));
        }
        let (m, n) = self.mn();
        let shape_ok = self.instr_shape.len() == 3
            && matches!((m, n), (32, 32) | (16, 16) | (64, 4) | (4, 64));
        if !shape_ok {
            return Err(invalid(
                "instr_shape",
                &self.instr_shape,
                "must be [M, N, K] with (M, N) one of (32, 32), (16, 16), (64, 4), (4, 64)".into(),
            ));
        }
        if (m, n) == (64, 4) && !self.transposed {
            return Err(invalid(
                "is_transposed",
                &self.transposed,
                "a 64×4 MFMA is always transposed (Triton runs it as a 4×64 one)".into(),
            ));
        }
        if !matches!(self.element_bitwidth, 32 | 64) {
            return Err(invalid(
                "element_bitwidth",
                &self.element_bitwidth,
                "must be 32 or 64".into(),
            ));
        }
        if !matches!(rank, 2 | 3) {
            return Err(invalid(
                "warps_per_cta",
                &self.warps_per_cta,
                format!("has rank {rank}; MFMA layouts have rank 2 or 3"),
            ));
        }
        check_pow2_list(FAMILY, "warps_per_cta", &self.warps_per_cta, rank)?;
        check_pow2_list(FAMILY, "tiles_per_warp", &self.tiles_per_warp, rank)?;
        check_cga(FAMILY, &self.cga_layout, rank)?;
        Ok(rank)
    }
}

fn invalid<T: std::fmt::Debug>(param: &'static str, value: &T, reason: String) -> LayoutError {
    LayoutError::invalid_parameter(FAMILY, param, value, reason)
}

/// Triton's `getOrderForDotOperand(operand_index, rank, kContig = true)`: K first.
pub(crate) fn operand_order(operand_index: u32, rank: usize) -> Vec<usize> {
    matrix_order(rank, operand_index == 0)
}

impl Attribute for AmdMfma {
    const NAME: &'static str = "#ttg.amd_mfma";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = AmdMfma::NAME;
        const KEYS: [&str; 10] = [
            "version",
            "warpsPerCTA",
            "instrShape",
            "isTransposed",
            "CGALayout",
            "tilesPerWarp",
            "elementBitWidth",
            LEGACY_CTA_KEYS[0],
            LEGACY_CTA_KEYS[1],
            LEGACY_CTA_KEYS[2],
        ];
        let mut legacy = LegacyCta::default();
        let (mut version, mut wpc, mut instr, mut transposed) = (None, None, None, None);
        let (mut tpw, mut bits, mut cga) = (None, 32, Vec::new());
        p.open_dict(A)?;
        p.fields(A, Some(&KEYS), '}', |p, key| {
            match key {
                "version" => version = Some(p.int(A, key)?),
                "warpsPerCTA" => wpc = Some(p.ints(A, key)?),
                "instrShape" => instr = Some(p.ints(A, key)?),
                "isTransposed" => transposed = Some(p.boolean(A, key)?),
                "tilesPerWarp" => tpw = Some(p.ints(A, key)?),
                "elementBitWidth" => bits = p.int(A, key)?,
                "CGALayout" => cga = p.bases(A, key)?,
                _ => p.legacy_cta_key(A, key, &mut legacy)?,
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        p.check_legacy_cta(A, start, &legacy, &cga)?;
        let warps_per_cta: Vec<u32> = p.required(A, start, "warpsPerCTA", wpc)?;
        let rank = warps_per_cta.len();
        let m = AmdMfma {
            version: p.required(A, start, "version", version)?,
            tiles_per_warp: tpw.unwrap_or_else(|| vec![1; rank]),
            warps_per_cta,
            instr_shape: p.required(A, start, "instrShape", instr)?,
            transposed: p.required(A, start, "isTransposed", transposed)?,
            element_bitwidth: bits,
            cga_layout: cga,
        };
        p.check_cga(A, start, &m.cga_layout, Some(rank))?;
        Ok(m)
    }

    fn print(&self, _rank: usize) -> String {
        // Left out only where reading it back gives the same list (one 1 per dim).
        let tiles = if self.tiles_per_warp == vec![1; self.warps_per_cta.len()] {
            String::new()
        } else {
            format!(", tilesPerWarp = {}", list_text(&self.tiles_per_warp))
        };
        let bits = if self.element_bitwidth == 32 {
            String::new()
        } else {
            format!(", elementBitWidth = {}", self.element_bitwidth)
        };
        format!(
            "{}<{{version = {}, warpsPerCTA = {}, instrShape = {}, isTransposed = {}{}{tiles}{bits}}}>",
            Self::NAME,
            self.version,
            list_text(&self.warps_per_cta),
            list_text(&self.instr_shape),
            self.transposed,
            cga_suffix(&self.cga_layout),
        )
    }
}
