//! [`module_layouts`]: every layout attribute a TTGIR module uses, each with the shapes it is
//! used on — the `#name = #ttg…` aliases at the top of a dump (resolved in order, `parent =
//! #blocked` included) and the attributes written inline, with every `tensor<…, #enc>` and
//! `!ttg.memdesc<…, #enc, …>` that names them.
//!
//! Only the types are read, line by line with the module model's tokenizer (so a fragment of a
//! module or a lit file reads too): ops are not parsed, comments (`// …`, FileCheck lines
//! included) are the tokenizer's trivia, and a type whose shape is dynamic (`?`) is not a use. Building each layout is
//! the caller's job ([`Encoding::from_mlir`](crate::families::Encoding::from_mlir) on the
//! attribute, then `to_linear_layout` on the shape), so that a refusal stays with its attribute.
//!
//! ```
//! use linear_layout::text::module::{module_layouts, UseKind};
//! let text = "#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
//! #smem = #ttg.shared_memory
//! module {
//!   tt.func @f(%a: tensor<64x64xf16, #blocked>, %b: !ttg.memdesc<2x64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, #smem, mutable>) {
//!     %c = ttg.convert_layout %a : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.slice<{dim = 0, parent = #blocked}>>
//!     tt.return
//!   }
//! }";
//! let layouts = module_layouts(text);
//! assert_eq!(layouts.len(), 3); // #blocked, the inline swizzled layout, the inline slice
//! assert_eq!(layouts[0].name.as_deref(), Some("#blocked"));
//! assert_eq!(layouts[0].uses.len(), 1); // one shape, first seen on line 4
//! assert_eq!((layouts[0].uses[0].shape.as_slice(), layouts[0].uses[0].line), (&[64, 64][..], 4));
//! assert_eq!(layouts[1].uses[0].kind, UseKind::MemDesc);
//! assert!(layouts[2].attribute.starts_with("#ttg.slice<{dim = 0, parent = #ttg.blocked<"));
//! ```

use super::aliases::Aliases;
use crate::mlir::lexer::{lex, split_top_level, Token, TokenKind};

/// What kind of type uses a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseKind {
    /// `tensor<SHAPExELT, #enc>`: a register layout on the tensor's shape.
    Tensor,
    /// `!ttg.memdesc<SHAPExELT, #enc, #space[, mutable][, ALLOC]>`: a memory layout.
    MemDesc,
}

/// One shape a layout is used on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutUse {
    /// Tensor or memory descriptor.
    pub kind: UseKind,
    /// The type's shape.
    pub shape: Vec<u64>,
    /// A memdesc's allocation shape, where it gives one (a subview of a larger allocation).
    pub alloc_shape: Option<Vec<u64>>,
    /// The element type (`f16`, `i8`, …).
    pub element: String,
    /// The 1-based line of the first use with this kind and these shapes.
    pub line: usize,
}

impl LayoutUse {
    /// The shape a layout is built on for this use, as Triton's `toLinearLayout` takes it: a
    /// tensor's shape; for a memdesc the last `rank` dims of its allocation shape.
    pub fn layout_shape(&self) -> Vec<u64> {
        match (&self.kind, &self.alloc_shape) {
            (UseKind::MemDesc, Some(alloc)) => {
                let skip = alloc.len().saturating_sub(self.shape.len());
                alloc.iter().skip(skip).copied().collect()
            }
            _ => self.shape.clone(),
        }
    }
}

/// A layout attribute of the module and every distinct shape it is used on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleLayout {
    /// The alias (`#blocked`), or `None` for an attribute written inline in a type.
    pub name: Option<String>,
    /// The attribute with every alias it names resolved.
    pub attribute: String,
    /// The 1-based line where the alias is defined or the inline attribute first used.
    pub line: usize,
    /// Its uses, one per distinct (kind, shape, allocation shape), in order of appearance.
    pub uses: Vec<LayoutUse>,
}

/// Dialect attributes that name a memory space, not a layout.
const NOT_LAYOUTS: [&str; 2] = ["#ttg.shared_memory", "#ttng.tensor_memory"];

/// Every layout attribute of `text` (a TTGIR module as MLIR prints it), aliases first in the
/// order they are defined, then inline attributes in the order they are first used. Each line
/// is read with the module model's tokenizer ([`crate::mlir::lexer`]); a line it cannot read
/// (a stray character outside a string) holds no type to list.
pub fn module_layouts(text: &str) -> Vec<ModuleLayout> {
    let mut aliases = Aliases::default();
    let mut layouts: Vec<ModuleLayout> = Vec::new();
    let mut inline: Vec<ModuleLayout> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Ok(tokens) = lex(line) else {
            continue;
        };
        if let Some((name, value)) = alias_definition(line, &tokens) {
            aliases.define(name, value);
            let attribute = aliases.resolve(name);
            if is_layout(&attribute) {
                layouts.push(ModuleLayout {
                    name: Some(name.to_string()),
                    attribute,
                    line: n + 1,
                    uses: Vec::new(),
                });
            }
            continue;
        }
        for (kind, parts) in typed_bodies(line, &tokens) {
            let (Some(dims), Some(enc)) = (parts.first(), parts.get(1)) else {
                continue;
            };
            let Some((shape, element)) = shape_and_element(dims) else {
                continue;
            };
            let enc = enc.trim();
            if !enc.starts_with('#') {
                continue;
            }
            let alloc_shape = parts
                .iter()
                .skip(2)
                .filter_map(|p| shape_only(p.trim()))
                .next_back();
            let found = LayoutUse {
                kind,
                shape,
                alloc_shape,
                element,
                line: n + 1,
            };
            let resolved = aliases.resolve(enc);
            let named = layouts.iter_mut().find(|l| l.name.as_deref() == Some(enc));
            let target = match named {
                Some(l) => l,
                None if is_layout(&resolved) => {
                    let at = match inline.iter().position(|l| l.attribute == resolved) {
                        Some(i) => i,
                        None => {
                            inline.push(ModuleLayout {
                                name: None,
                                attribute: resolved,
                                line: n + 1,
                                uses: Vec::new(),
                            });
                            inline.len() - 1
                        }
                    };
                    match inline.get_mut(at) {
                        Some(l) => l,
                        None => continue,
                    }
                }
                None => continue,
            };
            let seen = target.uses.iter().any(|u| {
                u.kind == found.kind && u.shape == found.shape && u.alloc_shape == found.alloc_shape
            });
            if !seen {
                target.uses.push(found);
            }
        }
    }
    layouts.extend(inline);
    layouts
}

