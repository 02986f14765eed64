//! [`MemDesc`]: the type `!ttg.memdesc<2x128x64xbf16, #shared, #smem, mutable[, 2x128x128]>`
//! of a shared- or tensor-memory buffer, and what an allocation of that type is in a
//! [`Program`](crate::Program): buffers, tile, element type, storage and layout.

use std::fmt;

use linear_layout::families::{Encoding, SharedEncoding, SwizzledShared};
use linear_layout::mlir::lexer;
use linear_layout::LayoutError;

use crate::{AllocLayout, CtaMode, DType, Storage};
use linear_layout::text::aliases::Aliases;

/// A memdesc type as written, with its attribute aliases resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemDesc {
    /// The dims (`[2, 128, 64]`).
    pub shape: Vec<u64>,
    /// The element type as MLIR prints it (`bf16`, `f8E4M3FN`, `ui8`, `i64`).
    pub element: String,
    /// The encoding as written (`#shared` or an inline attribute).
    pub encoding: String,
    /// The encoding with aliases resolved.
    pub encoding_text: String,
    /// The memory space as written (`#smem`, `#ttng.tensor_memory`).
    pub space: String,
    /// The memory space with aliases resolved.
    pub space_text: String,
    /// `mutable`.
    pub mutable: bool,
    /// The allocation shape of a view (`…, mutable, 2x128x128>`), if printed.
    pub alloc_shape: Option<Vec<u64>>,
}

/// `AxBxC` → `[A, B, C]`.
fn dims(text: &str) -> Option<Vec<u64>> {
    text.split('x').map(|d| d.trim().parse().ok()).collect()
}

impl MemDesc {
    /// Parses the text between `!ttg.memdesc<` and its `>`.
    ///
    /// ```
    /// use alias_alloc::mlir::MemDesc;
    /// let m = MemDesc::parse("2x128x1xf32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>, #ttng.tensor_memory, mutable")?;
    /// assert_eq!((m.shape.as_slice(), m.element.as_str(), m.mutable), (&[2, 128, 1][..], "f32", true));
    /// assert_eq!(m.storage()?, alias_alloc::Storage::Tmem);
    /// # Ok::<(), String>(())
    /// ```
    pub fn parse(body: &str) -> Result<MemDesc, String> {
        Self::parse_with(body, &Aliases::default())
    }

    pub(crate) fn parse_with(body: &str, aliases: &Aliases) -> Result<MemDesc, String> {
        let parts = lexer::split_top_level(body).map_err(|e| e.to_string())?;
        let (first, rest) = parts
            .split_first()
            .ok_or_else(|| "an empty memdesc".to_string())?;
        let cut = first
            .rfind('x')
            .filter(|&i| first.get(..i).is_some_and(|d| dims(d).is_some()))
            .ok_or_else(|| format!("'{first}' is not SHAPExELEMENT (e.g. 2x128x64xbf16)"))?;
        let shape = dims(first.get(..cut).unwrap_or("")).unwrap_or_default();
        let element = first.get(cut + 1..).unwrap_or("").trim().to_string();
        let (encoding, space) = match rest {
            [enc, space, ..] => (enc.to_string(), space.to_string()),
            _ => return Err("a memdesc needs an encoding and a memory space".into()),
        };
        let mut mutable = false;
        let mut alloc_shape = None;
        for extra in rest.get(2..).unwrap_or_default() {
            if *extra == "mutable" {
                mutable = true;
            } else if let Some(d) = dims(extra) {
                alloc_shape = Some(d);
            } else {
                return Err(format!(
                    "unexpected '{extra}' in a memdesc (expected mutable or an allocation shape)"
                ));
            }
        }
        Ok(MemDesc {
            shape,
            element,
            encoding_text: aliases.resolve(&encoding),
            encoding,
            space_text: aliases.resolve(&space),
            space,
            mutable,
            alloc_shape,
        })
    }

