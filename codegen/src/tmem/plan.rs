//! [`TmemPlan`]: a register layout over a TMEM [`AddressMap`] taken apart into `tcgen05.ld/st`
//! messages ([`TmemMessage`]) and per-warp offsets ([`WarpOffset`]).

use linear_layout::address::MemorySpace;
use linear_layout::families::{
    tcgen05_alloc_columns, tmem_reg_layout, Encoding, Tcgen05Atom, TensorMemory,
};
use linear_layout::{AddressMap, BufferMap, DType, LinearLayout};

use super::error::TmemError;
use crate::ptx::TmemShape;

/// A TMEM cell offset `(lane, column)`.
type Cell = (u64, u64);

/// The most 32-bit registers one thread's access can move: its warp reaches 32 lanes × 512
/// columns.
const MAX_REGISTERS: u32 = 512;

/// One `tcgen05.ld/st.<shape>.x<num>` of a [`TmemPlan`]: at `(lane, column)` from the warp's
/// address (lane 0 of its quarter, column 0 of the buffer), moving registers
/// `first_register ..+ shape.registers(num)` of the access.
///
/// ```
/// use codegen::tmem::TmemMessage;
/// let m = TmemMessage { num: 128, lane: 16, column: 8, first_register: 256 };
/// assert_eq!(m.offset(), 16 << 16 | 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TmemMessage {
    /// The `.xN`.
    pub num: u32,
    /// TMEM lane offset inside the warp's quarter: 0, or 16 for a 16-lane shape's second half.
    pub lane: u32,
    /// Column offset from the buffer's first column.
    pub column: u32,
    /// The access's register index of the message's first register.
    pub first_register: u32,
}

impl TmemMessage {
    /// The offset as a TMEM address, `lane << 16 | column`: the message's `[taddr+imm]`
    /// immediate (plus the buffer's column for a constant index).
    pub fn offset(&self) -> u32 {
        self.lane.wrapping_shl(16) | self.column
    }
}

/// What warp bit `bit` (2 and up: beyond the warpgroup) adds to a warp's TMEM address: a lane
/// offset (16: the 16-lane shapes' second half with 8 warps) or a column offset (warps splitting
/// the columns). Warps that broadcast (duplicate another warp's cells) have no entry.
///
/// ```
/// use codegen::tmem::WarpOffset;
/// assert_eq!(WarpOffset { bit: 2, lane: 16, column: 0 }.offset(), 1 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WarpOffset {
    /// The warp bit (≥ 2).
    pub bit: u32,
    /// Lane offset.
    pub lane: u32,
    /// Column offset.
    pub column: u32,
}

impl WarpOffset {
    /// `lane << 16 | column`.
    pub fn offset(&self) -> u32 {
        self.lane.wrapping_shl(16) | self.column
    }
}

