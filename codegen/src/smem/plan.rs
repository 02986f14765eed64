//! [`SmemPlan`]: what a shared-memory access needs, worked out before any PTX is emitted —
//! the per-thread base, the vectors, each vector's constant.
//!
//! `cvt = regs ∘ E` maps `(register, lane, warp)` to an element offset; shifted to bytes it
//! splits, being linear, into a per-thread part (lane and warp bits: a [`TidLinear`] of
//! `%tid.x`) and a per-register constant. Registers whose offsets are the consecutive elements
//! of an aligned run form one vector ([`PlannedAccess`]).

use std::collections::HashMap;

use linear_layout::address::MemorySpace;
use linear_layout::{AddressMap, Dim, LinearLayout};

use super::error::SmemError;
use super::matrix;
use super::thread::TidLinear;
use crate::access::{Access, BufferLowering};
use crate::ptx::{DataType, MatrixCount};

/// The most registers per thread a plan enumerates (a thread has at most 255 physical ones).
const MAX_REGISTER_BITS: u32 = 12;
/// Alignment exponent used for "no constraint" (offsets that are all 0).
const UNBOUNDED_ALIGN: u32 = 32;

/// The shape of every access of a plan: `elements` consecutive elements moved as `words`
/// registers of type `ty` (`.b32` words holding `32 / element_bits` elements each, or one
/// `.b16`/`.b8` element for accesses under 4 bytes).
///
/// ```
/// use codegen::smem::VectorShape;
/// use codegen::ptx::DataType;
/// let v = VectorShape { elements: 8, ty: DataType::B32, words: 4 };
/// assert_eq!(v.bytes(), 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VectorShape {
    /// Elements per access (a power of two).
    pub elements: u32,
    /// The PTX type of each moved register.
    pub ty: DataType,
    /// Registers per access: 1, 2 or 4 (`.v2`, `.v4`).
    pub words: u32,
}

impl VectorShape {
    /// Bytes per access.
    ///
    /// ```
    /// use codegen::{ptx::DataType, smem::VectorShape};
    /// assert_eq!(VectorShape { elements: 1, ty: DataType::B16, words: 1 }.bytes(), 2);
    /// ```
    pub fn bytes(&self) -> u32 {
        self.ty.bytes() * self.words
    }
}

/// One `ld/st.shared` of every thread: the byte constant of its first element (the part of
/// the address that depends on the registers, not on the thread or buffer) and, for each
/// element of the vector, the registers of the layout holding it (several when the layout
/// broadcasts registers; the first is the one stored).
///
/// ```
/// use codegen::smem::PlannedAccess;
/// let a = PlannedAccess { constant: 1024, slots: vec![vec![0], vec![1, 5]] };
/// assert_eq!(a.slots[1][0], 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlannedAccess {
    /// `E`-part of the first element in bytes, XORed onto the thread base.
    pub constant: u32,
    /// Per element of the vector (in memory order), the registers holding it.
    pub slots: Vec<Vec<usize>>,
}

/// A planned shared-memory access of a register layout through an [`AddressMap`]; emit it with
/// [`SmemPlan::emit`](SmemPlan::emit).
///
/// ```
/// use codegen::access::{Access, BufferLowering};
/// use codegen::smem::SmemPlan;
/// use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
/// // fp16 128 × 64 tile, 4 warps, 8 contiguous elements per thread, into NVMMA 128B.
/// let regs = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
///     warps_per_cta: vec![4, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[128, 64])?;
/// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
/// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[(2, 16384)])?, 16, &enc, &[128, 64])?;
/// let plan = SmemPlan::new(&map, &regs, Access::store(16), BufferLowering::Explicit)?;
/// assert_eq!((plan.threads(), plan.registers()), (128, 64));
/// assert_eq!(plan.vector().bytes(), 16); // st.shared.v4.b32
/// assert_eq!(plan.accesses().len(), 8);
/// // Threads set bits 4..=10 (16-byte chunks, 16 rows); every register constant is a
/// // multiple of 2 KiB, above them: each access is `[base+imm]`.
/// assert_eq!(plan.thread_base().span(), 0x7F0);
/// assert!(plan.accesses().iter().all(|a| a.constant % 2048 == 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SmemPlan {
    map: AddressMap,
    access: Access,
    lowering: BufferLowering,
    element_bytes: u32,
    registers: usize,
    thread_base: TidLinear,
    vector: VectorShape,
    matrix: Option<(MatrixCount, bool)>,
    accesses: Vec<PlannedAccess>,
    buffer_align_log2: u32,
    runtime_align_log2: u32,
}

