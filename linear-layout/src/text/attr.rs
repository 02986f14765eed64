//! The MLIR attribute text of every layout family, parsed and printed exactly as Triton 3.9
//! prints it in TTGIR:
//!
//! | attribute | [`Encoding`] |
//! |---|---|
//! | `#ttg.blocked<{sizePerThread = […], threadsPerWarp = […], warpsPerCTA = […], order = […]}>` | [`Blocked`] |
//! | `#ttg.slice<{dim = 1, parent = #ttg.blocked<{…}>}>` | [`Slice`] |
//! | `#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = […], instrShape = […]}>` | [`NvidiaMma`] |
//! | `#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{…}>, kWidth = 2}>` | [`DotOperand`] |
//! | `#ttg.linear<{register = […], lane = […], warp = […], block = […]}>` | [`DistributedEncoding::Linear`] |
//! | `#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>` | [`SwizzledShared`] |
//! | `#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>` | [`NvmmaShared`] |
//! | `#ttg.shared_linear<{offset = […], block = […]}, alignment = 16>` | [`SharedEncoding::Linear`] |
//! | `#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>` | [`TensorMemory`] |
//! | `#ttng.tensor_memory_scales_encoding<>` | [`TensorMemoryScales`] |
//!
//! Printing follows Triton's printers key for key, defaults omitted as Triton omits them:
//! `CGALayout = [[…]]` only when a `cga_layout` is set (before `instrShape` in `#ttg.nvidia_mma`,
//! last elsewhere), `fp4Padded = true` and `twoCTAs = true` only when set, `kWidth` only when
//! non-zero, `block` of `#ttg.shared_linear` only when it has bases, and `rank = N` of
//! `#ttg.nvmma_shared` only when it is not 2 and there is no `CGALayout` to carry it (see
//! [`Encoding::to_mlir_for_rank`]).
//!
//! Parsing takes what a TTGIR dump holds: any whitespace, keys in any order, optional keys left
//! out (`versionMinor`, `transposed`, `fp4Padded`, `rank`, `kWidth`, `twoCTAs`, `CGALayout`,
//! `block` of `#ttg.shared_linear`), and an alias definition line `#blocked = #ttg.blocked<{…}>`.
//! It checks the text's structure (known keys, each once, lists of one rank) but not whether the
//! parameters make a layout: that is `to_linear_layout`'s job. A parent given by alias
//! (`parent = #blocked`) cannot be resolved from the attribute alone and is an error that says so.
//!
//! ```
//! use linear_layout::families::{DistributedEncoding, Encoding};
//! let text = "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>";
//! let enc = Encoding::from_mlir(text)?;
//! assert!(matches!(&enc, Encoding::Distributed(DistributedEncoding::Slice(s)) if s.dim == 1));
//! assert_eq!(enc.to_mlir(), text);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::families::{
    Blocked, DistributedEncoding, DotOperand, Encoding, NvidiaMma, NvmmaShared, SharedEncoding,
    Slice, SwizzledShared, TensorMemory, TensorMemoryScales,
};
use crate::{Dim, DimBases, LayoutError, LinearLayout, Result};

const BLOCKED: &str = "#ttg.blocked";
const SLICE: &str = "#ttg.slice";
const NVIDIA_MMA: &str = "#ttg.nvidia_mma";
const DOT_OP: &str = "#ttg.dot_op";
const LINEAR: &str = "#ttg.linear";
const SWIZZLED: &str = "#ttg.swizzled_shared";
const NVMMA: &str = "#ttg.nvmma_shared";
const SHARED_LINEAR: &str = "#ttg.shared_linear";
const TMEM: &str = "#ttng.tensor_memory_encoding";
const TMEM_SCALES: &str = "#ttng.tensor_memory_scales_encoding";
const ATTRS: [&str; 10] = [
    BLOCKED,
    SLICE,
    NVIDIA_MMA,
    DOT_OP,
    LINEAR,
    SWIZZLED,
    NVMMA,
    SHARED_LINEAR,
    TMEM,
    TMEM_SCALES,
];
/// What errors not tied to one attribute are attributed to.
const ANY: &str = "MLIR attribute";
/// Nesting limit for parents (`#ttg.slice` of `#ttg.dot_op` of …): deep enough for any real
/// layout, shallow enough that hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 32;
/// Largest tensor rank a `#ttg.linear` basis may have (each out-dim gets an interned name).
const MAX_RANK: usize = 64;

/// Triton's default `rank` of `#ttg.nvmma_shared`, the one it does not print.
const NVMMA_DEFAULT_RANK: usize = 2;

