//! [`AmdWmma`]: `#ttg.amd_wmma`, the accumulator of AMD RDNA / gfx1250 WMMA instructions, in
//! 32-lane waves.

use super::attribute::Attribute;
use super::checks::{check_cga, check_shape};
use super::linear::check_permutation;
use super::mma::matrix_order;
use super::tiling::{combine_cta_cga, standard_out_dims};
use crate::text::attr::{
    bases_text, cga_suffix, list_text, AttrParser, LegacyCta, LEGACY_CTA_KEYS,
};
use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "amd_wmma";

/// Triton's default WMMA `instrShape`.
const DEFAULT_INSTR: [u32; 3] = [16, 16, 16];

/// `#ttg.amd_wmma<{version, isTranspose, ctaLayout = {register = […], warp = […]}
/// [, CGALayout][, instrShape]}>`: the accumulator of a WMMA instruction on RDNA3 (`version`
/// 1), RDNA4 (2) or gfx1250 (3), as Triton 3.9's `AMDWmmaEncodingAttr::toLinearLayout` builds
/// it.
///
/// One wave (32 lanes) holds a `16 × 16` tile (`32 × 16` for a v3 `[32, 16, K]` instruction):
/// 16 lanes along N, 8 registers along M split by the upper half-wave — interleaved rows for
/// v1, two blocks of 8 rows for v2/v3. `transposed` swaps M and N. The tile is then repeated
/// by `cta_layout`, a linear layout `register, warp → dim0..` in units of tiles (Gluon's
/// `reg_bases` / `warp_bases`), and fitted to the tensor.
///
/// Preconditions ([`LayoutError::InvalidParameter`]): `version` 1–3; `instr_shape` `[16, 16,
/// 16]` for v1, `[16, 16, 16 | 32]` for v2, `[16, 16, 4 | 32 | 64 | 128]` or `[32, 16, 64 |
/// 128]` for v3; `cta_layout` with in-dims `register, warp` and out-dims `dim0..dim{rank-1}`,
/// rank 2 or 3; `cga_layout` as for [`Blocked`](super::Blocked). Shape: the same rank, powers
/// of two ([`LayoutError::InvalidShape`]).
///
/// ```
/// use linear_layout::families::AmdWmma;
/// let wmma = AmdWmma::new(2, false, &[], &[vec![0, 1], vec![1, 0]], &[16, 16, 16])?;
/// let l = wmma.to_linear_layout(&[32, 32])?;
/// assert_eq!(l.bases_of("register")?, vec![vec![1, 0], vec![2, 0], vec![4, 0]]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![8, 0]]);
/// assert_eq!(l.bases_of("warp")?, vec![vec![0, 16], vec![16, 0]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmdWmma {
    /// 1 (RDNA3), 2 (RDNA4), 3 (gfx1250).
    pub version: u32,
    /// M and N swapped.
    pub transposed: bool,
    /// `register, warp → dim0..`: how tiles repeat over registers and waves.
    pub cta_layout: LinearLayout,
    /// `[M, N, K]` of the instruction.
    pub instr_shape: Vec<u32>,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl AmdWmma {
    /// A WMMA accumulator layout from Gluon's `reg_bases` and `warp_bases` (rank 2: give at
    /// least one basis, or use the struct for other ranks), with no CGA split, checked (see
    /// [`AmdWmma`]).
    ///
    /// ```
    /// use linear_layout::families::AmdWmma;
    /// assert!(AmdWmma::new(3, true, &[], &[vec![1, 0]], &[16, 16, 32]).is_ok());
    /// assert!(AmdWmma::new(1, true, &[], &[vec![1, 0]], &[16, 16, 32]).is_err()); // v1: K = 16
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(
        version: u32,
        transposed: bool,
        reg_bases: &[Vec<u64>],
        warp_bases: &[Vec<u64>],
        instr_shape: &[u32],
    ) -> Result<AmdWmma> {
        let rank = reg_bases.first().or(warp_bases.first()).map_or(2, Vec::len);
        let w = AmdWmma {
            version,
            transposed,
            cta_layout: cta_layout(reg_bases, warp_bases, rank)?,
            instr_shape: instr_shape.to_vec(),
            cga_layout: Vec::new(),
        };
        w.validate()?;
        Ok(w)
    }

    /// The tensor rank, after checking every parameter (see [`AmdWmma`]).
    pub fn rank(&self) -> Result<usize> {
        self.validate()
    }

    /// The rows of the operand tile along its non-K dim (Triton's `getOperandNonKDim`): M for
    /// A, N for B, swapped for a transposed `32 × 16` instruction.
    pub(crate) fn operand_non_k(&self, operand_index: u32) -> u64 {
        let get = |i: usize| u64::from(self.instr_shape.get(i).copied().unwrap_or(16));
        let (m, n) = (get(0), get(1));
        let flip = self.transposed && m != n;
        if (operand_index == 0) != flip {
            m
        } else {
            n
        }
    }

    /// `K` of the instruction.
    pub(crate) fn k(&self) -> u64 {
        u64::from(self.instr_shape.get(2).copied().unwrap_or(16))
    }

    /// The layout `register, lane, warp, block → dim0..` for a tensor of `shape`; errors: see
    /// [`AmdWmma`].
    ///
    /// ```
    /// use linear_layout::families::AmdWmma;
    /// let v1 = AmdWmma::new(1, false, &[], &[vec![1, 0]], &[16, 16, 16])?;
    /// let l = v1.to_linear_layout(&[32, 16])?;
    /// // RDNA3: 8 rows per lane, every other row; the upper half-wave holds the odd rows.
    /// assert_eq!(l.bases_of("register")?, vec![vec![2, 0], vec![4, 0], vec![8, 0]]);
    /// assert_eq!(l.bases_of("lane")?[4], vec![1, 0]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let rank = self.validate()?;
        check_shape(FAMILY, shape, rank)?;
        let wmma = self.tile(rank)?.product(&self.cta_layout)?;
        let rep_dims: Vec<Dim> = matrix_order(rank, true)
            .into_iter()
            .map(Dim::standard)
            .collect();
        let layout = combine_cta_cga(
            &wmma.transpose_outs(&rep_dims)?,
            &self.cga_layout,
            shape,
            true,
        )?;
        // Gluon holds the result as a `#ttg.linear` layout, whose verifier refuses a
        // `cta_layout` that repeats a tile basis: two registers or waves on one element.
        check_permutation(FAMILY, &layout)?;
        Ok(layout)
    }

    /// Triton's `getTileLayout(rank)`: one wave's tile, out-dims `dim0..`.
    fn tile(&self, rank: usize) -> Result<LinearLayout> {
        let order = matrix_order(rank, !self.transposed);
        let (Some(&fast), Some(&slow)) = (order.first(), order.get(1)) else {
            return Err(invalid("cta_layout", &rank, "needs rank 2 or 3".into()));
        };
        let (reg, lane): (Vec<Vec<u64>>, Vec<Vec<u64>>) = match (self.version, self.mn()) {
            (1, _) => (
                vec![vec![0, 2], vec![0, 4], vec![0, 8]],
                vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 1]],
            ),
            (_, (32, 16)) => (
                vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 16]],
                vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 8]],
            ),
            _ => (
                vec![vec![0, 1], vec![0, 2], vec![0, 4]],
                vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 8]],
            ),
        };
        let mut tile = LinearLayout::from_bases_inferred(
            &[("register", reg), ("lane", lane)],
            &[Dim::standard(fast), Dim::standard(slow)],
        )?;
        if rank == 3 {
            let b = Dim::standard(0);
            tile = tile
                .product(&LinearLayout::identity_1d(1, "register", b)?)?
                .product(&LinearLayout::identity_1d(1, "lane", b)?)?;
        }
        tile.transpose_outs(&standard_out_dims(rank))
    }

    fn mn(&self) -> (u32, u32) {
        let get = |i: usize| self.instr_shape.get(i).copied().unwrap_or(0);
        (get(0), get(1))
    }

    fn validate(&self) -> Result<usize> {
        if !(1..=3).contains(&self.version) {
            return Err(invalid(
                "version",
                &self.version,
                "must be 1 (RDNA3), 2 (RDNA4) or 3 (gfx1250)".into(),
            ));
        }
        let ok = matches!(
            (self.version, self.instr_shape.as_slice()),
            (1, [16, 16, 16])
                | (2, [16, 16, 16 | 32])
                | (3, [16, 16, 4 | 32 | 64 | 128] | [32, 16, 64 | 128])
        );
        if !ok {
            return Err(invalid(
                "instr_shape",
                &self.instr_shape,
                format!(
                    "not a WMMA v{} instruction: v1 [16, 16, 16]; v2 [16, 16, 16 | 32]; v3 \
                     [16, 16, 4 | 32 | 64 | 128] or [32, 16, 64 | 128]",
                    self.version
                ),
            ));
        }
        let rank = self.cta_layout.num_out_dims();
        let names: Vec<String> = self
            .cta_layout
            .in_dim_names()
            .iter()
            .map(|d| d.name().to_string())
            .collect();
        let outs_ok = self.cta_layout.out_dim_names() == standard_out_dims(rank);
        if !matches!(rank, 2 | 3) || names != ["register", "warp"] || !outs_ok {
            return Err(invalid(
                "cta_layout",
                &self.cta_layout.to_string(),
                "must map `register, warp` to dim0..dim{rank-1}, rank 2 or 3".into(),
            ));
        }
        check_cga(FAMILY, &self.cga_layout, rank)?;
        Ok(rank)
    }
}