/// How a register layout `register, lane, warp → dim0, dim1` moves through TMEM with one
/// `tcgen05` shape: the messages each warp issues, their offsets, and the buffer map.
///
/// [`new`](Self::new) composes the register layout with the map's element layout `E`, giving
/// the TMEM cell of every (register, lane, warp) bit, and reads the instructions off it:
///
/// * for sub-32-bit elements, the low `log2(32 / element_bits)` register bits must stay in
///   the cell (packed in one 32-bit register and column) and name independent elements;
///   element `e` of a register sits in bits `e · element_bits ..`. For 16-bit elements that
///   pins the element order (a cell holds two); for 8-bit ones the map does not record which
///   byte of a column an element occupies, so the register layout's order is taken;
/// * the next register bits and the 5 lane bits must be the shape's thread-to-data map
///   ([`TmemShape::cell`]) and then its `.xN` repetitions (columns `columns · 2^k`), up to the
///   shape's largest `.xN`;
/// * every further register bit is a message bit: one message per combination, at the XOR of
///   their cell offsets (a column, or lane 16 for the 16-lane shapes without 8 warps);
/// * warp bits 0 and 1 must be lanes 32 and 64 (warp `w` reaches lanes `32·(w%4)..+32`);
///   further warp bits become [`WarpOffset`]s.
///
/// Every basis must own its lane and column bits (so the hardware's `+` is the layout's `⊕`),
/// a warp's lanes must stay in its quarter, and the layout must reach every element. Register `k` of the access is register
/// `k - first_register` of the message that holds it; its elements are layout registers
/// `k · 32/element_bits ..`.
///
/// ```
/// use codegen::tmem::TmemPlan;
/// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
/// // FA's S = QK^T: f32 128 × 128, two buffers 128 columns apart, 32x32b, 4 warps.
/// let acc = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let s = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 32, &acc, &[128, 128])?;
/// let plan = TmemPlan::for_tensor_memory(&s, &acc, &[128, 128], Tcgen05Atom::M32x32b, 4)?;
/// assert_eq!(plan.registers(), 128);
/// assert_eq!(plan.messages().len(), 1); // one 32x32b.x128
/// assert_eq!(plan.messages()[0].num, 128);
/// assert_eq!(plan.end_column(), 256);
/// // 256 columns need two 32x32b.x128; 16x256b covers 8 columns × 16 lanes per repetition,
/// // so .x32 reaches 256 columns and a second message takes lanes 16..31.
/// let wide = TensorMemory { block_n: 256, ..acc };
/// let o = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &wide, &[128, 256])?;
/// let at = |atom| -> Result<Vec<(u32, u32, u32)>, codegen::tmem::TmemError> {
///     let p = TmemPlan::for_tensor_memory(&o, &wide, &[128, 256], atom, 4)?;
///     Ok(p.messages().iter().map(|m| (m.num, m.lane, m.column)).collect())
/// };
/// assert_eq!(at(Tcgen05Atom::M32x32b)?, [(128, 0, 0), (128, 0, 128)]);
/// assert_eq!(at(Tcgen05Atom::M16x256b)?, [(32, 0, 0), (32, 16, 0)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmemPlan {
    atom: Tcgen05Atom,
    shape: TmemShape,
    element_bits: u32,
    num_warps: u32,
    registers: u32,
    messages: Vec<TmemMessage>,
    warp_offsets: Vec<WarpOffset>,
    buffer: BufferMap,
    span: u64,
    layout: LinearLayout,
    /// Unpacked 16-bit TMEM moved with `.pack::16b` / `.unpack::16b`.
    halves: bool,
}

/// The `tcgen05` shape of an atom.
///
/// ```
/// use codegen::{ptx::TmemShape, tmem::shape_of};
/// use linear_layout::families::Tcgen05Atom;
/// assert_eq!(shape_of(Tcgen05Atom::M16x64b), TmemShape::S16x64b);
/// ```
pub fn shape_of(atom: Tcgen05Atom) -> TmemShape {
    match atom {
        Tcgen05Atom::M32x32b => TmemShape::S32x32b,
        Tcgen05Atom::M16x64b => TmemShape::S16x64b,
        Tcgen05Atom::M16x128b => TmemShape::S16x128b,
        Tcgen05Atom::M16x256b => TmemShape::S16x256b,
    }
}

/// The shape's cell for lane `l`, register `r`, as `u64`s.
fn cell(shape: TmemShape, l: u32, r: u32) -> Cell {
    let (lane, column) = shape.cell(l, r);
    (u64::from(lane), u64::from(column))
}

fn xor(a: Cell, b: Cell) -> Cell {
    (a.0 ^ b.0, a.1 ^ b.1)
}

fn to_u32(v: u64) -> Result<u32, TmemError> {
    u32::try_from(v).map_err(|_| TmemError::Immediate { value: v })
}

/// The in-dim's bases as cells (`lane`, `column` components picked by name).
fn cells(
    cvt: &LinearLayout,
    dim: &'static str,
    at: (usize, usize),
) -> Result<Vec<Cell>, TmemError> {
    Ok(cvt
        .bases_of(dim)?
        .into_iter()
        .map(|b| {
            (
                b.get(at.0).copied().unwrap_or(0),
                b.get(at.1).copied().unwrap_or(0),
            )
        })
        .collect())
}