impl Encoding {
    /// Parses one layout attribute as Triton 3.9 prints it (see the [module docs](self) for
    /// the forms), or an alias definition line `#name = #ttg.…<…>` (its right-hand side).
    ///
    /// `#ttg.nvmma_shared`'s `rank = N` is checked and dropped: [`NvmmaShared`] takes its rank
    /// from the shape. `#ttg.linear` and `#ttg.shared_linear` give layouts with in-dims
    /// `register, lane, warp, block` and `offset, block` (in that order, whatever the text's
    /// order) and out-dims `dim0…` sized by their bases, as Triton builds them.
    ///
    /// Errors: [`LayoutError::Parse`] naming the attribute, the key, the column and the
    /// offending token — an unknown attribute or key, a key given twice, a missing key, a value
    /// of the wrong kind or out of range, lists of different ranks, a parent that is not a
    /// register layout (or is an alias), bases that do not make a surjective layout.
    ///
    /// ```
    /// use linear_layout::families::{Blocked, DistributedEncoding, Encoding};
    /// let enc = Encoding::from_mlir(
    ///     "#blocked = #ttg.blocked<{order = [1, 0], sizePerThread = [1, 4],\n  threadsPerWarp = [8, 4], warpsPerCTA = [2, 2]}>",
    /// )?;
    /// assert_eq!(
    ///     enc,
    ///     Encoding::Distributed(DistributedEncoding::Blocked(Blocked {
    ///         size_per_thread: vec![1, 4],
    ///         threads_per_warp: vec![8, 4],
    ///         warps_per_cta: vec![2, 2],
    ///         order: vec![1, 0],
    ///         cga_layout: vec![],
    ///     }))
    /// );
    /// let err = Encoding::from_mlir("#ttg.blocked<{sizePerThreads = [1, 4]}>").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "parse error: #ttg.blocked, column 15: unknown key 'sizePerThreads' (expected one of \
    ///      sizePerThread, threadsPerWarp, warpsPerCTA, order, CGALayout)"
    /// );
    /// let err = Encoding::from_mlir("#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4}>");
    /// assert!(err.unwrap_err().to_string().ends_with("missing key 'order'"));
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn from_mlir(text: &str) -> Result<Encoding> {
        let mut p = Parser {
            text,
            pos: 0,
            depth: 0,
        };
        p.alias_definition();
        let enc = p.attribute()?;
        if p.peek().is_some() {
            return Err(p.err(
                ANY,
                format!("unexpected text after the attribute: {}", p.found()),
            ));
        }
        Ok(enc)
    }

    /// The attribute exactly as Triton 3.9 prints it, for a rank-2 tensor or allocation (the
    /// only case where the rank matters is `#ttg.nvmma_shared` without a `CGALayout`; use
    /// [`Encoding::to_mlir_for_rank`] for other ranks).
    ///
    /// A linear layout Triton could not hold (in-dims other than `register, lane, warp, block`
    /// or `offset, block`, out-dims not `dim0…`, not surjective) prints its bases for those
    /// in-dims all the same; parsing that text gives the layout Triton would build from them.
    ///
    /// ```
    /// use linear_layout::families::{Encoding, SharedEncoding, SwizzledShared};
    /// let enc = Encoding::Shared(SharedEncoding::Swizzled(SwizzledShared {
    ///     vec: 8,
    ///     per_phase: 1,
    ///     max_phase: 4,
    ///     order: vec![1, 0],
    ///     cga_layout: vec![vec![0, 1]],
    /// }));
    /// assert_eq!(
    ///     enc.to_mlir(),
    ///     "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0], CGALayout = [[0, 1]]}>"
    /// );
    /// assert_eq!(Encoding::from_mlir(&enc.to_mlir())?, enc);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_mlir(&self) -> String {
        self.to_mlir_for_rank(NVMMA_DEFAULT_RANK)
    }

    /// The attribute exactly as Triton 3.9 prints it on a tensor or allocation of rank `rank`:
    /// `#ttg.nvmma_shared` without a `CGALayout` carries `rank = N` when `N` is not 2. Every other
    /// attribute holds its rank in its own lists and prints as [`Encoding::to_mlir`].
    ///
    /// ```
    /// use linear_layout::families::{Encoding, NvmmaShared, SharedEncoding};
    /// let enc = Encoding::Shared(SharedEncoding::Nvmma(NvmmaShared {
    ///     swizzle_bytes: 128,
    ///     element_bits: 8,
    ///     transposed: false,
    ///     fp4_padded: true,
    ///     cga_layout: vec![],
    /// }));
    /// assert_eq!(
    ///     enc.to_mlir_for_rank(3),
    ///     "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8, fp4Padded = true, rank = 3}>"
    /// );
    /// assert_eq!(
    ///     enc.to_mlir(),
    ///     "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8, fp4Padded = true}>"
    /// );
    /// assert_eq!(Encoding::from_mlir(&enc.to_mlir_for_rank(3))?, enc);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_mlir_for_rank(&self, rank: usize) -> String {
        match self {
            Encoding::Distributed(d) => print_distributed(d),
            Encoding::Shared(s) => print_shared(s, rank),
            Encoding::TensorMemory(t) => format!(
                "{TMEM}<blockM = {}, blockN = {}, colStride = {}{}{}>",
                t.block_m,
                t.block_n,
                t.col_stride,
                cga_suffix(&t.cga_layout),
                if t.two_ctas { ", twoCTAs = true" } else { "" },
            ),
            Encoding::TensorMemoryScales(t) if t.cga_layout.is_empty() => {
                format!("{TMEM_SCALES}<>")
            }
            Encoding::TensorMemoryScales(t) => {
                format!("{TMEM_SCALES}<CGALayout = {}>", bases_text(&t.cga_layout))
            }
        }
    }
}

