//! [`Allocation`]: TLX's `local_alloc(shape, dtype, num, storage, reuse, layout)`, and what
//! one of its buffers occupies.

use std::borrow::Cow;

use linear_layout::families::{
    NvmmaShared, SharedEncoding, SwizzledShared, TensorMemory, TensorMemoryScales,
};

use crate::{AllocError, DType, SpecId, Storage};

/// Handle of an allocation inside its [`Program`](crate::Program).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AllocId(pub(crate) usize);

impl AllocId {
    /// Position of the allocation in program order.
    pub fn index(self) -> usize {
        self.0
    }
}

/// `local_alloc`'s `reuse` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// A plain allocation with its own memory.
    None,
    /// `reuse = spec`: an equal peer of the spec's other allocations.
    Spec(SpecId),
    /// Legacy `reuse = <buffered_tensor>`: a view of another allocation's memory at offset 0.
    Alloc(AllocId),
}

/// TLX's CTA mode of a TMEM encoding (2-CTA MMA operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CtaMode {
    /// One CTA's rows and columns.
    #[default]
    Default,
    /// `TwoCTA_LHS`: rows doubled.
    TwoCtaLhs,
    /// `TwoCTA_RHS`: stored as twice the rows and half the columns.
    TwoCtaRhs,
}

/// The element layout of an allocation: which byte or column each element of one buffer uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllocLayout {
    /// TLX's default (`local_alloc` without `layout`): for shared memory, the NVMMA layout
    /// TLX picks on NVIDIA for two or more dims (row-major, the widest swizzle the row allows)
    /// and an unswizzled one for one dim; for tensor memory, an encoding with
    /// `block_m = shape[0]`, `block_n = shape[1]`, `col_stride = 1` (the dummy layout for
    /// sub-16-bit types other than fp8).
    Default,
    /// A shared-memory family (swizzled, NVMMA, linear).
    Shared(SharedEncoding),
    /// A tensor-memory encoding.
    Tmem(TensorMemory, CtaMode),
    /// TLX's `DummyTMEMLayout` (sub-16-bit, non-fp8 TMEM).
    DummyTmem,
    /// `#ttng.tensor_memory_scales_encoding`: block-scale factors (E8M0 bytes) for
    /// `tcgen05.mma` with block scaling, what TLX's dummy layout resolves to for `uint8`.
    TmemScales(TensorMemoryScales),
}

/// `local_alloc(shape, dtype, num, storage, reuse, layout)`; build it with
/// [`Program::local_alloc`](crate::Program::local_alloc) or
/// [`Program::alloc`](crate::Program::alloc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// Name used in messages, reports and plan files.
    pub name: String,
    /// Shape of one buffer (TLX's `shape`; the memdesc is `[num] + shape`).
    pub shape: Vec<u64>,
    /// Element type.
    pub dtype: DType,
    /// Number of buffers.
    pub num: u64,
    /// Storage kind.
    pub storage: Storage,
    /// The `reuse` argument.
    pub reuse: Reuse,
    /// Element layout.
    pub layout: AllocLayout,
    /// Alignment of every buffer start, in plan units, where the layout alone would allow less.
    /// `None`: 128 bytes for shared memory (a TMA line, TLX's `kSmemAlignment`), 1 column for
    /// TMEM. Set it to 16 for buffers only `ld/st.shared` touches. The layout's own alignment
    /// (e.g. 1024 B for a 128-byte NVMMA swizzle) always applies on top.
    pub align: Option<u64>,
}

impl Allocation {
    /// An allocation with the default layout and alignment (what `local_alloc` without
    /// `layout` makes); [`Program::alloc`](crate::Program::alloc) checks it.
    ///
    /// ```
    /// use alias_alloc::{Allocation, DType, Reuse, Storage};
    /// let a = Allocation::new("x", &[64, 64], DType::F16, 2, Storage::Smem, Reuse::None);
    /// assert_eq!(a.bytes_per_buffer(), 8192);
    /// ```
    pub fn new(
        name: &str,
        shape: &[u64],
        dtype: DType,
        num: u64,
        storage: Storage,
        reuse: Reuse,
    ) -> Allocation {
        Allocation {
            name: name.into(),
            shape: shape.to_vec(),
            dtype,
            num,
            storage,
            reuse,
            layout: AllocLayout::Default,
            align: None,
        }
    }