impl SmemPlan {
    /// Plans `access` of the register layout `regs` (in-dims `register`, `lane`, `warp`, and
    /// optionally a size-1 `block`; out-dims the tile dims of `E`) through the shared map
    /// `map`, the buffer part lowered as `lowering`.
    ///
    /// The vector is the widest run of `2^v` consecutive elements (at most
    /// `access.max_vector_bytes`) such that the offsets `1, 2, …, 2^(v−1)` are register
    /// offsets (any GF(2) combination of register bases), no lane or warp basis touches the
    /// low `v` bits, and every buffer offset is a multiple of the vector's bytes.
    ///
    /// Errors: [`SmemError::NotShared`], [`SmemError::ElementBits`],
    /// [`SmemError::UnsupportedElementBits`], [`SmemError::VectorBytes`],
    /// [`SmemError::RegisterLayout`], [`SmemError::MisalignedBuffer`],
    /// [`SmemError::AddressTooLarge`], [`SmemError::Tlx`], and [`SmemError::Layout`] when
    /// `regs` and `E` do not compose (other dims, a larger tile).
    ///
    /// ```
    /// use codegen::access::{Access, BufferLowering};
    /// use codegen::smem::{SmemError, SmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// let smem = LinearLayout::identity_1d(64, "offset", "dim0")?;
    /// let map = AddressMap::shared(BufferMap::new(0, &[])?, 32, &smem)?;
    /// let regs = LinearLayout::from_bases(
    ///     &[("register", vec![vec![1]]), ("lane", vec![vec![2], vec![4], vec![8], vec![16], vec![32]])],
    ///     &[("dim0", 64)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.vector().words, 2); // ld.shared.v2.b32
    /// assert_eq!(SmemPlan::new(&map, &regs, Access::load(16), BufferLowering::Explicit).unwrap_err(),
    ///            SmemError::ElementBits { access: 16, map: 32 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        map: &AddressMap,
        regs: &LinearLayout,
        access: Access,
        lowering: BufferLowering,
    ) -> Result<SmemPlan, SmemError> {
        if map.space() != MemorySpace::Shared {
            return Err(SmemError::NotShared {
                space: "tensor memory",
            });
        }
        let bits = map.element_bits();
        if access.element_bits != bits {
            return Err(SmemError::ElementBits {
                access: access.element_bits,
                map: bits,
            });
        }
        if !matches!(bits, 8 | 16 | 32) {
            return Err(SmemError::UnsupportedElementBits { bits });
        }
        let element_bytes = bits / 8;
        let max_bytes = access.max_vector_bytes;
        if !max_bytes.is_power_of_two() || max_bytes < element_bytes || max_bytes > 16 {
            return Err(SmemError::VectorBytes {
                bytes: max_bytes,
                element_bytes,
            });
        }
        let hw = HardwareBases::new(regs, map.element())?;
        let (buffer_align_log2, runtime_align_log2) = buffer_alignment(map, &lowering)?;
        if buffer_align_log2 < element_bytes.trailing_zeros() {
            return Err(SmemError::MisalignedBuffer {
                element_bytes,
                what: "a buffer offset",
                value: 1 << buffer_align_log2,
            });
        }
        check_extent(map, &lowering)?;

        let shift = element_bytes.trailing_zeros();
        let to_bytes = |offsets: &[u64]| -> Result<Vec<u32>, SmemError> {
            offsets
                .iter()
                .map(|&o| {
                    o.checked_shl(shift)
                        .filter(|&b| b >> shift == o)
                        .and_then(|b| u32::try_from(b).ok())
                        .ok_or(SmemError::AddressTooLarge {
                            what: "element offset",
                            value: o,
                        })
                })
                .collect()
        };
        let mut tid_bases = to_bytes(&hw.lane)?;
        tid_bases.resize(5, 0);
        tid_bases.extend(to_bytes(&hw.warp)?);
        let thread_base = TidLinear::new(tid_bases);

        let image = register_image(&hw.register);
        let max_elements = max_bytes / element_bytes;
        let thread_low = hw.lane.iter().chain(&hw.warp).fold(0, |a, b| a | b);
        let mut elements = max_elements;
        while elements > 1 {
            let low = u64::from(elements - 1);
            let contiguous = (0..elements.trailing_zeros()).all(|j| image.contains_key(&(1 << j)));
            let vector_bytes = elements * element_bytes;
            if contiguous
                && thread_low & low == 0
                && vector_bytes.trailing_zeros() <= buffer_align_log2
            {
                break;
            }
            elements /= 2;
        }
        let vector = vector_shape(elements, element_bytes);

        let low = u64::from(elements - 1);
        let mut accesses = Vec::new();
        let mut seen: HashMap<u64, ()> = HashMap::new();
        for (_, offset) in register_offsets(&hw.register) {
            let start = offset & !low;
            if seen.insert(start, ()).is_some() {
                continue;
            }
            let slots = (0..u64::from(elements))
                .map(|j| image.get(&(start ^ j)).cloned().unwrap_or_default())
                .collect();
            let constant = to_bytes(&[start])?.first().copied().unwrap_or(0);
            accesses.push(PlannedAccess { constant, slots });
        }
        let mut plan = SmemPlan {
            map: map.clone(),
            access,
            lowering,
            element_bytes,
            registers: 1usize << hw.register.len(),
            thread_base,
            vector,
            matrix: None,
            accesses,
            buffer_align_log2,
            runtime_align_log2,
        };
        let matrix_plan = matrix::plan(
            &hw.register,
            &hw.lane,
            &hw.warp,
            element_bytes,
            buffer_align_log2,
        )
        .filter(|m| access.matrix && m.accesses.len() < plan.accesses.len());
        if let Some(m) = matrix_plan {
            plan.thread_base = TidLinear::new(to_bytes(&m.address_bases)?);
            plan.accesses = m
                .accesses
                .into_iter()
                .map(|(key, slots)| {
                    let constant = to_bytes(&[key])?.first().copied().unwrap_or(0);
                    Ok(PlannedAccess { constant, slots })
                })
                .collect::<Result<_, SmemError>>()?;
            plan.matrix = Some((m.count, m.trans));
        }
        Ok(plan)
    }

    /// The address map.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.map().element_bits(), 32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn map(&self) -> &AddressMap {
        &self.map
    }

    /// The access.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.access(), Access::load(32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn access(&self) -> Access {
        self.access
    }

    /// How the buffer part is lowered.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.lowering(), &BufferLowering::Explicit);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lowering(&self) -> &BufferLowering {
        &self.lowering
    }

    /// Bytes per element.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.element_bytes(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn element_bytes(&self) -> u32 {
        self.element_bytes
    }

    /// Threads in the CTA: 32 per warp of the register layout.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.threads(), 32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn threads(&self) -> u32 {
        self.thread_base.threads()
    }

    /// Registers per thread (the register layout's `register` size).
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.registers(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// The per-thread byte offset, a GF(2)-linear function of `%tid.x`.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.thread_base().bases(), &[16, 32, 64, 128, 256]); // lane · 16 bytes
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn thread_base(&self) -> &TidLinear {
        &self.thread_base
    }

    /// The shape of every access.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.vector().bytes(), 16); // the 4 registers are 4 consecutive elements
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vector(&self) -> VectorShape {
        self.vector
    }

    /// `Some((count, trans))` when the accesses are `ldmatrix`/`stmatrix` (then each
    /// [`PlannedAccess::slots`] lists, for matrix `j` and half `h`, slot `2j + h`, and the
    /// thread base is the address each lane supplies for its row).
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.matrix(), None); // 32-bit elements: no ldmatrix
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn matrix(&self) -> Option<(MatrixCount, bool)> {
        self.matrix
    }

    /// One entry per `ld/st.shared` each thread executes, in order of their first register.
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.accesses().len(), 1);
    /// assert_eq!(plan.accesses()[0].slots, vec![vec![0], vec![1], vec![2], vec![3]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn accesses(&self) -> &[PlannedAccess] {
        &self.accesses
    }

    /// `log2` of the largest power of two dividing every buffer offset (32 when all are 0).
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.buffer_align_log2(), 9); // the stride 512
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffer_align_log2(&self) -> u32 {
        self.buffer_align_log2
    }

    /// `log2` of the alignment of the run-time buffer part (the map's base excluded: it goes
    /// into the immediate).
    ///
    /// ```
    /// # use codegen::access::{Access, BufferLowering};
    /// # use codegen::smem::SmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
    /// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
    /// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
    /// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(32), BufferLowering::Explicit)?;
    /// assert_eq!(plan.runtime_align_log2(), 9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn runtime_align_log2(&self) -> u32 {
        self.runtime_align_log2
    }
}