impl Encoding {
    /// `#ttg.blocked`, `#ttng.tensor_memory_encoding`, …
    fn attr_name(&self) -> &'static str {
        match self {
            Encoding::Distributed(DistributedEncoding::Blocked(_)) => BLOCKED,
            Encoding::Distributed(DistributedEncoding::Slice(_)) => SLICE,
            Encoding::Distributed(DistributedEncoding::NvidiaMma(_)) => NVIDIA_MMA,
            Encoding::Distributed(DistributedEncoding::DotOperand(_)) => DOT_OP,
            Encoding::Distributed(DistributedEncoding::Linear(_)) => LINEAR,
            Encoding::Shared(SharedEncoding::Swizzled(_)) => SWIZZLED,
            Encoding::Shared(SharedEncoding::Nvmma(_)) => NVMMA,
            Encoding::Shared(SharedEncoding::Linear { .. }) => SHARED_LINEAR,
            Encoding::TensorMemory(_) => TMEM,
            Encoding::TensorMemoryScales(_) => TMEM_SCALES,
        }
    }
}

impl FromStr for Encoding {
    type Err = LayoutError;

    /// [`Encoding::from_mlir`].
    ///
    /// ```
    /// use linear_layout::families::Encoding;
    /// let enc: Encoding = "#ttng.tensor_memory_scales_encoding<>".parse()?;
    /// assert!(matches!(enc, Encoding::TensorMemoryScales(_)));
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    fn from_str(text: &str) -> Result<Encoding> {
        Encoding::from_mlir(text)
    }
}

impl fmt::Display for Encoding {
    /// [`Encoding::to_mlir`].
    ///
    /// ```
    /// use linear_layout::families::{Encoding, TensorMemory};
    /// let enc = Encoding::TensorMemory(TensorMemory {
    ///     block_m: 128,
    ///     block_n: 64,
    ///     col_stride: 1,
    ///     cga_layout: vec![vec![1, 0]],
    ///     two_ctas: true,
    /// });
    /// assert_eq!(
    ///     enc.to_string(),
    ///     "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, CGALayout = [[1, 0]], twoCTAs = true>"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_mlir())
    }
}

// ----- printing ----------------------------------------------------------------------------