/// The number of packing bits, `log2(32 / element_bits)`, after checking that those low
/// register bits stay in one cell (`regs`: the composed cells) and name independent elements
/// (`layout`'s coordinates).
fn check_packing(
    layout: &LinearLayout,
    regs: &[Cell],
    element_bits: u32,
) -> Result<u32, TmemError> {
    let pack = 32u32
        .checked_div(element_bits)
        .unwrap_or(1)
        .max(1)
        .trailing_zeros();
    for bit in 0..pack {
        let c = regs.get(bit as usize).copied().unwrap_or((0, 0));
        if c != (0, 0) || regs.len() < pack as usize {
            return Err(TmemError::Packing {
                element_bits,
                expected: pack,
                bit,
                lane: c.0,
                column: c.1,
            });
        }
    }
    let packed = layout.bases_of("register")?;
    let mut span: Vec<Vec<u64>> = Vec::new();
    for (bit, coords) in (0u32..).zip(packed.iter().take(pack as usize)) {
        if !independent_of(&span, coords) {
            return Err(TmemError::PackedElements { bit });
        }
        span.push(coords.clone());
    }
    Ok(pack)
}

/// The shape that moves `atom`'s tile: the atom's own, or for `32x32b` whose lane 16 does not
/// reach TMEM lane 16 (a 64-lane layout: lanes 16–31 take other cells of lanes 0–15's rows),
/// `.16x32bx2` with that cell as its split offset, as Triton's `getTMemLdStEncodingInfo` picks
/// it. A split of zero (lanes 16–31 repeating lanes 0–15) is refused, as Triton refuses it
/// outside scale layouts (ptxas mishandles it).
/// The split is a TMEM address, in real columns: with `.pack::16b` (cells in column pairs,
/// `halves`) its column is doubled back.
fn shape_for(atom: Tcgen05Atom, lanes: &[Cell], halves: bool) -> TmemShape {
    let first16 = [(1, 0), (2, 0), (4, 0), (8, 0)];
    match (atom, lanes) {
        (Tcgen05Atom::M32x32b, [a, b, c, d, split])
            if [*a, *b, *c, *d] == first16
                && *split != (16, 0)
                && *split != (0, 0)
                && split.0 < 16
                && split.1 < 1 << 15 =>
        {
            let column = if halves { 2 * split.1 } else { split.1 };
            TmemShape::S16x32bx2((split.0 << 16 | column) as u32)
        }
        _ => shape_of(atom),
    }
}

/// Checks the 5 lane bits and the first `log2(registers_per_repeat)` register bits (after
/// packing) against the thread-to-data map of `shape`, which moves `atom`'s tile.
fn check_atom(
    atom: Tcgen05Atom,
    shape: TmemShape,
    lanes: &[Cell],
    regs: &[Cell],
) -> Result<(), TmemError> {
    let mismatch = |dim, bit: u32, expected: Cell, found: Option<Cell>| {
        let hint = if atom == Tcgen05Atom::M32x32b && dim == "lane" && bit == 4 {
            " — lanes 16..31 repeat the cells of lanes 0..15 (.16x32bx2 with a zero split, \
             which ptxas mishandles and Triton refuses outside scale layouts)"
                .to_string()
        } else {
            String::new()
        };
        TmemError::AtomMismatch {
            atom,
            dim,
            bit,
            expected,
            found,
            hint,
        }
    };
    for (bit, &found) in (0u32..).zip(lanes) {
        let expected = cell(shape, 1 << bit, 0);
        if found != expected {
            return Err(mismatch("lane", bit, expected, Some(found)));
        }
    }
    for bit in 0..shape.registers_per_repeat().trailing_zeros() {
        let expected = cell(shape, 0, 1 << bit);
        let found = regs.get(bit as usize).copied();
        if found != Some(expected) {
            return Err(mismatch("register", bit, expected, found));
        }
    }
    Ok(())
}

/// Warp bits 0 and 1 must reach lanes 32 and 64 (warp `w` owns lanes `32·(w%4)..+32`).
fn check_quarters(warps: &[Cell]) -> Result<(), TmemError> {
    for (bit, expected) in [(0u32, 32u64), (1, 64)] {
        let found = warps.get(bit as usize).copied().unwrap_or((0, 0));
        if found != (expected, 0) {
            return Err(TmemError::WarpQuarter {
                bit,
                expected,
                lane: found.0,
                column: found.1,
            });
        }
    }
    Ok(())
}

