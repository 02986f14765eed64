//! [`DType`]: the element types a tensor or allocation can hold, named as Triton, TLX and MLIR
//! name them, with their sizes.

use std::fmt;
use std::str::FromStr;

use crate::LayoutError;

/// An element type of `local_alloc`, named as TLX/Triton name it (`f32`, `bf16`, `fp8e4nv`…).
///
/// ```
/// use linear_layout::DType;
/// assert_eq!("bf16".parse::<DType>()?.bits(), 16);
/// assert_eq!(DType::F4.bits(), 4);
/// assert_eq!(DType::Ptr.bits(), 64); // pointers count as 64-bit
/// assert_eq!(DType::F8E4M3.mlir(), "f8E4M3FN");
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// `f64` (`fp64`, `float64`).
    F64,
    /// `f32` (`fp32`, `float32`).
    F32,
    /// `f16` (`fp16`, `float16`).
    F16,
    /// `bf16` (`bfloat16`).
    BF16,
    /// `fp8e4nv` / `f8E4M3FN`.
    F8E4M3,
    /// `fp8e5` / `f8E5M2`.
    F8E5M2,
    /// `fp4` / `f4E2M1FN` (sub-byte).
    F4,
    /// `i64`.
    I64,
    /// `i32`.
    I32,
    /// `i16`.
    I16,
    /// `i8`.
    I8,
    /// Sub-byte integer.
    I4,
    /// Booleans: one bit per element.
    I1,
    /// A global-memory pointer (64-bit).
    Ptr,
    /// `ui8` (`uint8`): TLX's E8M0 scale bytes.
    U8,
    /// `ui16` (`uint16`).
    U16,
    /// `ui32` (`uint32`).
    U32,
    /// `ui64` (`uint64`).
    U64,
    /// `i128`.
    I128,
    /// `ui128`: a cluster-launch-control response (`clc_context`).
    U128,
}

const ALL: [(DType, &str, &str); 20] = [
    (DType::F64, "f64", "f64"),
    (DType::F32, "f32", "f32"),
    (DType::F16, "f16", "f16"),
    (DType::BF16, "bf16", "bf16"),
    (DType::F8E4M3, "f8e4m3", "f8E4M3FN"),
    (DType::F8E5M2, "f8e5m2", "f8E5M2"),
    (DType::F4, "f4", "f4E2M1FN"),
    (DType::I64, "i64", "i64"),
    (DType::I32, "i32", "i32"),
    (DType::I16, "i16", "i16"),
    (DType::I8, "i8", "i8"),
    (DType::I4, "i4", "i4"),
    (DType::I1, "i1", "i1"),
    (DType::Ptr, "ptr", "!tt.ptr<f16>"),
    (DType::U8, "u8", "ui8"),
    (DType::U16, "u16", "ui16"),
    (DType::U32, "u32", "ui32"),
    (DType::U64, "u64", "ui64"),
    (DType::I128, "i128", "i128"),
    (DType::U128, "u128", "ui128"),
];

/// Other spellings users write: Triton's `tl.float8e4nv`, `fp16`, `float32`…
const ALIASES: [(&str, DType); 26] = [
    ("fp64", DType::F64),
    ("float64", DType::F64),
    ("fp32", DType::F32),
    ("float32", DType::F32),
    ("fp16", DType::F16),
    ("float16", DType::F16),
    ("bfloat16", DType::BF16),
    ("fp8e4nv", DType::F8E4M3),
    ("float8e4nv", DType::F8E4M3),
    ("fp8e5", DType::F8E5M2),
    ("float8e5", DType::F8E5M2),
    ("fp4", DType::F4),
    ("int1", DType::I1),
    ("int8", DType::I8),
    ("int16", DType::I16),
    ("int32", DType::I32),
    ("int64", DType::I64),
    ("uint8", DType::U8),
    ("uint16", DType::U16),
    ("uint32", DType::U32),
    ("uint64", DType::U64),
    // The other 8-bit float encodings MLIR prints: sized (and placed) as the two above.
    ("f8E4M3FNUZ", DType::F8E4M3),
    ("f8E4M3B11FNUZ", DType::F8E4M3),
    ("f8E4M3", DType::F8E4M3),
    ("f8E5M2FNUZ", DType::F8E5M2),
    ("fp8e4b15", DType::F8E4M3),
];

impl DType {
    /// Bits per element (pointers: 64).
    pub fn bits(self) -> u32 {
        match self {
            DType::I128 | DType::U128 => 128,
            DType::F64 | DType::I64 | DType::U64 | DType::Ptr => 64,
            DType::F32 | DType::I32 | DType::U32 => 32,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 16,
            DType::F8E4M3 | DType::F8E5M2 | DType::I8 | DType::U8 => 8,
            DType::F4 | DType::I4 => 4,
            DType::I1 => 1,
        }
    }

    /// The unsigned integer type of `bits` bits (`i1`, `i4` and `u8`…`u128`), for APIs that
    /// only read an element's size. Errors: no such width ([`LayoutError::UnknownDType`]).
    ///
    /// ```
    /// use linear_layout::DType;
    /// assert_eq!(DType::of_bits(16)?, DType::U16);
    /// assert!(DType::of_bits(12).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn of_bits(bits: u32) -> Result<DType, LayoutError> {
        match bits {
            1 => Ok(DType::I1),
            4 => Ok(DType::I4),
            8 => Ok(DType::U8),
            16 => Ok(DType::U16),
            32 => Ok(DType::U32),
            64 => Ok(DType::U64),
            128 => Ok(DType::U128),
            _ => Err(LayoutError::UnknownDType {
                name: format!("a {bits}-bit element"),
            }),
        }
    }

    /// Bytes per element rounded up (`ceil(bits / 8)`), TLX's `eb`.
    pub fn bytes_ceil(self) -> u64 {
        u64::from(self.bits()).div_ceil(8)
    }

    /// Whether this is an 8-bit float (TMEM keeps a real layout for those, a dummy one for other
    /// sub-16-bit types).
    pub fn is_fp8(self) -> bool {
        matches!(self, DType::F8E4M3 | DType::F8E5M2)
    }

    /// The MLIR element type (`bf16`, `f8E4M3FN`, `!tt.ptr<f16>`…).
    pub fn mlir(self) -> &'static str {
        ALL.iter()
            .find(|(d, _, _)| *d == self)
            .map_or("?", |(_, _, m)| m)
    }

    /// The short name this crate prints (`f32`, `f8e4m3`, `ptr`…).
    pub fn name(self) -> &'static str {
        ALL.iter()
            .find(|(d, _, _)| *d == self)
            .map_or("?", |(_, n, _)| n)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = LayoutError;

    fn from_str(s: &str) -> Result<Self, LayoutError> {
        let t = s.trim();
        let t = t.strip_prefix("tl.").unwrap_or(t);
        if t.starts_with("!tt.ptr<") && t.ends_with('>') {
            // A pointer of any pointee and address space is 64 bits.
            return Ok(DType::Ptr);
        }
        ALL.iter()
            .find(|(_, n, m)| *n == t || *m == t)
            .map(|(d, _, _)| *d)
            .or_else(|| ALIASES.iter().find(|(a, _)| *a == t).map(|(_, d)| *d))
            .ok_or_else(|| LayoutError::UnknownDType {
                name: s.to_string(),
            })
    }
}