    /// Elements in one buffer.
    pub fn elements(&self) -> u64 {
        self.shape.iter().fold(1u64, |n, &d| n.saturating_mul(d))
    }

    /// The layout with TLX's defaults resolved.
    pub fn resolved_layout(&self) -> Result<Cow<'_, AllocLayout>, AllocError> {
        match (&self.layout, self.storage) {
            (AllocLayout::Default, Storage::Tmem) => {
                let (m, n) = self.tmem_tile()?;
                if self.dtype.bits() < 16 && !self.dtype.is_fp8() {
                    return Ok(Cow::Owned(AllocLayout::DummyTmem));
                }
                // A tile past u32 is named as it is, not clamped into a block size.
                let block = |v: u64, what: &str| {
                    u32::try_from(v).map_err(|_| {
                        self.shape_error(&format!(
                            "its tile has {v} {what}; tensor memory has 128 lanes and 512 columns"
                        ))
                    })
                };
                Ok(Cow::Owned(AllocLayout::Tmem(
                    TensorMemory {
                        block_m: block(m, "rows")?,
                        block_n: block(n, "columns")?,
                        col_stride: 1,
                        cga_layout: vec![],
                        two_ctas: false,
                        fp4_padded: false,
                    },
                    CtaMode::Default,
                )))
            }
            (AllocLayout::Default, _) if self.shape.len() >= 2 => {
                // TLX's `local_alloc` on NVIDIA: `nv_mma_shared_layout_encoding.make_default`,
                // row-major, built by Triton's NVMMASharedEncodingAttr builder: the widest
                // swizzle (128, 64, 32 bytes) that divides the contiguous row, none below 8
                // rows.
                let (row, rows) = self.shape.split_last().map_or((1, 1), |(r, rest)| {
                    (*r, rest.iter().fold(1u64, |n, &d| n.saturating_mul(d)))
                });
                let bits = self.dtype.bits();
                let row_bytes = row.saturating_mul(u64::from(bits)) / 8;
                let swizzle = [128u32, 64, 32]
                    .into_iter()
                    .find(|&w| row_bytes >= u64::from(w) && row_bytes % u64::from(w) == 0)
                    .filter(|_| rows >= 8)
                    .unwrap_or(0);
                if bits < 8 {
                    // A sub-byte type (i4, f4E2M1FN): TLX's builder makes `elementBitWidth = 4`,
                    // which fbtriton 3.7.4 verifies and plans (Triton 3.9's Gluon has no such
                    // NVMMA layout, so `NvmmaShared::new` refuses it). Planned by its size and
                    // its swizzle's alignment; it has no element layout (two elements share a
                    // byte), so no address map either.
                    return Ok(Cow::Owned(AllocLayout::Shared(SharedEncoding::Nvmma(
                        NvmmaShared {
                            swizzle_byte_width: swizzle,
                            element_bitwidth: bits,
                            transposed: false,
                            fp4_padded: false,
                            cga_layout: vec![],
                            rank: None,
                        },
                    ))));
                }
                NvmmaShared::new(swizzle, bits, false, false, vec![])
                    .map(|n| Cow::Owned(AllocLayout::Shared(SharedEncoding::Nvmma(n))))
                    .map_err(|source| self.layout_error(source))
            }
            (AllocLayout::Default, _) => {
                let rank = self.shape.len();
                let order = (0..rank).rev().collect();
                SwizzledShared::new(1, 1, 1, order, vec![])
                    .map(|s| Cow::Owned(AllocLayout::Shared(SharedEncoding::Swizzled(s))))
                    .map_err(|source| self.layout_error(source))
            }
            (l, _) => Ok(Cow::Borrowed(l)),
        }
    }

    /// `[M, N]` of a TMEM buffer.
    pub(crate) fn tmem_tile(&self) -> Result<(u64, u64), AllocError> {
        match self.shape.as_slice() {
            [m, n] => Ok((*m, *n)),
            _ => Err(self.shape_error("a TMEM buffer must be 2-D [M, N]")),
        }
    }

    /// Bytes of one buffer rounded up (sub-byte types pack): what the buffer really needs.
    pub fn bytes_per_buffer(&self) -> u64 {
        (self.elements().saturating_mul(u64::from(self.dtype.bits()))).div_ceil(8)
    }

    /// TLX's tree size of one SMEM buffer: `Πd · ceil(bits/8)` (sub-byte types count a byte
    /// per element).
    pub fn tlx_tree_bytes(&self) -> u64 {
        self.elements().saturating_mul(self.dtype.bytes_ceil())
    }

    /// TLX's unit size of one SMEM buffer: `floor(Πd · bits / 8)`.
    pub fn tlx_unit_bytes(&self) -> u64 {
        (self.elements().saturating_mul(u64::from(self.dtype.bits()))) / 8
    }

    /// 32-bit TMEM columns one buffer occupies (TLX's `getAllocationColumnsPerBuffer`):
    /// `ceil(col slots · bits / 32)` where the layout's `col` in-dim counts the slots
    /// (`col_stride · block_n · repetitions`); `TwoCTA_RHS` stores half the columns (ignoring
    /// `col_stride`); `twoCTAs` with `block_m = 64` in the default CTA mode stacks both halves in 128 lanes, halving
    /// the columns; the dummy layout takes `ceil(M/32) · ceil(N/4)`. Sub-column tiles round up
    /// to one column (TLX divides by zero there). Scale tiles (`#ttng.tensor_memory_scales_encoding`)
    /// take the dummy layout's count: TLX's `getTmemAllocSizes` gives 4 columns for the
    /// `[128, 4]` `ui8` tiles of the mxfp8 FA kernel, as its index rewrite shows.
    pub fn tmem_columns(&self) -> Result<u64, AllocError> {
        let (m, n) = self.tmem_tile()?;
        match &*self.resolved_layout()? {
            AllocLayout::DummyTmem | AllocLayout::TmemScales(_) => {
                Ok(m.div_ceil(32).saturating_mul(n.div_ceil(4)))
            }
            AllocLayout::Tmem(tm, mode) => {
                let one_cta = TensorMemory {
                    two_ctas: tm.two_ctas && !tm.cga_layout.is_empty(),
                    col_stride: if *mode == CtaMode::TwoCtaRhs {
                        1
                    } else {
                        tm.col_stride
                    },
                    ..tm.clone()
                };
                let slots = one_cta
                    .col_slots(&[m, n])
                    .map_err(|source| self.layout_error(source))?;
                let cols = slots
                    .saturating_mul(u64::from(self.dtype.bits()))
                    .div_ceil(32)
                    .max(1);
                let halved = *mode == CtaMode::TwoCtaRhs
                    || (*mode == CtaMode::Default
                        && tm.two_ctas
                        && tm.cga_layout.is_empty()
                        && tm.block_m == 64);
                Ok(if halved { cols.div_ceil(2) } else { cols })
            }
            AllocLayout::Default | AllocLayout::Shared(_) => Err(self
                .shape_error("a TMEM allocation needs a tensor-memory layout, not a shared one")),
        }
    }

    /// TMEM lanes one buffer uses (64 or 128). A 2-CTA operand (`TwoCTA_LHS`, `TwoCTA_RHS`)
    /// stores both CTAs' row halves: twice its rows, at most 128 (TLX's
    /// `StorageAliasSizeDefinition`: `blockM *= 2`).
    pub fn tmem_rows(&self) -> Result<u64, AllocError> {
        let (m, n) = self.tmem_tile()?;
        match &*self.resolved_layout()? {
            AllocLayout::Tmem(tm, mode) => TensorMemory {
                two_ctas: tm.two_ctas && !tm.cga_layout.is_empty(),
                ..tm.clone()
            }
            .alloc_rows(&[m, n])
            .map(|rows| match mode {
                CtaMode::Default => u64::from(rows),
                CtaMode::TwoCtaLhs | CtaMode::TwoCtaRhs => (2 * u64::from(rows)).min(128),
            })
            .map_err(|source| self.layout_error(source)),
            _ => Ok(if m <= 64 { 64 } else { 128 }),
        }
    }

    /// Alignment every buffer start needs, in plan units: the layout's (bytes for SMEM: the
    /// NVMMA swizzle repeat, a swizzled layout's `vec` elements, at least one element; TMEM: 1
    /// column) raised to
    /// [`align`](Self::align) (default 128 B for SMEM).
    ///
    /// ```
    /// use alias_alloc::{AllocLayout, Allocation, DType, Reuse, Storage};
    /// use linear_layout::families::{SharedEncoding, SwizzledShared};
    /// // TLX's default layout for a bf16 [64, 64] tile: NVMMA with a 128-byte swizzle, which
    /// // repeats every 1024 bytes.
    /// let mut a = Allocation { name: "a".into(), shape: vec![64, 64], dtype: DType::BF16, num: 2,
    ///     storage: Storage::Smem, reuse: Reuse::None, layout: AllocLayout::Default, align: None };
    /// assert_eq!(a.alignment()?, 1024);
    /// a.layout = AllocLayout::Shared(SharedEncoding::Swizzled(SwizzledShared::new(8, 1, 8, vec![1, 0], vec![])?));
    /// assert_eq!(a.alignment()?, 128); // 8 bf16 per access, raised to the default 128
    /// a.align = Some(16);
    /// assert_eq!(a.alignment()?, 16);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn alignment(&self) -> Result<u64, AllocError> {
        let (own, default) = match (self.storage, &*self.resolved_layout()?) {
            (Storage::Tmem, _) => (1, 1),
            // A swizzled layout is a software swizzle of logical offsets: its base needs only
            // its widest access, `vec` contiguous elements (Triton's 16 is where it starts an
            // allocation, not what buffer i of a memdesc gets).
            (_, AllocLayout::Shared(SharedEncoding::Swizzled(s))) => (
                u64::from(s.vec)
                    .max(1)
                    .saturating_mul(self.dtype.bytes_ceil()),
                128,
            ),
            (_, AllocLayout::Shared(enc)) => (enc.alignment().max(self.dtype.bytes_ceil()), 128),
            _ => (self.dtype.bytes_ceil(), 128),
        };
        Ok(own.max(self.align.unwrap_or(default)))
    }

    /// What one buffer occupies in plan units (bytes, rounded up; TMEM columns).
    pub fn units_per_buffer(&self) -> Result<u64, AllocError> {
        match self.storage {
            Storage::Tmem => self.tmem_columns(),
            _ => Ok(self.bytes_per_buffer()),
        }
    }

    /// Triton's memdesc and TMEM-encoding verifiers, with their texts: power-of-two buffer
    /// dims, `bitwidth · colStride ≤ 32`, a tile of at least one `block_m × block_n` block.
    pub(crate) fn verify_memdesc(&self) -> Result<(), AllocError> {
        let verifier = |message: String| AllocError::Verifier {
            what: format!("allocation '{}'", self.name),
            message,
        };
        if !self.shape.iter().all(|d| d.is_power_of_two()) {
            let full: Vec<String> = std::iter::once(self.num)
                .chain(self.shape.iter().copied())
                .map(|d| d.to_string())
                .collect();
            return Err(verifier(format!(
                "shape must have power-of-2 and non-zero dimensions; got {}",
                full.join(", ")
            )));
        }
        if self.storage != Storage::Tmem {
            return Ok(());
        }
        let (m, n) = self.tmem_tile()?;
        if let AllocLayout::Tmem(tm, _) = &*self.resolved_layout()? {
            let bits = self.dtype.bits();
            if bits.saturating_mul(tm.col_stride) > 32 {
                return Err(verifier(format!(
                    "bitwidth * colStride must be less than or equal to 32. Got {bits} and {}",
                    tm.col_stride
                )));
            }
            let block_n = u64::from(tm.block_n).min(n);
            if m < u64::from(tm.block_m) || n < block_n {
                return Err(verifier(format!(
                    "the allocation shape must be at least {}x{block_n}. Got {m}, {n}",
                    tm.block_m
                )));
            }
        }
        Ok(())
    }

    /// Refuses `num` buffers `unit` apart when buffer `i`'s start, `i · unit`, would break
    /// the layout's alignment; `placed` says how they come to be placed so.
    pub(crate) fn check_buffer_stride(&self, unit: u64, placed: &str) -> Result<(), AllocError> {
        let align = self.alignment()?;
        if self.num > 1 && !unit.is_multiple_of(align) {
            return Err(self.shape_error(&format!(
                "{placed} buffer i starts at i · {unit}, which is not a multiple of the layout's alignment {align}"
            )));
        }
        Ok(())
    }

    pub(crate) fn shape_error(&self, reason: &str) -> AllocError {
        AllocError::InvalidShape {
            alloc: self.name.clone(),
            shape: self.shape.clone(),
            num: self.num,
            reason: reason.to_string(),
        }
    }

    pub(crate) fn layout_error(&self, source: linear_layout::LayoutError) -> AllocError {
        AllocError::InvalidLayout {
            alloc: self.name.clone(),
            source: Box::new(source),
        }
    }
}