/// Whether `v` is outside the GF(2) span of `span` (all vectors of one length, small sets).
fn independent_of(span: &[Vec<u64>], v: &[u64]) -> bool {
    (0u64..1 << span.len().min(16)).all(|mask| {
        let combo = (0u32..)
            .zip(span)
            .filter(|(k, _)| mask >> k & 1 == 1)
            .fold(vec![0u64; v.len()], |acc, (_, b)| {
                acc.iter().zip(b).map(|(x, y)| x ^ y).collect()
            });
        combo != v
    })
}

/// Checks that the components picked by `part` own their bits; returns their OR.
fn disjoint(all: &[Cell], part: fn(&Cell) -> u64, what: &'static str) -> Result<u64, TmemError> {
    let mut seen = 0u64;
    for c in all {
        let v = part(c);
        if seen & v != 0 {
            return Err(TmemError::Overlap {
                what,
                overlap: seen & v,
            });
        }
        seen |= v;
    }
    Ok(seen)
}

impl TmemPlan {
    /// Plans `layout` (`register, lane, warp[, block]` → the map's coordinates, e.g. from
    /// [`tmem_reg_layout`]) over `map` with `atom`'s shape; see the type docs for the rules.
    ///
    /// Errors: [`TmemError::NotTensorMemory`]; [`TmemError::NotSurjective`] (some element is
    /// moved by no register); [`TmemError::RegisterDims`] (a missing
    /// `register`/`lane`/`warp`, not 32 lanes, fewer than 4 warps, a `block` of more than one
    /// CTA); composition errors ([`TmemError::Layout`]); [`TmemError::Packing`],
    /// [`TmemError::PackedElements`], [`TmemError::Registers`],
    /// [`TmemError::AtomMismatch`], [`TmemError::RepeatedCell`], [`TmemError::WarpQuarter`],
    /// [`TmemError::Overlap`], [`TmemError::LaneRange`] when the layout is not one this shape
    /// moves.
    ///
    /// ```
    /// use codegen::tmem::{TmemError, TmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{tmem_reg_layout, Tcgen05Atom, TensorMemory}};
    /// let acc = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &acc, &[128, 64])?;
    /// let regs = tmem_reg_layout(linear_layout::DType::F32, &[128, 64], &[128, 64], &acc.clone().into(), 4, Tcgen05Atom::M16x64b)?;
    /// let plan = TmemPlan::new(&map, &regs, Tcgen05Atom::M16x64b)?;
    /// // 64 columns = 32 repetitions of 2; the register after them is lane 16: two messages.
    /// assert_eq!(plan.messages().iter().map(|m| (m.num, m.lane)).collect::<Vec<_>>(), [(32, 0), (32, 16)]);
    /// // The same layout is not a 32x32b one.
    /// assert!(matches!(TmemPlan::new(&map, &regs, Tcgen05Atom::M32x32b), Err(TmemError::AtomMismatch { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        map: &AddressMap,
        layout: &LinearLayout,
        atom: Tcgen05Atom,
    ) -> Result<TmemPlan, TmemError> {
        if map.space() != MemorySpace::TensorMemory {
            return Err(TmemError::NotTensorMemory);
        }
        for dim in ["register", "lane", "warp"] {
            if !layout.has_in_dim(dim) {
                return Err(TmemError::RegisterDims {
                    dim,
                    expected: "(register, lane, warp)",
                    found: "none".into(),
                });
            }
        }
        if layout.has_in_dim("block") && layout.in_dim_size("block")? > 1 {
            return Err(TmemError::RegisterDims {
                dim: "block",
                expected: "of size 1 (one CTA's tensor memory)",
                found: format!("size {}", layout.in_dim_size("block")?),
            });
        }
        let cvt = layout.compose(map.element())?;
        let names = cvt.out_dim_names();
        let pos = |name: &str| names.iter().position(|d| d.to_string() == name);
        let at = (pos("lane").unwrap_or(0), pos("column").unwrap_or(1));
        let regs = cells(&cvt, "register", at)?;
        let lanes = cells(&cvt, "lane", at)?;
        let warps = cells(&cvt, "warp", at)?;
        // Unpacked 16-bit TMEM (one element per column): a register's two elements sit in
        // adjacent columns, which `.pack::16b` / `.unpack::16b` move as one register. Work in
        // column pairs; the columns are doubled back at the end.
        let halves = map.element_bits() == 16
            && regs.first() == Some(&(0, 1))
            && regs
                .iter()
                .skip(1)
                .chain(&lanes)
                .chain(&warps)
                .all(|c| c.1 % 2 == 0);
        let pairs = |v: Vec<Cell>| -> Vec<Cell> {
            if halves {
                v.into_iter().map(|(l, c)| (l, c >> 1)).collect()
            } else {
                v
            }
        };
        let (regs, lanes, warps) = (pairs(regs), pairs(lanes), pairs(warps));
        let columns = |c: u64| if halves { 2 * c } else { c };
        if lanes.len() != 5 {
            return Err(TmemError::RegisterDims {
                dim: "lane",
                expected: "of size 32",
                found: format!("size 2^{}", lanes.len()),
            });
        }
        if !(2..=5).contains(&warps.len()) {
            return Err(TmemError::RegisterDims {
                dim: "warp",
                expected: "of size 4 to 32 (a warpgroup covers the 128 lanes; a CTA has 32 warps)",
                found: format!("size 2^{}", warps.len()),
            });
        }
        let shape = shape_for(atom, &lanes, halves);
        // The cells are in column pairs with `halves`: check them against the split in pairs.
        let pair_shape = shape_for(atom, &lanes, false);
        let element_bits = map.element_bits();
        let pack = check_packing(layout, &regs, element_bits)?;
        let regs = regs.get(pack as usize..).unwrap_or(&[]);
        if let Some(bit) = regs.iter().position(|c| *c == (0, 0)) {
            return Err(TmemError::RepeatedCell { bit: bit as u32 });
        }
        check_atom(atom, pair_shape, &lanes, regs)?;
        let per_repeat = shape.registers_per_repeat();
        let atom_bits = per_repeat.trailing_zeros();
        let rest = regs.get(atom_bits as usize..).unwrap_or(&[]);
        let max_repeat_bits = shape.max_repeat().trailing_zeros();
        let repeat_bits = (0..max_repeat_bits)
            .take_while(|&k| rest.get(k as usize) == Some(&cell(shape, 0, per_repeat << k)))
            .count();
        let message_bits = rest.get(repeat_bits..).unwrap_or(&[]);
        check_quarters(&warps)?;
        let extra = warps.get(2..).unwrap_or(&[]);
        let mut all: Vec<Cell> = regs.to_vec();
        all.extend(&lanes);
        all.extend(extra.iter().filter(|c| **c != (0, 0)));
        let max_lane = disjoint(&all, |c| c.0, "lane")?;
        if max_lane >= 32 {
            return Err(TmemError::LaneRange { max_lane });
        }
        let max_column = disjoint(&all, |c| c.1, "column")?;
        let num = 1u32 << repeat_bits;
        let per_message = per_repeat << repeat_bits;
        // A warp reaches 32 lanes × 512 columns, so a thread holds at most 512 distinct cells.
        let registers = u32::try_from(message_bits.len())
            .ok()
            .and_then(|bits| per_message.checked_shl(bits))
            .filter(|&r| r <= MAX_REGISTERS)
            .ok_or(TmemError::Registers {
                log2: per_message.trailing_zeros() as usize + message_bits.len(),
            })?;
        if !layout.is_surjective() {
            return Err(TmemError::NotSurjective {
                rank: layout.rank(),
                bits: layout.total_out_dim_size_log2(),
            });
        }
        let messages = (0..registers / per_message)
            .map(|m| {
                let (lane, column) = (0u32..)
                    .zip(message_bits)
                    .filter(|(k, _)| m >> k & 1 == 1)
                    .fold((0, 0), |acc, (_, c)| xor(acc, *c));
                Ok(TmemMessage {
                    num,
                    lane: to_u32(lane)?,
                    column: to_u32(columns(column))?,
                    first_register: m * per_message,
                })
            })
            .collect::<Result<Vec<_>, TmemError>>()?;
        let warp_offsets = (2u32..)
            .zip(extra)
            .filter(|(_, c)| **c != (0, 0))
            .map(|(bit, c)| {
                Ok(WarpOffset {
                    bit,
                    lane: to_u32(c.0)?,
                    column: to_u32(columns(c.1))?,
                })
            })
            .collect::<Result<Vec<_>, TmemError>>()?;
        Ok(TmemPlan {
            atom,
            shape,
            element_bits,
            num_warps: 1 << warps.len(),
            registers,
            messages,
            warp_offsets,
            buffer: map.buffer().clone(),
            span: columns(max_column + 1),
            halves,
            layout: layout.clone(),
        })
    }

    /// [`new`](Self::new) with Gluon's register layout for the allocation: `tmem_reg_layout(
    /// dtype, shape, shape, tmem, num_warps, atom)` with the map's element size. `map` should be built from the
    /// same `tmem` and `shape`. Errors: those of [`tmem_reg_layout`] and of [`new`](Self::new).
    ///
    /// ```
    /// use codegen::tmem::TmemPlan;
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// // FA's P: bf16 128 × 64 packed two to a column, 4 subtiles at columns 0, 32, 128, 160.
    /// let tm = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let p = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 32), (2, 128)])?, 16, &tm, &[128, 64])?;
    /// let plan = TmemPlan::for_tensor_memory(&p, &tm, &[128, 64], Tcgen05Atom::M32x32b, 4)?;
    /// assert_eq!(plan.registers(), 32); // 64 bf16 per thread in 32 registers
    /// assert_eq!(plan.end_column(), 192);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_tensor_memory(
        map: &AddressMap,
        tmem: &TensorMemory,
        shape: &[u64],
        atom: Tcgen05Atom,
        num_warps: u32,
    ) -> Result<TmemPlan, TmemError> {
        let dtype = DType::of_bits(map.element_bits())?;
        let layout = tmem_reg_layout(
            dtype,
            shape,
            shape,
            &Encoding::TensorMemory(tmem.clone()),
            num_warps,
            atom,
        )?;
        TmemPlan::new(map, &layout, atom)
    }

    /// The atom.
    ///
    /// ```
    /// # use codegen::tmem::TmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// # let tm = TensorMemory { block_m: 128, block_n: 32, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// # let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &tm, &[128, 32])?;
    /// let plan = TmemPlan::for_tensor_memory(&map, &tm, &[128, 32], Tcgen05Atom::M16x128b, 4)?;
    /// assert_eq!(plan.atom(), Tcgen05Atom::M16x128b);
    /// assert_eq!(plan.shape().name(), "16x128b");
    /// assert_eq!((plan.element_bits(), plan.num_warps()), (32, 4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn atom(&self) -> Tcgen05Atom {
        self.atom
    }

    /// Whether the messages are `.pack::16b` loads / `.unpack::16b` stores: 16-bit elements
    /// one per TMEM column (`col_stride = 2`), two per register.
    ///
    /// ```
    /// use codegen::tmem::TmemPlan;
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 64, col_stride: 2, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 16, &tm, &[128, 64])?;
    /// let plan = TmemPlan::for_tensor_memory(&map, &tm, &[128, 64], Tcgen05Atom::M32x32b, 4)?;
    /// assert!(plan.halves());
    /// assert_eq!(plan.registers(), 32); // 64 elements, two per register
    /// assert_eq!(plan.end_column(), 64); // one column each
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn halves(&self) -> bool {
        self.halves
    }

    /// The PTX shape of [`atom`](Self::atom).
    pub fn shape(&self) -> TmemShape {
        self.shape
    }

    /// The element width of the map.
    pub fn element_bits(&self) -> u32 {
        self.element_bits
    }

    /// Warps in the CTA (the register layout's `warp` size).
    pub fn num_warps(&self) -> u32 {
        self.num_warps
    }

    /// 32-bit registers per thread the access moves.
    ///
    /// ```
    /// # use codegen::tmem::TmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// # let tm = TensorMemory { block_m: 128, block_n: 32, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// # let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &tm, &[128, 32])?;
    /// // 8 warps: the 16-lane shapes give rows 16..31 to warps 4..7, halving the registers.
    /// let plan = TmemPlan::for_tensor_memory(&map, &tm, &[128, 32], Tcgen05Atom::M16x128b, 8)?;
    /// assert_eq!(plan.registers(), 16);
    /// assert_eq!(plan.warp_offsets()[0].lane, 16);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn registers(&self) -> u32 {
        self.registers
    }

    /// The messages, in register order.
    pub fn messages(&self) -> &[TmemMessage] {
        &self.messages
    }

    /// What warp bits 2 and up add to a warp's address (broadcasting bits omitted).
    pub fn warp_offsets(&self) -> &[WarpOffset] {
        &self.warp_offsets
    }

    /// The map's buffer part (32-bit columns).
    pub fn buffer(&self) -> &BufferMap {
        &self.buffer
    }

    /// The register layout the plan moves (`register, lane, warp → coordinates`).
    pub fn layout(&self) -> &LinearLayout {
        &self.layout
    }

    /// One past the largest column any buffer's access touches:
    /// `base + Σ stride·(size − 1)` plus the columns one buffer's access spans.
    ///
    /// ```
    /// # use codegen::tmem::TmemPlan;
    /// # use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 1, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// // FA's alpha: one f32 column at 64 + 128·i.
    /// let alpha = AddressMap::tensor_memory(BufferMap::new(64, &[(2, 128)])?, 32, &tm, &[128, 1])?;
    /// let plan = TmemPlan::for_tensor_memory(&alpha, &tm, &[128, 1], Tcgen05Atom::M32x32b, 4)?;
    /// assert_eq!(plan.end_column(), 193);
    /// assert_eq!(plan.alloc_columns()?, 256);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn end_column(&self) -> u64 {
        let last = self.buffer.modes().iter().fold(0u64, |acc, &(s, d)| {
            acc.saturating_add(d.saturating_mul(s.saturating_sub(1)))
        });
        self.buffer
            .base()
            .saturating_add(last)
            .saturating_add(self.span)
    }

    /// The `tcgen05.alloc` column count for this plan alone:
    /// [`tcgen05_alloc_columns`] of [`end_column`](Self::end_column). Errors: more than 512
    /// columns ([`TmemError::Layout`]).
    pub fn alloc_columns(&self) -> Result<u32, TmemError> {
        alloc_columns(&[self])
    }
}