    /// The storage its memory space names.
    pub fn storage(&self) -> Result<Storage, String> {
        match self.space_text.as_str() {
            "#ttg.shared_memory" => Ok(Storage::Smem),
            "#ttng.tensor_memory" => Ok(Storage::Tmem),
            "#ttng.shared_cluster_memory" => Ok(Storage::SmemCluster),
            other => Err(format!(
                "memory space '{other}' is not shared or tensor memory"
            )),
        }
    }

    /// The element type.
    pub fn dtype(&self) -> Result<DType, String> {
        self.element.parse::<DType>().map_err(|e| e.to_string())
    }

    /// Buffers and the shape of one: TLX's `[num] + shape`. The leading dim counts buffers —
    /// of one element each for a 1-D memdesc (a barrier array `3xi64`, which Triton's verifier
    /// lets be any size, as it lets every leading dim) — except in a 2-D tensor-memory memdesc,
    /// which has no buffer dim.
    pub fn buffers(&self) -> (u64, Vec<u64>) {
        match self.shape.as_slice() {
            [m, n] if self.storage() == Ok(Storage::Tmem) => (1, vec![*m, *n]),
            [n] => (*n, vec![1]),
            [n, tile @ ..] => (*n, tile.to_vec()),
            [] => (1, vec![]),
        }
    }

    /// Whether the leading dim counts buffers (see [`MemDesc::buffers`]).
    pub fn has_buffer_dim(&self) -> bool {
        !(self.shape.len() == 2 && self.storage() == Ok(Storage::Tmem))
    }

    /// The allocation layout its encoding gives. TLX's `ctaMode = twocta_lhs|twocta_rhs` key of
    /// `#ttng.tensor_memory_encoding` becomes the [`CtaMode`]; `#tlx.dummy_tmem_layout<>` is
    /// [`AllocLayout::DummyTmem`].
    ///
    /// Errors: the [`LayoutError`] of the attribute (its parse or its family's checks), or
    /// [`LayoutError::InvalidParameter`] for an encoding no allocation can have (a register
    /// layout, an unknown `ctaMode`, a swizzle across the buffer dim).
    pub fn layout(&self) -> Result<AllocLayout, LayoutError> {
        let text = self.encoding_text.trim();
        if text.starts_with("#tlx.dummy_tmem_layout") {
            return Ok(AllocLayout::DummyTmem);
        }
        let (text, mode) = strip_cta_mode(text)?;
        match Encoding::from_mlir(&text)? {
            Encoding::Shared(SharedEncoding::Swizzled(s))
                if s.order.len() == self.shape.len()
                    && self.shape.len() >= 2
                    && self.has_buffer_dim() =>
            {
                self.one_buffer_of(s)
                    .map(|s| AllocLayout::Shared(SharedEncoding::Swizzled(s)))
            }
            Encoding::Shared(s) => Ok(AllocLayout::Shared(s)),
            Encoding::TensorMemory(tm) => Ok(AllocLayout::Tmem(tm, mode)),
            Encoding::TensorMemoryScales(s) => Ok(AllocLayout::TmemScales(s)),
            Encoding::Distributed(_) => Err(LayoutError::InvalidParameter {
                family: "memdesc",
                param: "encoding",
                value: self.encoding.clone(),
                reason: "a register layout; an allocation needs a shared or tensor-memory one"
                    .into(),
            }),
        }
    }
}

impl MemDesc {
    /// The layout of one buffer when a swizzled encoding spans the buffer dim too (its `order`
    /// has the memdesc's rank: `2x64xf32` with `order = [1, 0]`). Without swizzling
    /// (`maxPhase = 1`) and with the buffer dim slowest, buffer `i` is a contiguous block laid
    /// out in the remaining order; otherwise the element layout of buffer `i` depends on `i`,
    /// which no per-buffer layout can say, and it is refused.
    fn one_buffer_of(&self, s: SwizzledShared) -> Result<SwizzledShared, LayoutError> {
        if s.max_phase != 1 || s.order.last() != Some(&0) || !s.cga_layout.is_empty() {
            return Err(LayoutError::InvalidParameter {
                family: "swizzled_shared",
                param: "order",
                value: format!("{:?}", s.order),
                reason: format!(
                    "'{}' spans the buffer dim of {self} with a swizzle: buffer i's element layout would depend on i",
                    self.encoding
                ),
            });
        }
        let order = s.order.iter().filter(|&&d| d != 0).map(|d| d - 1).collect();
        SwizzledShared::new(s.vec, s.per_phase, 1, order, vec![])
    }
}