/// `[1, 2, 4]`.
fn list_text<T: fmt::Display>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(T::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `[[0, 1], [1, 0]]`.
fn bases_text(bases: &[Vec<u64>]) -> String {
    let items: Vec<String> = bases.iter().map(|b| list_text(b)).collect();
    format!("[{}]", items.join(", "))
}

/// `, CGALayout = [[…]]`, or nothing for a single CTA.
fn cga_suffix(cga: &[Vec<u64>]) -> String {
    if cga.is_empty() {
        String::new()
    } else {
        format!(", CGALayout = {}", bases_text(cga))
    }
}

/// `dim = [[…]]` for each of `dims` (one the layout lacks prints `[]`), leaving out those in
/// `omit_empty` that have no bases.
fn layout_dims_text(layout: &LinearLayout, dims: &[&str], omit_empty: &[&str]) -> String {
    let items: Vec<String> = dims
        .iter()
        .filter_map(|&d| {
            let b = layout.bases_of(d).unwrap_or_default();
            (!(b.is_empty() && omit_empty.contains(&d)))
                .then(|| format!("{d} = {}", bases_text(&b)))
        })
        .collect();
    items.join(", ")
}

fn print_distributed(d: &DistributedEncoding) -> String {
    match d {
        DistributedEncoding::Blocked(b) => format!(
            "{BLOCKED}<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}}}>",
            list_text(&b.size_per_thread),
            list_text(&b.threads_per_warp),
            list_text(&b.warps_per_cta),
            list_text(&b.order),
            cga_suffix(&b.cga_layout),
        ),
        DistributedEncoding::Slice(s) => format!(
            "{SLICE}<{{dim = {}, parent = {}}}>",
            s.dim,
            print_distributed(&s.parent)
        ),
        DistributedEncoding::NvidiaMma(m) => format!(
            "{NVIDIA_MMA}<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}}}>",
            m.version_major,
            m.version_minor,
            list_text(&m.warps_per_cta),
            cga_suffix(&m.cga_layout),
            list_text(&m.instr_shape),
        ),
        DistributedEncoding::DotOperand(d) => {
            let k_width = if d.k_width == 0 {
                String::new()
            } else {
                format!(", kWidth = {}", d.k_width)
            };
            format!(
                "{DOT_OP}<{{opIdx = {}, parent = {}{k_width}}}>",
                d.op_idx,
                print_distributed(&d.parent)
            )
        }
        DistributedEncoding::Linear(l) => format!(
            "{LINEAR}<{{{}}}>",
            layout_dims_text(l, &["register", "lane", "warp", "block"], &[])
        ),
    }
}

fn print_shared(s: &SharedEncoding, rank: usize) -> String {
    match s {
        SharedEncoding::Swizzled(s) => format!(
            "{SWIZZLED}<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}{}}}>",
            s.vec,
            s.per_phase,
            s.max_phase,
            list_text(&s.order),
            cga_suffix(&s.cga_layout),
        ),
        SharedEncoding::Nvmma(n) => {
            let fp4 = if n.fp4_padded {
                ", fp4Padded = true"
            } else {
                ""
            };
            // The CGA layout carries the rank when there is one; otherwise `rank` unless default.
            let rank_or_cga = if n.cga_layout.is_empty() && rank != NVMMA_DEFAULT_RANK {
                format!(", rank = {rank}")
            } else {
                cga_suffix(&n.cga_layout)
            };
            format!(
                "{NVMMA}<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}{fp4}{rank_or_cga}}}>",
                n.swizzle_bytes, n.transposed, n.element_bits,
            )
        }
        SharedEncoding::Linear { layout, alignment } => format!(
            "{SHARED_LINEAR}<{{{}}}, alignment = {alignment}>",
            layout_dims_text(layout, &["offset", "block"], &["block"])
        ),
    }
}

// ----- parsing -----------------------------------------------------------------------------

/// A cursor over the attribute text. Every slice goes through `get`, and the cursor only ever
/// moves past ASCII characters or whole `trim_start` runs, so it stays on a char boundary.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next non-blank character (the cursor moves to it).
    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// `column C`, or `line L, column C` in multi-line text (1-based, in characters).
    fn location(&self, pos: usize) -> String {
        let before = self.text.get(..pos).unwrap_or(self.text);
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        if line == 1 {
            format!("column {col}")
        } else {
            format!("line {line}, column {col}")
        }
    }

    /// The token at the cursor, quoted, for error messages.
    fn found(&self) -> String {
        let rest = self.rest();
        let word: String = rest
            .chars()
            .take_while(|&c| c.is_ascii_alphanumeric() || "_.#-".contains(c))
            .take(32)
            .collect();
        match rest.chars().next() {
            None => "end of input".into(),
            Some(c) if word.is_empty() => format!("'{c}'"),
            Some(_) => format!("'{word}'"),
        }
    }

    fn err_at(&self, attr: &str, pos: usize, msg: impl fmt::Display) -> LayoutError {
        LayoutError::Parse(format!("{attr}, {}: {msg}", self.location(pos)))
    }

    fn err(&self, attr: &str, msg: impl fmt::Display) -> LayoutError {
        self.err_at(attr, self.pos, msg)
    }

    /// Consumes `tok` (after blanks) or says what was there instead.
    fn eat(&mut self, attr: &str, tok: char, context: &str) -> Result<()> {
        if self.peek() == Some(tok) {
            self.pos += tok.len_utf8();
            Ok(())
        } else {
            Err(self.err(
                attr,
                format!("expected '{tok}'{context}, found {}", self.found()),
            ))
        }
    }

    /// An identifier `[A-Za-z0-9_]*` (possibly empty) after blanks.
    fn word(&mut self) -> &'a str {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }

    /// `#name` with dots (`#ttg.blocked`, `#blocked`), or "" when there is no `#`.
    fn attr_name(&mut self) -> &'a str {
        self.skip_ws();
        let rest = self.rest();
        if !rest.starts_with('#') {
            return "";
        }
        let len = rest
            .get(1..)
            .unwrap_or("")
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(rest.len(), |n| n + 1);
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }

    /// Skips `#alias =` at the start of an alias definition line.
    fn alias_definition(&mut self) {
        let start = self.pos;
        let name = self.attr_name();
        if name.len() > 1 && !name.contains('.') && self.peek() == Some('=') {
            self.pos += 1;
        } else {
            self.pos = start;
        }
    }

    /// `key = value, …` up to `close`, each key one of `keys` and given at most once; `field`
    /// parses the value of `key`.
    fn fields(
        &mut self,
        attr: &str,
        keys: &[&'static str],
        close: char,
        mut field: impl FnMut(&mut Self, &'static str) -> Result<()>,
    ) -> Result<()> {
        let mut seen = vec![false; keys.len()];
        if self.peek() == Some(close) {
            self.pos += close.len_utf8();
            return Ok(());
        }
        loop {
            self.skip_ws();
            let start = self.pos;
            let name = self.word();
            let known = keys.iter().enumerate().find(|(_, k)| **k == name);
            let Some((i, &key)) = known else {
                let msg = if name.is_empty() {
                    format!("expected a key, found {}", self.found())
                } else {
                    format!("unknown key '{name}' (expected one of {})", keys.join(", "))
                };
                return Err(self.err_at(attr, start, msg));
            };
            if let Some(seen) = seen.get_mut(i) {
                if *seen {
                    return Err(self.err_at(attr, start, format!("key '{key}' given twice")));
                }
                *seen = true;
            }
            self.eat(attr, '=', &format!(" after '{key}'"))?;
            field(self, key)?;
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += c.len_utf8();
                    return Ok(());
                }
                _ => {
                    return Err(self.err(
                        attr,
                        format!(
                            "expected ',' or '{close}' after the value of '{key}', found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
    }

    /// A value that must be there.
    fn required<T>(&self, attr: &str, start: usize, key: &str, value: Option<T>) -> Result<T> {
        value.ok_or_else(|| self.err_at(attr, start, format!("missing key '{key}'")))
    }

    fn uint(&mut self, attr: &str, key: &str) -> Result<u64> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let digits = rest.get(..len).unwrap_or("");
        let value = match digits.parse::<u64>() {
            Ok(v) => v,
            Err(_) if digits.is_empty() => {
                return Err(self.err(
                    attr,
                    format!(
                        "{key}: expected a non-negative integer, found {}",
                        self.found()
                    ),
                ))
            }
            Err(_) => {
                return Err(self.err(attr, format!("{key}: {digits} does not fit in 64 bits")))
            }
        };
        self.pos += len;
        Ok(value)
    }

    /// An integer that fits `T` (`u32` parameters, `usize` dims).
    fn int<T: TryFrom<u64>>(&mut self, attr: &str, key: &str) -> Result<T> {
        self.skip_ws();
        let start = self.pos;
        let value = self.uint(attr, key)?;
        T::try_from(value)
            .map_err(|_| self.err_at(attr, start, format!("{key}: {value} is out of range")))
    }

    fn boolean(&mut self, attr: &str, key: &str) -> Result<bool> {
        self.skip_ws();
        let start = self.pos;
        match self.word() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => {
                self.pos = start;
                Err(self.err(
                    attr,
                    format!("{key}: expected true or false, found {}", self.found()),
                ))
            }
        }
    }

    /// `[item, …]`.
    fn list<T>(
        &mut self,
        attr: &str,
        key: &str,
        mut item: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        self.eat(attr, '[', &format!(" to open the list of '{key}'"))?;
        let mut out = Vec::new();
        if self.peek() == Some(']') {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(']') => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => {
                    return Err(self.err(
                        attr,
                        format!("{key}: expected ',' or ']', found {}", self.found()),
                    ))
                }
            }
        }
    }

    fn ints<T: TryFrom<u64>>(&mut self, attr: &str, key: &str) -> Result<Vec<T>> {
        self.list(attr, key, |p| p.int(attr, key))
    }

    /// `[[0, 1], [1, 0]]`.
    fn bases(&mut self, attr: &str, key: &str) -> Result<DimBases> {
        self.list(attr, key, |p| p.ints(attr, key))
    }

    /// A `CGALayout` whose bases all have `rank` entries (or all the same number).
    fn check_cga(
        &self,
        attr: &str,
        start: usize,
        cga: &[Vec<u64>],
        rank: Option<usize>,
    ) -> Result<()> {
        let Some(rank) = rank.or_else(|| cga.first().map(Vec::len)) else {
            return Ok(());
        };
        match cga.iter().find(|b| b.len() != rank) {
            Some(b) => Err(self.err_at(
                attr,
                start,
                format!(
                    "CGALayout basis {} has {} entries, expected {rank} (the rank)",
                    list_text(b),
                    b.len()
                ),
            )),
            None => Ok(()),
        }
    }

    /// `<{`, the opening of every `#ttg` attribute.
    fn open_dict(&mut self, attr: &str) -> Result<()> {
        self.eat(attr, '<', "")?;
        self.eat(attr, '{', "")
    }

    /// The `>` after the `}` that `fields` consumed.
    fn close_dict(&mut self, attr: &str) -> Result<()> {
        self.eat(attr, '>', "")
    }

    /// Any layout attribute.
    fn attribute(&mut self) -> Result<Encoding> {
        self.skip_ws();
        let start = self.pos;
        let name = self.attr_name();
        if self.depth >= MAX_DEPTH {
            return Err(self.err_at(
                ANY,
                start,
                format!("parents nested more than {MAX_DEPTH} deep"),
            ));
        }
        self.depth += 1;
        let out = match name {
            BLOCKED => self
                .blocked(start)
                .map(DistributedEncoding::Blocked)
                .map(Encoding::Distributed),
            SLICE => self
                .slice(start)
                .map(DistributedEncoding::Slice)
                .map(Encoding::Distributed),
            NVIDIA_MMA => self
                .nvidia_mma(start)
                .map(DistributedEncoding::NvidiaMma)
                .map(Encoding::Distributed),
            DOT_OP => self
                .dot_op(start)
                .map(DistributedEncoding::DotOperand)
                .map(Encoding::Distributed),
            LINEAR => self
                .linear(start)
                .map(DistributedEncoding::Linear)
                .map(Encoding::Distributed),
            SWIZZLED => self
                .swizzled(start)
                .map(SharedEncoding::Swizzled)
                .map(Encoding::Shared),
            NVMMA => self
                .nvmma(start)
                .map(SharedEncoding::Nvmma)
                .map(Encoding::Shared),
            SHARED_LINEAR => self.shared_linear(start).map(Encoding::Shared),
            TMEM => self.tmem(start).map(Encoding::TensorMemory),
            TMEM_SCALES => self.tmem_scales(start).map(Encoding::TensorMemoryScales),
            "" => Err(self.err(
                ANY,
                format!(
                    "expected a layout attribute such as #ttg.blocked<…>, found {}",
                    self.found()
                ),
            )),
            alias if !alias.contains('.') => Err(self.err_at(
                ANY,
                start,
                format!(
                    "{alias} is an alias: give the attribute it names (the right-hand side of its \
                     '{alias} = …' line)"
                ),
            )),
            other => Err(self.err_at(
                ANY,
                start,
                format!(
                    "unknown attribute '{other}' (expected one of {})",
                    ATTRS.join(", ")
                ),
            )),
        };
        self.depth -= 1;
        out
    }

    /// `parent = #ttg.…`: a register layout.
    fn parent(&mut self, attr: &str) -> Result<Box<DistributedEncoding>> {
        self.skip_ws();
        let start = self.pos;
        match self.attribute()? {
            Encoding::Distributed(d) => Ok(Box::new(d)),
            other => Err(self.err_at(
                attr,
                start,
                format!(
                    "parent must be a register layout, got {}",
                    other.attr_name()
                ),
            )),
        }
    }

    fn blocked(&mut self, start: usize) -> Result<Blocked> {
        const A: &str = BLOCKED;
        const KEYS: [&str; 5] = [
            "sizePerThread",
            "threadsPerWarp",
            "warpsPerCTA",
            "order",
            "CGALayout",
        ];
        let (mut spt, mut tpw, mut wpc, mut order, mut cga) = (None, None, None, None, Vec::new());
        self.open_dict(A)?;
        self.fields(A, &KEYS, '}', |p, key| {
            match key {
                "sizePerThread" => spt = Some(p.ints(A, key)?),
                "threadsPerWarp" => tpw = Some(p.ints(A, key)?),
                "warpsPerCTA" => wpc = Some(p.ints(A, key)?),
                "order" => order = Some(p.ints(A, key)?),
                _ => cga = p.bases(A, key)?,
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        let b = Blocked {
            size_per_thread: self.required(A, start, "sizePerThread", spt)?,
            threads_per_warp: self.required(A, start, "threadsPerWarp", tpw)?,
            warps_per_cta: self.required(A, start, "warpsPerCTA", wpc)?,
            order: self.required(A, start, "order", order)?,
            cga_layout: cga,
        };
        let ranks = [
            b.size_per_thread.len(),
            b.threads_per_warp.len(),
            b.warps_per_cta.len(),
            b.order.len(),
        ];
        if ranks.iter().any(|&r| r != b.order.len()) {
            return Err(self.err_at(
                A,
                start,
                format!(
                    "sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same \
                     length, got {}",
                    list_text(&ranks)
                ),
            ));
        }
        self.check_cga(A, start, &b.cga_layout, Some(b.order.len()))?;
        Ok(b)
    }

    fn slice(&mut self, start: usize) -> Result<Slice> {
        const A: &str = SLICE;
        let (mut dim, mut parent) = (None, None);
        self.open_dict(A)?;
        self.fields(A, &["dim", "parent"], '}', |p, key| {
            match key {
                "dim" => dim = Some(p.int(A, key)?),
                _ => parent = Some(p.parent(A)?),
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        Ok(Slice {
            dim: self.required(A, start, "dim", dim)?,
            parent: self.required(A, start, "parent", parent)?,
        })
    }

    fn nvidia_mma(&mut self, start: usize) -> Result<NvidiaMma> {
        const A: &str = NVIDIA_MMA;
        const KEYS: [&str; 5] = [
            "versionMajor",
            "versionMinor",
            "warpsPerCTA",
            "instrShape",
            "CGALayout",
        ];
        let (mut major, mut minor, mut wpc, mut instr, mut cga) = (None, 0, None, None, Vec::new());
        self.open_dict(A)?;
        self.fields(A, &KEYS, '}', |p, key| {
            match key {
                "versionMajor" => major = Some(p.int(A, key)?),
                "versionMinor" => minor = p.int(A, key)?,
                "warpsPerCTA" => wpc = Some(p.ints(A, key)?),
                "instrShape" => instr = Some(p.ints(A, key)?),
                _ => cga = p.bases(A, key)?,
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        let m = NvidiaMma {
            version_major: self.required(A, start, "versionMajor", major)?,
            version_minor: minor,
            warps_per_cta: self.required(A, start, "warpsPerCTA", wpc)?,
            instr_shape: self.required(A, start, "instrShape", instr)?,
            cga_layout: cga,
        };
        self.check_cga(A, start, &m.cga_layout, Some(m.warps_per_cta.len()))?;
        Ok(m)
    }

    fn dot_op(&mut self, start: usize) -> Result<DotOperand> {
        const A: &str = DOT_OP;
        let (mut op_idx, mut parent, mut k_width) = (None, None, 0);
        self.open_dict(A)?;
        self.fields(A, &["opIdx", "parent", "kWidth"], '}', |p, key| {
            match key {
                "opIdx" => op_idx = Some(p.int(A, key)?),
                "parent" => parent = Some(p.parent(A)?),
                _ => k_width = p.int(A, key)?,
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        Ok(DotOperand {
            op_idx: self.required(A, start, "opIdx", op_idx)?,
            parent: self.required(A, start, "parent", parent)?,
            k_width,
        })
    }

    /// The layout Triton builds from `{in = bases, …}`: out-dims `dim0…` sized by the bases.
    fn layout(&self, attr: &str, start: usize, dims: &[(&str, DimBases)]) -> Result<LinearLayout> {
        let rank = dims
            .iter()
            .flat_map(|(_, b)| b.first())
            .map(Vec::len)
            .next()
            .unwrap_or(0);
        if rank > MAX_RANK {
            return Err(self.err_at(
                attr,
                start,
                format!("bases have {rank} entries; at most {MAX_RANK} dims are supported"),
            ));
        }
        let outs: Vec<Dim> = (0..rank).map(Dim::standard).collect();
        LinearLayout::from_bases_inferred(dims, &outs).map_err(|e| self.err_at(attr, start, e))
    }

    fn linear(&mut self, start: usize) -> Result<LinearLayout> {
        const A: &str = LINEAR;
        const KEYS: [&str; 4] = ["register", "lane", "warp", "block"];
        let mut found: [Option<DimBases>; 4] = [None, None, None, None];
        self.open_dict(A)?;
        self.fields(A, &KEYS, '}', |p, key| {
            let bases = p.bases(A, key)?;
            if let Some(slot) = KEYS.iter().zip(found.iter_mut()).find(|(k, _)| **k == key) {
                *slot.1 = Some(bases);
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        let mut dims = Vec::with_capacity(KEYS.len());
        for (key, bases) in KEYS.into_iter().zip(found) {
            dims.push((key, self.required(A, start, key, bases)?));
        }
        self.layout(A, start, &dims)
    }

    fn swizzled(&mut self, start: usize) -> Result<SwizzledShared> {
        const A: &str = SWIZZLED;
        const KEYS: [&str; 5] = ["vec", "perPhase", "maxPhase", "order", "CGALayout"];
        let (mut vec, mut per_phase, mut max_phase, mut order, mut cga) =
            (None, None, None, None, Vec::new());
        self.open_dict(A)?;
        self.fields(A, &KEYS, '}', |p, key| {
            match key {
                "vec" => vec = Some(p.int(A, key)?),
                "perPhase" => per_phase = Some(p.int(A, key)?),
                "maxPhase" => max_phase = Some(p.int(A, key)?),
                "order" => order = Some(p.ints(A, key)?),
                _ => cga = p.bases(A, key)?,
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        let s = SwizzledShared {
            vec: self.required(A, start, "vec", vec)?,
            per_phase: self.required(A, start, "perPhase", per_phase)?,
            max_phase: self.required(A, start, "maxPhase", max_phase)?,
            order: self.required(A, start, "order", order)?,
            cga_layout: cga,
        };
        self.check_cga(A, start, &s.cga_layout, Some(s.order.len()))?;
        Ok(s)
    }

    fn nvmma(&mut self, start: usize) -> Result<NvmmaShared> {
        const A: &str = NVMMA;
        const KEYS: [&str; 6] = [
            "swizzlingByteWidth",
            "transposed",
            "elementBitWidth",
            "fp4Padded",
            "rank",
            "CGALayout",
        ];
        let (mut swizzle, mut transposed, mut bits, mut fp4) = (None, false, None, false);
        let (mut rank, mut cga) = (None, Vec::new());
        self.open_dict(A)?;
        self.fields(A, &KEYS, '}', |p, key| {
            match key {
                "swizzlingByteWidth" => swizzle = Some(p.int(A, key)?),
                "transposed" => transposed = p.boolean(A, key)?,
                "elementBitWidth" => bits = Some(p.int(A, key)?),
                "fp4Padded" => fp4 = p.boolean(A, key)?,
                "rank" => rank = Some(p.int::<usize>(A, key)?),
                _ => cga = p.bases(A, key)?,
            }
            Ok(())
        })?;
        self.close_dict(A)?;
        if rank == Some(0) {
            return Err(self.err_at(A, start, "rank = 0: the rank must be at least 1"));
        }
        self.check_cga(A, start, &cga, rank)?;
        Ok(NvmmaShared {
            swizzle_bytes: self.required(A, start, "swizzlingByteWidth", swizzle)?,
            element_bits: self.required(A, start, "elementBitWidth", bits)?,
            transposed,
            fp4_padded: fp4,
            cga_layout: cga,
        })
    }

    /// `#ttg.shared_linear<{offset = […], block = […]}, alignment = N>`.
    fn shared_linear(&mut self, start: usize) -> Result<SharedEncoding> {
        const A: &str = SHARED_LINEAR;
        let (mut offset, mut block, mut alignment) = (None, Vec::new(), None);
        self.open_dict(A)?;
        self.fields(A, &["offset", "block"], '}', |p, key| {
            match key {
                "offset" => offset = Some(p.bases(A, key)?),
                _ => block = p.bases(A, key)?,
            }
            Ok(())
        })?;
        self.eat(A, ',', " before 'alignment'")?;
        self.fields(A, &["alignment"], '>', |p, key| {
            alignment = Some(p.uint(A, key)?);
            Ok(())
        })?;
        let offset = self.required(A, start, "offset", offset)?;
        let alignment = self.required(A, start, "alignment", alignment)?;
        let layout = self.layout(A, start, &[("offset", offset), ("block", block)])?;
        Ok(SharedEncoding::Linear { layout, alignment })
    }

    /// `#ttng.tensor_memory_encoding<blockM = …, blockN = …, colStride = …>` (no braces).
    fn tmem(&mut self, start: usize) -> Result<TensorMemory> {
        const A: &str = TMEM;
        const KEYS: [&str; 5] = ["blockM", "blockN", "colStride", "CGALayout", "twoCTAs"];
        let (mut block_m, mut block_n, mut col_stride) = (None, None, None);
        let (mut cga, mut two_ctas) = (Vec::new(), false);
        self.eat(A, '<', "")?;
        self.fields(A, &KEYS, '>', |p, key| {
            match key {
                "blockM" => block_m = Some(p.int(A, key)?),
                "blockN" => block_n = Some(p.int(A, key)?),
                "colStride" => col_stride = Some(p.int(A, key)?),
                "CGALayout" => cga = p.bases(A, key)?,
                _ => two_ctas = p.boolean(A, key)?,
            }
            Ok(())
        })?;
        self.check_cga(A, start, &cga, None)?;
        Ok(TensorMemory {
            block_m: self.required(A, start, "blockM", block_m)?,
            block_n: self.required(A, start, "blockN", block_n)?,
            col_stride: self.required(A, start, "colStride", col_stride)?,
            cga_layout: cga,
            two_ctas,
        })
    }

    /// `#ttng.tensor_memory_scales_encoding<>` or `<CGALayout = […]>`.
    fn tmem_scales(&mut self, start: usize) -> Result<TensorMemoryScales> {
        const A: &str = TMEM_SCALES;
        let mut cga = Vec::new();
        self.eat(A, '<', "")?;
        self.fields(A, &["CGALayout"], '>', |p, key| {
            cga = p.bases(A, key)?;
            Ok(())
        })?;
        self.check_cga(A, start, &cga, None)?;
        Ok(TensorMemoryScales { cga_layout: cga })
    }
}