/// The `tcgen05.alloc` column count covering every plan: the smallest power of two ≥ 32 at
/// least the largest [`TmemPlan::end_column`] (32 for no plans). Errors: more than 512
/// columns ([`TmemError::Layout`]).
///
/// ```
/// use codegen::tmem::{alloc_columns, TmemPlan};
/// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
/// let tm = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let one = AddressMap::tensor_memory(BufferMap::new(0, &[(3, 128)])?, 32, &tm, &[128, 128])?;
/// let plan = TmemPlan::for_tensor_memory(&one, &tm, &[128, 128], Tcgen05Atom::M32x32b, 4)?;
/// assert_eq!(alloc_columns(&[&plan])?, 512);
/// let five = AddressMap::tensor_memory(BufferMap::new(0, &[(5, 128)])?, 32, &tm, &[128, 128])?;
/// let plan = TmemPlan::for_tensor_memory(&five, &tm, &[128, 128], Tcgen05Atom::M32x32b, 4)?;
/// assert!(alloc_columns(&[&plan]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn alloc_columns(plans: &[&TmemPlan]) -> Result<u32, TmemError> {
    let end = plans.iter().map(|p| p.end_column()).max().unwrap_or(0);
    let end = u32::try_from(end).unwrap_or(u32::MAX).max(1);
    Ok(tcgen05_alloc_columns(end)?)
}