/// `#name = #value…` opening a line: the name and the value (to the end of its `<…>` group;
/// a `loc(…)` or anything after it is not part of it).
fn alias_definition<'t>(line: &'t str, tokens: &[Token]) -> Option<(&'t str, &'t str)> {
    let (name, eq, value) = (tokens.first()?, tokens.get(1)?, tokens.get(2)?);
    if name.kind != TokenKind::Hash || !eq.is(b'=') || value.kind != TokenKind::Hash {
        return None;
    }
    let end = match tokens.get(3) {
        Some(open) if open.is(b'<') => tokens.get(group_end(tokens, 3)?)?.end,
        _ => value.end,
    };
    Some((name.text(line), line.get(value.start..end)?))
}

/// The index of the token that closes the bracket opened by token `open`.
fn group_end(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            TokenKind::Punct(b'<' | b'{' | b'[' | b'(') => depth += 1,
            TokenKind::Punct(b'>' | b'}' | b']' | b')') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The parameters (split at their top-level commas) of every `tensor<…>` and
/// `!ttg.memdesc<…>` on `line`.
fn typed_bodies<'t>(line: &'t str, tokens: &[Token]) -> Vec<(UseKind, Vec<&'t str>)> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let kind = match (t.kind, t.text(line)) {
            (TokenKind::Bare, "tensor") => UseKind::Tensor,
            (TokenKind::Bang, "!ttg.memdesc") => UseKind::MemDesc,
            _ => continue,
        };
        if !tokens.get(i + 1).is_some_and(|o| o.is(b'<')) {
            continue;
        }
        let Some(close) = group_end(tokens, i + 1) else {
            continue;
        };
        let (open, shut) = (tokens.get(i + 1), tokens.get(close));
        let body = match (open, shut) {
            (Some(o), Some(c)) => line.get(o.end..c.start).unwrap_or(""),
            _ => continue,
        };
        let Ok(parts) = split_top_level(body) else {
            continue;
        };
        out.push((kind, parts));
    }
    out
}

/// `128x64xf16` → `([128, 64], "f16")`; `None` for a dynamic or malformed shape.
fn shape_and_element(text: &str) -> Option<(Vec<u64>, String)> {
    let text = text.trim();
    let (dims, element) = text.rsplit_once('x')?;
    let shape = dims
        .split('x')
        .map(|d| d.parse::<u64>().ok())
        .collect::<Option<Vec<u64>>>()?;
    Some((shape, element.to_string()))
}

/// `2x128x64` → `[2, 128, 64]` (a memdesc's allocation shape).
fn shape_only(text: &str) -> Option<Vec<u64>> {
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit() || c == 'x') {
        return None;
    }
    text.split('x').map(|d| d.parse::<u64>().ok()).collect()
}

/// Whether an attribute is a layout (a `#ttg.` or `#ttng.` attribute other than a memory
/// space).
fn is_layout(attribute: &str) -> bool {
    let name_end = attribute
        .find(|c: char| c == '<' || c.is_whitespace())
        .unwrap_or(attribute.len());
    let name = attribute.get(..name_end).unwrap_or(attribute);
    (name.starts_with("#ttg.") || name.starts_with("#ttng.")) && !NOT_LAYOUTS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memdesc_allocation_shape_and_alias_chain() {
        let text = "#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>\n\
                    #smem = #ttg.shared_memory\n\
                    %0 = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 2x64x64>\n\
                    // CHECK: tensor<8x8xf16, #shared>\n";
        let l = module_layouts(text);
        assert_eq!(l.len(), 1);
        let uses = &l[0].uses;
        assert_eq!(uses.len(), 2);
        assert_eq!(uses[0].layout_shape(), vec![2, 64, 64]);
        assert_eq!(uses[1].alloc_shape, Some(vec![2, 64, 64]));
        assert_eq!(uses[1].layout_shape(), vec![64, 64]);
    }

    #[test]
    fn dynamic_shapes_and_descriptors_are_not_uses() {
        let text = "%d : !tt.tensordesc<tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>>\n\
                    %e : tensor<?x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>>\n";
        let l = module_layouts(text);
        // The tensor type inside a descriptor is a use; the dynamic one is not.
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].uses[0].shape, vec![64, 64]);
    }
}