/// Removes TLX's `, ctaMode = …` from a tensor-memory encoding and says which mode it named.
fn strip_cta_mode(text: &str) -> Result<(String, CtaMode), LayoutError> {
    let Some(at) = text.find("ctaMode") else {
        return Ok((text.to_string(), CtaMode::Default));
    };
    let before = text.get(..at).unwrap_or("").trim_end();
    let before = before.strip_suffix(',').unwrap_or(before);
    let after = text.get(at + "ctaMode".len()..).unwrap_or("");
    let after = after
        .trim_start()
        .strip_prefix('=')
        .unwrap_or(after)
        .trim_start();
    let len = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    let mode = match after.get(..len).unwrap_or("") {
        "twocta_lhs" => CtaMode::TwoCtaLhs,
        "twocta_rhs" => CtaMode::TwoCtaRhs,
        "default" => CtaMode::Default,
        other => {
            return Err(LayoutError::InvalidParameter {
                family: "tensor_memory_encoding",
                param: "ctaMode",
                value: other.to_string(),
                reason: "expected default, twocta_lhs or twocta_rhs".into(),
            })
        }
    };
    Ok((format!("{before}{}", after.get(len..).unwrap_or("")), mode))
}

impl fmt::Display for MemDesc {
    /// As MLIR prints it, with the encoding and memory space as written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape: Vec<String> = self.shape.iter().map(u64::to_string).collect();
        write!(
            f,
            "!ttg.memdesc<{}x{}, {}, {}",
            shape.join("x"),
            self.element,
            self.encoding,
            self.space
        )?;
        if self.mutable {
            f.write_str(", mutable")?;
        }
        if let Some(a) = &self.alloc_shape {
            let a: Vec<String> = a.iter().map(u64::to_string).collect();
            write!(f, ", {}", a.join("x"))?;
        }
        f.write_str(">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_tlx_prints() -> Result<(), Box<dyn std::error::Error>> {
        let mut aliases = Aliases::default();
        aliases.define("#smem", "#ttg.shared_memory");
        aliases.define(
            "#tmem1",
            "#ttng.tensor_memory_encoding<blockM = 64, blockN = 128, colStride = 1, ctaMode = twocta_rhs>",
        );
        let m = MemDesc::parse_with(
            "1x64x128xf32, #tmem1, #ttng.tensor_memory, mutable",
            &aliases,
        )?;
        assert!(
            matches!(m.layout()?, AllocLayout::Tmem(tm, CtaMode::TwoCtaRhs) if tm.block_m == 64)
        );
        assert_eq!(m.buffers(), (1, vec![64, 128]));
        assert_eq!(
            m.to_string(),
            "!ttg.memdesc<1x64x128xf32, #tmem1, #ttng.tensor_memory, mutable>"
        );
        let b = MemDesc::parse_with("2xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable", &aliases)?;
        assert_eq!((b.buffers(), b.storage()?), ((2, vec![1]), Storage::Smem));
        let v = MemDesc::parse_with(
            "128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128",
            &aliases,
        )?;
        assert_eq!((v.buffers().0, v.alloc_shape), (1, Some(vec![128, 128])));
        assert!(MemDesc::parse("f32, #a, #b").is_err());
        assert!(MemDesc::parse("4xf32").is_err());
        assert!(MemDesc::parse("4xf32, #a, #b, frozen").is_err());
        Ok(())
    }
}
