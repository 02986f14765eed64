//! `tcgen05.ld/st` data-movement shapes ([`TmemShape`]): which `.xN` each allows, how many
//! registers a thread passes, and which tensor-memory cell each register holds.
//!
//! The thread-to-data maps are those of the PTX ISA figures for the `.b32` forms (without
//! `.pack`/`.unpack`), with `l` the lane in the warp and `r` the register index within the
//! instruction:
//!
//! | shape | registers | (lane, column) of register `r` of lane `l` |
//! |---|---|---|
//! | 32x32b | N | (l, r) |
//! | 16x64b | N | (l/4 + 8·(l%2), (l/2)%2 + 2r) |
//! | 16x128b | 2N | (l/4 + 8·(r%2), l%4 + 4·(r/2)) |
//! | 16x256b | 4N | (l/4 + 8·((r/2)%2), r%2 + 2·(l%4) + 8·(r/4)) |
//! | 16x32bx2 | N | (l%16, r), plus the split offset for lanes 16–31 |
//!
//! `.16x32bx2` is two `.16x32b` accesses: lanes 0–15 at the address, lanes 16–31 at the address
//! plus `immHalfSplitoff` (an immediate operand, `lane << 16 | column` like any TMEM address),
//! which [`TmemShape::S16x32bx2`] carries.
//!
//! Lanes and columns are relative to the instruction's address. The `.xN` limits (N a power of
//! two, at most 128 registers) were checked against ptxas 13.5.

use std::fmt;

/// A `tcgen05.ld/st` shape.
///
/// ```
/// use codegen::ptx::TmemShape;
/// // 16x256b: 4 registers per thread per repetition, 16 lanes.
/// assert_eq!(TmemShape::S16x256b.registers_per_repeat(), 4);
/// assert_eq!(TmemShape::S16x256b.cell(5, 7), (1 + 8, 1 + 2 + 8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TmemShape {
    /// `.32x32b`: 32 lanes, one 32-bit column per repetition.
    S32x32b,
    /// `.16x64b`: 16 lanes, two columns per repetition.
    S16x64b,
    /// `.16x128b`: 16 lanes, four columns per repetition.
    S16x128b,
    /// `.16x256b`: 16 lanes, eight columns per repetition.
    S16x256b,
    /// `.16x32bx2` with its `immHalfSplitoff` (`lane << 16 | column`): 16 lanes, one column per
    /// repetition, twice — lanes 16–31 at the split offset.
    S16x32bx2(u32),
}

impl TmemShape {
    /// Every shape with no operand of its own (`.16x32bx2` needs its split offset).
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::ALL.len(), 4);
    /// ```
    pub const ALL: [TmemShape; 4] = [
        TmemShape::S32x32b,
        TmemShape::S16x64b,
        TmemShape::S16x128b,
        TmemShape::S16x256b,
    ];

    /// The shape's name without the dot: `32x32b`…
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S16x64b.name(), "16x64b");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            TmemShape::S32x32b => "32x32b",
            TmemShape::S16x64b => "16x64b",
            TmemShape::S16x128b => "16x128b",
            TmemShape::S16x256b => "16x256b",
            TmemShape::S16x32bx2(_) => "16x32bx2",
        }
    }

    /// The shape called `name` (`.16x32bx2` with split offset 0: its instruction's operand
    /// gives the offset).
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::parse("16x128b"), Some(TmemShape::S16x128b));
    /// assert_eq!(TmemShape::parse("16x32bx2"), Some(TmemShape::S16x32bx2(0)));
    /// assert_eq!(TmemShape::parse("16x32b"), None);
    /// ```
    pub fn parse(name: &str) -> Option<TmemShape> {
        TmemShape::ALL
            .into_iter()
            .chain([TmemShape::S16x32bx2(0)])
            .find(|s| s.name() == name)
    }

    /// The `immHalfSplitoff` operand of `.16x32bx2`.
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S16x32bx2(64).split(), Some(64));
    /// assert_eq!(TmemShape::S32x32b.split(), None);
    /// ```
    pub fn split(self) -> Option<u32> {
        match self {
            TmemShape::S16x32bx2(split) => Some(split),
            _ => None,
        }
    }

    /// Registers per thread per repetition: 1, 1, 2, 4.
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S16x128b.registers_per_repeat(), 2);
    /// ```
    pub fn registers_per_repeat(self) -> u32 {
        match self {
            TmemShape::S32x32b | TmemShape::S16x64b | TmemShape::S16x32bx2(_) => 1,
            TmemShape::S16x128b => 2,
            TmemShape::S16x256b => 4,
        }
    }

    /// Lanes one instruction touches: 32 or 16.
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S32x32b.lanes(), 32);
    /// ```
    pub fn lanes(self) -> u32 {
        match self {
            TmemShape::S32x32b => 32,
            _ => 16,
        }
    }

    /// The largest `.xN`: 128, 128, 64, 32 (at most 128 registers per thread).
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S16x256b.max_repeat(), 32);
    /// ```
    pub fn max_repeat(self) -> u32 {
        128 / self.registers_per_repeat()
    }

    /// The `(lane, column)` offset, relative to the instruction's address, of the 32-bit cell
    /// held by register `reg` of lane `lane` (`lane < 32`), per the table in the module docs.
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S32x32b.cell(7, 3), (7, 3));
    /// assert_eq!(TmemShape::S16x64b.cell(5, 2), (1 + 8, 4));
    /// assert_eq!(TmemShape::S16x128b.cell(6, 3), (1 + 8, 2 + 4));
    /// // 16x32bx2 split 64 columns: lane 17 holds lane 1's row, 64 columns on.
    /// assert_eq!(TmemShape::S16x32bx2(64).cell(17, 3), (1, 64 + 3));
    /// ```
    pub fn cell(self, lane: u32, reg: u32) -> (u32, u32) {
        // Wrapping arithmetic: meaningful inputs (lane < 32, reg < 128) never wrap, and
        // others must not panic.
        let (l, r) = (lane, reg);
        let m8 = |x: u32| x.wrapping_mul(8);
        match self {
            TmemShape::S32x32b => (l, r),
            TmemShape::S16x64b => (
                l / 4 + m8(l % 2),
                ((l / 2) % 2).wrapping_add(r.wrapping_mul(2)),
            ),
            TmemShape::S16x128b => (
                (l / 4).wrapping_add(m8(r % 2)),
                (l % 4).wrapping_add((r / 2).wrapping_mul(4)),
            ),
            TmemShape::S16x256b => (
                (l / 4).wrapping_add(m8((r / 2) % 2)),
                (r % 2 + 2 * (l % 4)).wrapping_add(m8(r / 4)),
            ),
            TmemShape::S16x32bx2(split) => {
                let second = (l / 16) % 2;
                (
                    (l % 16).wrapping_add(second.wrapping_mul(split >> 16)),
                    r.wrapping_add(second.wrapping_mul(split & 0xFFFF)),
                )
            }
        }
    }
}

impl fmt::Display for TmemShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
