//! [`TmemCopyPlan`]: block-scale factors copied from shared memory into their TMEM layout
//! (`#ttng.tensor_memory_scales_encoding`) with `tcgen05.cp.32x128b.warpx4`, as Triton's
//! `TMEMCopyOp` lowering does, but derived from the two layouts and checked element by
//! element instead of assumed.
//!
//! One copy moves 32 rows × 16 bytes: row `r` of the source goes to lanes `r`, `r+32`, `r+64`,
//! `r+96`, columns `4g .. 4g+4` (4 scales per 32-bit column). The source is read through a
//! K-major, unswizzled descriptor: row `r` at `start + 16·(r % 8) + SBO·(r / 8)`. The plan
//! finds each copy's `start` and `SBO` from where the shared layout keeps the elements TMEM
//! wants there, and refuses ([`TmemError::CopyMismatch`]) when any element of the 16-byte rows
//! is elsewhere — Triton copies such a layout without a word (it reads the shared layout
//! only for each block's first byte).
//!
//! Source and destination elements correspond
//! - one to one, when the shared tensor has the TMEM tensor's shape `[M, K]` (Triton's
//!   `tmem_copy` of a 2-D scales buffer);
//! - otherwise by Triton's blocked-scales order (the 5-D `(1, M/128, K/4, 2, 256)` and 4-D
//!   `(M/128, K/4, 32, 16)` buffers TMA loads): flat row-major index
//!   `((i·K/4 + j)·32 + r)·16 + 4c + kk` holds scale `(m, k) = (128i + 32c + r, 4j + kk)`.

use linear_layout::address::MemorySpace;
use linear_layout::families::TensorMemoryScales;
use linear_layout::{AddressMap, LinearLayout};

use super::error::TmemError;
use crate::ptx::{Address, Builder, CpShape, Guard, IntType, Operand, Reg, Role, Width};

/// The fixed descriptor bits of a copy: `0b001` at bits 46–48; no leading byte offset (16-byte
/// rows have one chunk), no base offset, no swizzle — what Triton 3.9 and TLX emit, except
/// that Triton 3.9 also fills the base-offset field (bits 49–51, `(start >> 7) & 7`), which
/// only swizzled layouts read.
const DESCRIPTOR_FIXED: u64 = 1 << 46;

/// Bytes a descriptor's 14-bit, 16-byte-unit fields reach.
const DESCRIPTOR_REACH: u64 = 1 << 18;

/// One `tcgen05.cp` of a [`TmemCopyPlan`].
///
/// ```
/// use codegen::tmem::CpMessage;
/// let m = CpMessage { column: 4, smem_offset: 512, sbo: 128 };
/// assert_eq!(m.descriptor_offset(), 32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CpMessage {
    /// TMEM column of the copy's first scale, from the allocation's first column.
    pub column: u32,
    /// Shared byte of its row 0, from the source buffer's start.
    pub smem_offset: u64,
    /// Its stride byte offset: the distance from row `r` to row `r + 8`.
    pub sbo: u64,
}

impl CpMessage {
    /// What the descriptor's start-address field adds for this copy: `smem_offset / 16`.
    pub fn descriptor_offset(&self) -> u64 {
        self.smem_offset >> 4
    }

    fn descriptor_constant(&self) -> u64 {
        DESCRIPTOR_FIXED | (self.sbo >> 4) << 32
    }
}

/// The copies that move a shared-memory scales buffer into its TMEM scales layout.
///
/// ```
/// use codegen::tmem::TmemCopyPlan;
/// use linear_layout::{AddressMap, BufferMap, LinearLayout, families::TensorMemoryScales};
/// // 128 × 8 scales, kept in shared memory in Triton's blocked order (row-major 4-D buffer).
/// let smem = LinearLayout::identity_1d(1024, "offset", "flat")?
///     .reshape_outs(&[("dim3", 16), ("dim2", 32), ("dim1", 2), ("dim0", 1)])?
///     .transpose_outs(&["dim0", "dim1", "dim2", "dim3"])?;
/// let map = AddressMap::shared(BufferMap::new(0, &[])?, 8, &smem)?;
/// let plan = TmemCopyPlan::for_scales(&map, &[1, 2, 32, 16], &TensorMemoryScales::default(), &[128, 8])?;
/// let copies: Vec<_> = plan.copies().iter().map(|c| (c.column, c.smem_offset, c.sbo)).collect();
/// assert_eq!(copies, vec![(0, 0, 128), (4, 512, 128)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmemCopyPlan {
    copies: Vec<CpMessage>,
    columns: u32,
}

