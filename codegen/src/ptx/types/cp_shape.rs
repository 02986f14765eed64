//! `tcgen05.cp` shapes ([`CpShape`]): how many shared-memory rows one copy reads, how wide,
//! and which tensor-memory lanes each row lands in.
//!
//! A copy reads `rows` rows of `bytes` bytes from the matrix its shared-memory descriptor
//! names and writes row `r` to the lanes [`CpShape::lanes_of`] gives, columns
//! `taddr.column .. + bytes / 4`, relative to the instruction's address (PTX ISA 9.7.16.9.2):
//!
//! | shape | rows × bytes | row `r` goes to lanes |
//! |---|---|---|
//! | `.128x256b` | 128 × 32 | `r` |
//! | `.128x128b` | 128 × 16 | `r` |
//! | `.64x128b.warpx2::02_13` | 64 × 16 | `r%32 + 64·(r/32)` and 32 above it (warps 0,1 hold rows 0–31, warps 2,3 rows 32–63) |
//! | `.64x128b.warpx2::01_23` | 64 × 16 | `r` and `r + 64` (warps 0,2 hold rows 0–31, warps 1,3 rows 32–63) |
//! | `.32x128b.warpx4` | 32 × 16 | `r`, `r+32`, `r+64`, `r+96` |
//!
//! `.4x256b` (sparse metadata) is not part of the subset.

use std::fmt;

/// A `tcgen05.cp` shape with its multicast qualifier.
///
/// ```
/// use codegen::ptx::CpShape;
/// assert_eq!(CpShape::S32x128bWarpx4.to_string(), "32x128b.warpx4");
/// assert_eq!(CpShape::S32x128bWarpx4.lanes_of(5), vec![5, 37, 69, 101]);
/// assert_eq!(CpShape::S64x128b0213.lanes_of(33), vec![65, 97]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpShape {
    /// `.128x256b`: 128 rows of 32 bytes, one per lane.
    S128x256b,
    /// `.128x128b`: 128 rows of 16 bytes, one per lane.
    S128x128b,
    /// `.64x128b.warpx2::02_13`: 64 rows of 16 bytes; warps 0 and 2, 1 and 3 form pairs.
    S64x128b0213,
    /// `.64x128b.warpx2::01_23`: 64 rows of 16 bytes; warps 0 and 1, 2 and 3 form pairs.
    S64x128b0123,
    /// `.32x128b.warpx4`: 32 rows of 16 bytes, copied to all four warps' lane quarters.
    S32x128bWarpx4,
}

impl CpShape {
    /// Every shape of the subset.
    pub const ALL: [CpShape; 5] = [
        CpShape::S128x256b,
        CpShape::S128x128b,
        CpShape::S64x128b0213,
        CpShape::S64x128b0123,
        CpShape::S32x128bWarpx4,
    ];

    /// The shape qualifier without the dot: `128x256b`…
    ///
    /// ```
    /// use codegen::ptx::CpShape;
    /// assert_eq!(CpShape::S64x128b0123.shape_name(), "64x128b");
    /// ```
    pub fn shape_name(self) -> &'static str {
        match self {
            CpShape::S128x256b => "128x256b",
            CpShape::S128x128b => "128x128b",
            CpShape::S64x128b0213 | CpShape::S64x128b0123 => "64x128b",
            CpShape::S32x128bWarpx4 => "32x128b",
        }
    }

    /// The multicast qualifier without the dot, if the shape has one.
    ///
    /// ```
    /// use codegen::ptx::CpShape;
    /// assert_eq!(CpShape::S64x128b0213.multicast(), Some("warpx2::02_13"));
    /// assert_eq!(CpShape::S128x128b.multicast(), None);
    /// ```
    pub fn multicast(self) -> Option<&'static str> {
        match self {
            CpShape::S128x256b | CpShape::S128x128b => None,
            CpShape::S64x128b0213 => Some("warpx2::02_13"),
            CpShape::S64x128b0123 => Some("warpx2::01_23"),
            CpShape::S32x128bWarpx4 => Some("warpx4"),
        }
    }

    /// The shape named by a shape qualifier and an optional multicast qualifier (either
    /// order in the opcode; the caller splits them).
    ///
    /// ```
    /// use codegen::ptx::CpShape;
    /// assert_eq!(CpShape::parse("32x128b", Some("warpx4")), Some(CpShape::S32x128bWarpx4));
    /// assert_eq!(CpShape::parse("32x128b", None), None); // .32x128b requires .warpx4
    /// ```
    pub fn parse(shape: &str, multicast: Option<&str>) -> Option<CpShape> {
        CpShape::ALL
            .into_iter()
            .find(|s| s.shape_name() == shape && s.multicast() == multicast)
    }

    /// Shared-memory rows one copy reads: 128, 64 or 32.
    ///
    /// ```
    /// use codegen::ptx::CpShape;
    /// assert_eq!(CpShape::S64x128b0123.rows(), 64);
    /// ```
    pub fn rows(self) -> u32 {
        match self {
            CpShape::S128x256b | CpShape::S128x128b => 128,
            CpShape::S64x128b0213 | CpShape::S64x128b0123 => 64,
            CpShape::S32x128bWarpx4 => 32,
        }
    }

    /// Bytes per row: 32 for `.128x256b`, 16 otherwise (a row fills `bytes / 4` columns).
    ///
    /// ```
    /// use codegen::ptx::CpShape;
    /// assert_eq!(CpShape::S128x256b.row_bytes(), 32);
    /// ```
    pub fn row_bytes(self) -> u32 {
        match self {
            CpShape::S128x256b => 32,
            _ => 16,
        }
    }

    /// The lanes (relative to the instruction's address) row `row` is written to, per the
    /// table in the module docs; empty for a row past [`rows`](Self::rows).
    ///
    /// ```
    /// use codegen::ptx::CpShape;
    /// assert_eq!(CpShape::S64x128b0123.lanes_of(40), vec![40, 104]);
    /// assert!(CpShape::S128x128b.lanes_of(128).is_empty());
    /// ```
    pub fn lanes_of(self, row: u32) -> Vec<u32> {
        if row >= self.rows() {
            return Vec::new();
        }
        match self {
            CpShape::S128x256b | CpShape::S128x128b => vec![row],
            CpShape::S64x128b0213 => {
                let first = row % 32 + 64 * (row / 32);
                vec![first, first + 32]
            }
            CpShape::S64x128b0123 => vec![row, row + 64],
            CpShape::S32x128bWarpx4 => vec![row, row + 32, row + 64, row + 96],
        }
    }
}

impl fmt::Display for CpShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.shape_name())?;
        if let Some(m) = self.multicast() {
            write!(f, ".{m}")?;
        }
        Ok(())
    }
}