/// The `register, warp → dim0..` layout from Gluon's bases (out sizes inferred, as Triton's
/// parser does).
fn cta_layout(reg: &[Vec<u64>], warp: &[Vec<u64>], rank: usize) -> Result<LinearLayout> {
    if let Some(b) = reg.iter().chain(warp).find(|b| b.len() != rank) {
        return Err(invalid(
            "cta_layout",
            b,
            format!("every basis needs {rank} entries"),
        ));
    }
    LinearLayout::from_bases_inferred(
        &[("register", reg.to_vec()), ("warp", warp.to_vec())],
        &standard_out_dims(rank),
    )
    .map_err(|e| invalid("cta_layout", &(reg, warp), e.to_string()))
}

fn invalid<T: std::fmt::Debug + ?Sized>(
    param: &'static str,
    value: &T,
    reason: String,
) -> LayoutError {
    LayoutError::invalid_parameter(FAMILY, param, value, reason)
}

impl Attribute for AmdWmma {
    const NAME: &'static str = "#ttg.amd_wmma";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = AmdWmma::NAME;
        const KEYS: [&str; 9] = [
            "version",
            "rank",
            "ctaLayout",
            "isTranspose",
            "CGALayout",
            "instrShape",
            LEGACY_CTA_KEYS[0],
            LEGACY_CTA_KEYS[1],
            LEGACY_CTA_KEYS[2],
        ];
        let mut legacy = LegacyCta::default();
        let (mut version, mut rank, mut cta, mut transposed) = (None, None, None, false);
        let (mut cga, mut instr) = (Vec::new(), DEFAULT_INSTR.to_vec());
        p.open_dict(A)?;
        p.fields(A, Some(&KEYS), '}', |p, key| {
            match key {
                "version" => version = Some(p.int(A, key)?),
                "rank" => rank = Some(p.int::<usize>(A, key)?),
                "ctaLayout" => {
                    let (mut reg, mut warp) = (None, None);
                    p.cursor.require(A, '{', " for ctaLayout")?;
                    p.fields(A, Some(&["register", "warp"]), '}', |p, key| {
                        match key {
                            "register" => reg = Some(p.bases(A, key)?),
                            _ => warp = Some(p.bases(A, key)?),
                        }
                        Ok(())
                    })?;
                    cta = Some((reg, warp));
                }
                "isTranspose" => transposed = p.boolean(A, key)?,
                "instrShape" => instr = p.ints(A, key)?,
                "CGALayout" => cga = p.bases(A, key)?,
                _ => p.legacy_cta_key(A, key, &mut legacy)?,
            }
            Ok(())
        })?;
        p.close_dict(A)?;
        p.check_legacy_cta(A, start, &legacy, &cga)?;
        let (reg, warp) = p.required(A, start, "ctaLayout", cta)?;
        // Triton prints `ctaLayout = {}` when there are no bases (its parser then wants `warp`).
        let (reg, warp) = (reg.unwrap_or_default(), warp.unwrap_or_default());
        // Triton's parser checks the bases against `rank` (default 2), but its printer never
        // prints `rank`: without the key we take the bases' rank, so its printed text reads.
        let rank = rank
            .or_else(|| reg.first().or(warp.first()).map(Vec::len))
            .unwrap_or(2);
        if let Some(b) = reg.iter().chain(&warp).find(|b| b.len() != rank) {
            return Err(p.err_at(
                A,
                start,
                format!(
                    "ctaLayout basis {} has {} entries but the rank is {rank}",
                    list_text(b),
                    b.len()
                ),
            ));
        }
        let cta_layout = cta_layout(&reg, &warp, rank).map_err(|e| p.err_at(A, start, e))?;
        p.check_cga(A, start, &cga, Some(rank))?;
        Ok(AmdWmma {
            version: p.required(A, start, "version", version)?,
            transposed,
            cta_layout,
            instr_shape: instr,
            cga_layout: cga,
        })
    }

    fn print(&self, _rank: usize) -> String {
        let bases = |d: &str| self.cta_layout.bases_of(d).unwrap_or_default();
        let mut cta = Vec::new();
        for d in ["register", "warp"] {
            let b = bases(d);
            if !b.is_empty() {
                cta.push(format!("{d} = {}", bases_text(&b)));
            }
        }
        let instr = if self.instr_shape == DEFAULT_INSTR {
            String::new()
        } else {
            format!(", instrShape = {}", list_text(&self.instr_shape))
        };
        // Triton prints no rank: the bases carry it. Without bases, `rank = N` keeps it.
        let rank = self.cta_layout.num_out_dims();
        let rank = if cta.is_empty() && rank != 2 {
            format!(", rank = {rank}")
        } else {
            String::new()
        };
        format!(
            "{}<{{version = {}, isTranspose = {}, ctaLayout = {{{}}}{}{instr}{rank}}}>",
            Self::NAME,
            self.version,
            self.transposed,
            cta.join(", "),
            cga_suffix(&self.cga_layout),
        )
    }
}