/// How a TMEM scale `(m, k)` finds its shared-memory coordinates.
enum Correspondence {
    Identity,
    Blocked { k: u64, shape: Vec<u64> },
}

impl Correspondence {
    fn new(smem: &[u64], tmem: &[u64]) -> Result<Correspondence, TmemError> {
        if smem == tmem {
            return Ok(Correspondence::Identity);
        }
        let bad = |reason: &str| TmemError::CopyShapes {
            smem: smem.to_vec(),
            tmem: tmem.to_vec(),
            reason: reason.to_string(),
        };
        let &[m, k] = tmem else {
            return Err(bad("TMEM scales are 2-D"));
        };
        if m % 128 != 0 || k % 4 != 0 {
            return Err(bad(
                "the blocked order needs M a multiple of 128 and K of 4",
            ));
        }
        let elements = smem
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| bad("the shared shape overflows"))?;
        if elements != m * k {
            return Err(bad("the shapes hold different numbers of elements"));
        }
        Ok(Correspondence::Blocked {
            k,
            shape: smem.to_vec(),
        })
    }

    fn coords(&self, m: u64, k: u64) -> Vec<u64> {
        match self {
            Correspondence::Identity => vec![m, k],
            Correspondence::Blocked { k: kdim, shape } => {
                let (i, c, r, j, kk) = (m / 128, (m % 128) / 32, m % 32, k / 4, k % 4);
                let mut flat = ((i * (kdim / 4) + j) * 32 + r) * 16 + 4 * c + kk;
                let mut out = vec![0; shape.len()];
                for (o, &d) in out.iter_mut().zip(shape).rev() {
                    *o = flat % d.max(1);
                    flat /= d.max(1);
                }
                out
            }
        }
    }
}