/// `cvt = regs ∘ E` as element offsets per hardware bit.
struct HardwareBases {
    register: Vec<u64>,
    lane: Vec<u64>,
    warp: Vec<u64>,
}

impl HardwareBases {
    fn new(regs: &LinearLayout, element: &LinearLayout) -> Result<HardwareBases, SmemError> {
        let known = ["register", "lane", "warp", "block"];
        let bad = |reason: String| SmemError::RegisterLayout { reason };
        for (dim, size) in regs.in_dims() {
            if !known.contains(&dim.name()) {
                return Err(bad(format!(
                    "in-dim '{dim}' is not one of register, lane, warp, block"
                )));
            }
            let limit = match dim.name() {
                "block" => 1,
                "lane" | "warp" => 32,
                _ => 1 << MAX_REGISTER_BITS,
            };
            if size > limit {
                return Err(bad(format!(
                    "in-dim '{dim}' has size {size}; at most {limit}"
                )));
            }
        }
        let cvt = regs.compose(element)?;
        let bases = |name: &str| -> Result<Vec<u64>, SmemError> {
            if !cvt.has_in_dim(Dim::new(name)) {
                return Ok(Vec::new());
            }
            Ok(cvt
                .bases_of(name)?
                .into_iter()
                .map(|b| b.first().copied().unwrap_or(0))
                .collect())
        };
        Ok(HardwareBases {
            register: bases("register")?,
            lane: bases("lane")?,
            warp: bases("warp")?,
        })
    }
}

/// `(register, offset)` for every register, in order.
fn register_offsets(bases: &[u64]) -> impl Iterator<Item = (usize, u64)> + '_ {
    (0..1usize << bases.len()).map(move |r| {
        let offset = bases
            .iter()
            .enumerate()
            .filter(|(k, _)| r >> k & 1 == 1)
            .fold(0, |acc, (_, b)| acc ^ b);
        (r, offset)
    })
}

/// Offset → the registers holding it, in register order.
fn register_image(bases: &[u64]) -> HashMap<u64, Vec<usize>> {
    let mut image: HashMap<u64, Vec<usize>> = HashMap::new();
    for (r, offset) in register_offsets(bases) {
        image.entry(offset).or_default().push(r);
    }
    image
}

fn vector_shape(elements: u32, element_bytes: u32) -> VectorShape {
    let bytes = elements * element_bytes;
    match bytes {
        1 => VectorShape {
            elements,
            ty: DataType::B8,
            words: 1,
        },
        2 => VectorShape {
            elements,
            ty: DataType::B16,
            words: 1,
        },
        _ => VectorShape {
            elements,
            ty: DataType::B32,
            words: bytes / 4,
        },
    }
}

/// `tz` of a value, [`UNBOUNDED_ALIGN`] for 0.
fn align_of(v: u64) -> u32 {
    if v == 0 {
        UNBOUNDED_ALIGN
    } else {
        v.trailing_zeros().min(UNBOUNDED_ALIGN)
    }
}

/// (alignment of every buffer offset, alignment of the part a run-time index adds).
fn buffer_alignment(map: &AddressMap, lowering: &BufferLowering) -> Result<(u32, u32), SmemError> {
    match lowering {
        BufferLowering::Explicit => {
            let buffer = map.buffer();
            let runtime = buffer
                .modes()
                .iter()
                .filter(|(size, _)| *size > 1)
                .map(|&(_, stride)| align_of(stride))
                .min()
                .unwrap_or(UNBOUNDED_ALIGN);
            Ok((runtime.min(align_of(buffer.base())), runtime))
        }
        BufferLowering::TlxReindex(t) => {
            if t.rewrite.group_size == 0 {
                return Err(SmemError::Tlx {
                    param: "group_size",
                    value: 0,
                    reason: "at least 1",
                });
            }
            let a = align_of(t.unit);
            Ok((a, a))
        }
    }
}

/// Every buffer's last byte must be a 32-bit shared address.
fn check_extent(map: &AddressMap, lowering: &BufferLowering) -> Result<(), SmemError> {
    let buffer = map.buffer();
    let last_start = match lowering {
        BufferLowering::Explicit => buffer
            .modes()
            .iter()
            .try_fold(buffer.base(), |acc, &(size, stride)| {
                acc.checked_add(stride.checked_mul(size.saturating_sub(1))?)
            }),
        BufferLowering::TlxReindex(t) => {
            let bound = t.rewrite.slot_bound(buffer.num_buffers());
            bound.and_then(|s| s.checked_mul(t.unit))
        }
    };
    let end = last_start.and_then(|s| s.checked_add(map.element_span()));
    match end {
        Some(e) if e <= u64::from(u32::MAX) => Ok(()),
        _ => Err(SmemError::AddressTooLarge {
            what: "the end of the last buffer",
            value: end.unwrap_or(u64::MAX),
        }),
    }
}