impl TmemCopyPlan {
    /// The copies that bring the scales of `smem` (an 8-bit shared map over `smem_shape`;
    /// buffer 0 is copied) into `scales` over `tmem_shape` (`[M, K]`), one per 16 scale bytes
    /// of a lane. See the module docs for how elements correspond.
    ///
    /// Errors: [`TmemError::CopySource`], [`TmemError::CopyShapes`], a multi-CTA `scales`
    /// or bad shape ([`TmemError::Layout`]), [`TmemError::CopyMulticast`],
    /// [`TmemError::CopyMismatch`] (naming the first element a copy would fetch from the wrong
    /// byte), [`TmemError::CopyDescriptor`].
    ///
    /// ```
    /// use codegen::tmem::{TmemCopyPlan, TmemError};
    /// use linear_layout::{AddressMap, BufferMap, LinearLayout, families::TensorMemoryScales};
    /// // A plain row-major 128 × 4 buffer: scale (32, 0) sits at byte 128, not at byte 4 where
    /// // lane 0's second scale column would read it.
    /// let smem = LinearLayout::identity_1d(512, "offset", "flat")?.reshape_outs(&[("dim1", 4), ("dim0", 128)])?.transpose_outs(&["dim0", "dim1"])?;
    /// let map = AddressMap::shared(BufferMap::new(0, &[])?, 8, &smem)?;
    /// let err = TmemCopyPlan::for_scales(&map, &[128, 4], &TensorMemoryScales::default(), &[128, 4]).unwrap_err();
    /// assert!(matches!(err, TmemError::CopyMismatch { ref element, .. } if element == &vec![32, 0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_scales(
        smem: &AddressMap,
        smem_shape: &[u64],
        scales: &TensorMemoryScales,
        tmem_shape: &[u64],
    ) -> Result<TmemCopyPlan, TmemError> {
        if smem.space() != MemorySpace::Shared || smem.element_bits() != 8 {
            return Err(TmemError::CopySource {
                space: match smem.space() {
                    MemorySpace::Shared => "shared memory",
                    MemorySpace::TensorMemory => "tensor memory",
                },
                element_bits: smem.element_bits(),
            });
        }
        let corr = Correspondence::new(smem_shape, tmem_shape)?;
        let layout = scales.to_linear_layout(tmem_shape)?;
        let (lanes, bytes) = (layout.in_dim_size("row")?, layout.in_dim_size("col")?);
        if bytes % 16 != 0 {
            return Err(TmemError::CopyShapes {
                smem: smem_shape.to_vec(),
                tmem: tmem_shape.to_vec(),
                reason: format!("{bytes} scale bytes per lane; a copy moves 16"),
            });
        }
        let element = |lane: u64, byte: u64| apply(&layout, lane, byte);
        for lane in 32..lanes {
            for byte in 0..bytes {
                let (expected, found) = (element(lane % 32, byte)?, element(lane, byte)?);
                if expected != found {
                    return Err(TmemError::CopyMulticast {
                        lane,
                        byte,
                        expected,
                        found,
                    });
                }
            }
        }
        let base = smem.buffer().offset(0)?;
        let offset = |coords: &[u64]| -> Result<u64, TmemError> {
            let at = smem.address(0, coords)?.byte().unwrap_or(0);
            Ok(at.wrapping_sub(base))
        };
        let mut copies = Vec::new();
        for g in 0..bytes / 16 {
            let at = |lane: u64, b: u64| -> Result<(Vec<u64>, u64), TmemError> {
                let el = element(lane, 16 * g + b)?;
                let sm = match el.as_slice() {
                    [m, k] => corr.coords(*m, *k),
                    _ => el.clone(),
                };
                Ok((el, offset(&sm)?))
            };
            let start = at(0, 0)?.1;
            let sbo = at(8, 0)?.1.wrapping_sub(start);
            for (what, value) in [
                ("start address", base.wrapping_add(start)),
                ("stride byte offset", sbo),
            ] {
                if value % 16 != 0 || value >= DESCRIPTOR_REACH {
                    return Err(TmemError::CopyDescriptor { what, value });
                }
            }
            for lane in 0..32 {
                for b in 0..16 {
                    let (el, found) = at(lane, b)?;
                    let reads = start + 16 * (lane % 8) + sbo * (lane / 8) + b;
                    if found != reads {
                        return Err(TmemError::CopyMismatch {
                            element: el,
                            lane,
                            byte: 16 * g + b,
                            copy: g as usize,
                            reads,
                            at: found,
                        });
                    }
                }
            }
            copies.push(CpMessage {
                column: 4 * g as u32,
                smem_offset: start,
                sbo,
            });
        }
        Ok(TmemCopyPlan {
            copies,
            columns: (bytes / 4) as u32,
        })
    }

    /// The copies, in TMEM column order.
    pub fn copies(&self) -> &[CpMessage] {
        &self.copies
    }

    /// TMEM columns the scales fill.
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Emits the copies, issued by the threads where `issuer` holds (make it one thread):
    /// the descriptor of the first copy from `smem` (the source buffer's shared address,
    /// 16-byte aligned) — `shr`, `cvt`, `or` — then per further copy one `add.s64` of its
    /// start (and stride) difference, and `tcgen05.cp.cta_group::1.32x128b.warpx4
    /// [taddr + column], desc`. Address instructions are tagged [`Role::Address`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, CmpOp, IntType, RegType, SpecialReg, Target};
    /// use codegen::tmem::TmemCopyPlan;
    /// use linear_layout::{AddressMap, BufferMap, LinearLayout, families::TensorMemoryScales};
    /// let smem = LinearLayout::identity_1d(4096, "offset", "flat")?
    ///     .reshape_outs(&[("dim4", 256), ("dim3", 2), ("dim2", 8), ("dim1", 1), ("dim0", 1)])?
    ///     .transpose_outs(&["dim0", "dim1", "dim2", "dim3", "dim4"])?;
    /// let map = AddressMap::shared(BufferMap::new(0, &[])?, 8, &smem)?;
    /// let plan = TmemCopyPlan::for_scales(&map, &[1, 1, 8, 2, 256], &TensorMemoryScales::default(), &[128, 32])?;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let (s, t) = (b.mov(RegType::B32, 1024)?, b.mov(RegType::B32, 0)?);
    /// let tid = b.special(SpecialReg::TidX)?;
    /// let one = b.setp(CmpOp::Eq, IntType::U32, tid, 0)?;
    /// let before = b.kernel().address_alu_count();
    /// plan.issue(&mut b, s, t, one)?;
    /// // Eight copies (Triton's count for this buffer): 3 instructions for the first
    /// // descriptor, one add for each of the other seven.
    /// assert_eq!(b.kernel().to_string().matches("tcgen05.cp.cta_group::1.32x128b.warpx4").count(), 8);
    /// assert_eq!(b.kernel().address_alu_count() - before, 3 + 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn issue(
        &self,
        b: &mut Builder,
        smem: Reg,
        taddr: Reg,
        issuer: Reg,
    ) -> Result<(), TmemError> {
        let Some(first) = self.copies.first() else {
            return Ok(());
        };
        let (fixed, offset) = (
            imm64(first.descriptor_constant())?,
            imm64(first.descriptor_offset())?,
        );
        let deltas = self
            .copies
            .iter()
            .map(|c| desc_delta(first, c))
            .collect::<Result<Vec<_>, _>>()?;
        let columns = self
            .copies
            .iter()
            .map(|c| imm32(u64::from(c.column)))
            .collect::<Result<Vec<_>, _>>()?;
        let descs = b.with_role(Role::Address, |b| {
            let start = b.shr(IntType::U32, smem, 4)?;
            let wide = b.cvt_u64_u32(start)?;
            let mut d0 = b.or(Width::B64, wide, Operand::Imm(fixed))?;
            if offset != 0 {
                d0 = b.add(IntType::U64, d0, Operand::Imm(offset))?;
            }
            deltas
                .iter()
                .map(|&delta| {
                    if delta == 0 {
                        Ok(d0)
                    } else {
                        b.add(IntType::U64, d0, Operand::Imm(delta))
                    }
                })
                .collect::<Result<Vec<_>, _>>()
        })?;
        b.guarded(Guard::when(issuer), |b| {
            for (column, d) in columns.into_iter().zip(descs) {
                b.tcgen05_cp(CpShape::S32x128bWarpx4, Address::new(taddr, column), d)?;
            }
            Ok(())
        })?;
        Ok(())
    }
}

/// The layout's element at TMEM `(row, col)`.
fn apply(layout: &LinearLayout, row: u64, col: u64) -> Result<Vec<u64>, TmemError> {
    Ok(layout
        .apply(&[("row", row), ("col", col)])?
        .into_iter()
        .map(|(_, v)| v)
        .collect())
}

fn imm32(value: u64) -> Result<i32, TmemError> {
    i32::try_from(value).map_err(|_| TmemError::Immediate { value })
}

fn imm64(value: u64) -> Result<i64, TmemError> {
    i64::try_from(value).map_err(|_| TmemError::Immediate { value })
}

/// What copy `c`'s descriptor adds to the first's: the start and stride differences, each in
/// its field (both fields stay in range: [`TmemCopyPlan::for_scales`] checked them).
fn desc_delta(first: &CpMessage, c: &CpMessage) -> Result<i64, TmemError> {
    let start = imm64(c.descriptor_offset())? - imm64(first.descriptor_offset())?;
    let stride = imm64(c.sbo >> 4)? - imm64(first.sbo >> 4)?;
    Ok(start + (stride << 32))
}
