//! Plan files: a [`Program`] as TOML, key for key the TLX calls it mirrors — what
//! `linalias plan FILE.toml` reads.
//!
//! A file has an optional `target`, one `[[spec]]` table per `storage_alias_spec`, one
//! `[[alloc]]` table per `local_alloc` (in program order: TLX sizes an SMEM backing by its first
//! user), and the reuse tree of each spec as its `overlap` key (`spec.set_buffer_overlap`).
//!
//! ```toml
//! target = "sm_100"                 # optional: sm_80, sm_90, sm_100 (default), sm_120
//!
//! [[spec]]                          # tlx.storage_alias_spec(storage, buffer_size_bytes)
//! name = "qk_storage"
//! storage = "tmem"                  # smem | tmem
//! # size = 131072                   # optional buffer_size_bytes (alias: buffer_size_bytes)
//! overlap = { shared = [            # spec.set_buffer_overlap(reuse_group(...)), optional
//!     "qk",
//!     { distinct = [
//!         { shared = ["p"], group_size = 2 },
//!         "alpha", "l", "m",
//!     ] },
//! ] }
//!
//! [[alloc]]                         # tlx.local_alloc(shape, dtype, num, storage, reuse, layout)
//! name = "qk"
//! shape = [128, 128]                # one buffer
//! dtype = "f32"                     # f32, bf16, f8e4m3 (or fp8e4nv), i8, f4, … (see DType)
//! num = 2                           # buffers
//! spec = "qk_storage"               # reuse = spec
//! # reuse = "other"                 # legacy reuse = <an earlier allocation>
//! # storage = "tmem"                # default: the spec's, the reused allocation's, else smem
//! # layout = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>"
//! # cta_mode = "two_cta_rhs"        # TMEM only: default | two_cta_lhs | two_cta_rhs
//! # align = 16                      # buffer start alignment in plan units (default: 128 B for
//!                                   # SMEM, 1 column for TMEM); the layout's own always applies
//! # lifetime = [0, 4]               # program points [start, end) the data is live; see
//!                                   # Program::set_lifetime and Program::pack
//!
//! [[alloc]]
//! name = "p"
//! shape = [128, 64]
//! dtype = "bf16"
//! num = 4
//! spec = "qk_storage"
//!
//! # … alpha, l and m: shape = [128, 1], dtype = "f32", num = 2, spec = "qk_storage"
//! ```
//!
//! **The reuse tree.** A group is an inline table with exactly one of `shared = [...]` or
//! `distinct = [...]` (its members, in order) and an optional `group_size = k` (subtiling;
//! `reuse_group(..., group_size = k)`); a member is an allocation's name or a nested group. The
//! root must be a group. Arrays may span lines inside the inline table, as above.
//!
//! **Layouts.** `layout` is any attribute [`Encoding::from_mlir`] parses that can hold an
//! allocation: a shared one (`#ttg.swizzled_shared`, `#ttg.nvmma_shared`, `#ttg.shared_linear`)
//! for shared memory, `#ttng.tensor_memory_encoding` for tensor memory, or `"dummy_tmem"`
//! (TLX's `#tlx.dummy_tmem_layout<>`). Without it TLX's default applies
//! ([`AllocLayout::Default`]). `cta_mode` without a `layout` takes the default TMEM encoding.
//!
//! **More than one `set_buffer_overlap` per spec** (which TLX rejects; files exist to reproduce
//! it): `[[overlap]]` tables with `spec = "name"` and `tree = { … }` are applied after the
//! specs' own `overlap` keys, in file order.
//!
//! **Errors** are [`AllocError::Input`] naming the line, column, entry and key, e.g.
//! `line 12, column 9 (alloc #2 'p', key 'dtype'): unknown dtype 'f33' (expected …)` — except
//! what the [`Program`] builder itself refuses (a name used twice, storage that differs from the
//! spec's, a zero size…), which keeps its own variant (and its [`AllocError::tlx_message`]).
//!
//! ```
//! use alias_alloc::{plan_file, Mode, PlanOptions};
//! let text = r#"
//! [[spec]]
//! name = "s"
//! storage = "smem"
//! overlap = { distinct = ["a", "b"] }
//!
//! [[alloc]]
//! name = "a"
//! shape = [64, 64]
//! dtype = "bf16"
//! num = 2
//! spec = "s"
//!
//! [[alloc]]
//! name = "b"
//! shape = [64, 64]
//! dtype = "bf16"
//! num = 2
//! spec = "s"
//! "#;
//! let program = plan_file::parse(text)?;
//! let plan = program.plan(&PlanOptions::new(Mode::TlxCompatible))?;
//! assert_eq!(plan.spec("s")?.backing_units, 32768);
//! assert_eq!(plan_file::parse(&plan_file::to_toml(&program))?, program);
//!
//! let err = plan_file::parse(&text.replace("\"bf16\"", "\"bf17\"")).unwrap_err();
//! assert!(err.to_string().starts_with("line 10, column 9 (alloc #1 'a', key 'dtype'): unknown dtype 'bf17'"));
//! # Ok::<(), alias_alloc::AllocError>(())
//! ```

use std::fmt::Display;
use std::ops::Range;

use linear_layout::families::Encoding;
use serde::Deserialize;
use toml::{Spanned, Value};

use crate::{
    AllocError, AllocLayout, Allocation, CtaMode, DType, GroupKind, Member, Program, Reuse,
    ReuseGroup, Storage, Target,
};

/// A parsed plan file: the program and the target it names (if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// Specs, allocations and overlaps, in file order.
    pub program: Program,
    /// The file's `target`, if it has one.
    pub target: Option<Target>,
}

/// Parses a plan file into its [`Program`] (the `target` key is checked and dropped; use
/// [`PlanFile::parse`] to keep it).
pub fn parse(text: &str) -> Result<Program, AllocError> {
    PlanFile::parse(text).map(|f| f.program)
}

/// The plan file of `program`: [`parse`] gives back an equal program.
pub fn to_toml(program: &Program) -> String {
    write_file(program, None)
}

impl PlanFile {
    /// Parses a plan file (see the [module docs](self) for the format).
    pub fn parse(text: &str) -> Result<PlanFile, AllocError> {
        let doc: FileDoc = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
        let cx = Cx { text };
        let target = match &doc.target {
            Some(t) => Some(
                t.get_ref()
                    .parse::<Target>()
                    .map_err(|e| cx.err(t.span(), "", "target", e))?,
            ),
            None => None,
        };
        let mut program = Program::new();
        for (n, s) in doc.spec.iter().enumerate() {
            let entry = format!("spec #{} '{}'", n + 1, s.name.get_ref());
            let storage = s
                .storage
                .get_ref()
                .parse::<Storage>()
                .map_err(|e| cx.err(s.storage.span(), &entry, "storage", e))?;
            let size = s.size.as_ref().map(|v| *v.get_ref());
            program.storage_alias_spec(s.name.get_ref(), storage, size)?;
        }
        for (n, a) in doc.alloc.iter().enumerate() {
            let entry = format!("alloc #{} '{}'", n + 1, a.name.get_ref());
            let alloc = cx.allocation(&program, a, &entry)?;
            let id = program.alloc(alloc)?;
            if let Some(l) = &a.lifetime {
                let [start, end] = *l.get_ref();
                program
                    .set_lifetime(id, start, end)
                    .map_err(|e| cx.err(l.span(), &entry, "lifetime", e))?;
            }
        }
        let inline = doc.spec.iter().enumerate().filter_map(|(n, s)| {
            let entry = format!("spec #{} '{}'", n + 1, s.name.get_ref());
            s.overlap.as_ref().map(|t| (entry, &s.name, t, "overlap"))
        });
        let separate = doc.overlap.iter().enumerate().map(|(n, o)| {
            let entry = format!("overlap #{} of spec '{}'", n + 1, o.spec.get_ref());
            (entry, &o.spec, &o.tree, "tree")
        });
        for (entry, spec, tree, key) in inline.chain(separate) {
            let id = program
                .spec_id(spec.get_ref())
                .ok_or_else(|| cx.err(spec.span(), &entry, "spec", no_spec(spec.get_ref())))?;
            let group = match tree.get_ref() {
                Value::Table(_) => cx.group(&program, tree.get_ref(), key),
                other => Err(format!(
                    "the root of a reuse tree is a group, {{ shared = [...] }} or {{ distinct = [...] }}, not {}",
                    other.type_str()
                )),
            }
            .map_err(|m| cx.err(tree.span(), &entry, key, m))?;
            program.set_buffer_overlap(id, group)?;
        }
        Ok(PlanFile { program, target })
    }

    /// This file as TOML: [`PlanFile::parse`] gives back an equal file.
    pub fn to_toml(&self) -> String {
        write_file(&self.program, self.target)
    }
}

// ---------------------------------------------------------------------------------------------
// The file's shape, as serde reads it. Values that need checking keep their span.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    target: Option<Spanned<String>>,
    #[serde(default)]
    spec: Vec<SpecEntry>,
    #[serde(default)]
    alloc: Vec<AllocEntry>,
    #[serde(default)]
    overlap: Vec<OverlapEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecEntry {
    name: Spanned<String>,
    storage: Spanned<String>,
    #[serde(alias = "buffer_size_bytes")]
    size: Option<Spanned<u64>>,
    overlap: Option<Spanned<Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllocEntry {
    name: Spanned<String>,
    shape: Vec<u64>,
    dtype: Spanned<String>,
    num: u64,
    spec: Option<Spanned<String>>,
    reuse: Option<Spanned<String>>,
    storage: Option<Spanned<String>>,
    layout: Option<Spanned<String>>,
    cta_mode: Option<Spanned<String>>,
    align: Option<u64>,
    /// `[start, end)` program points.
    lifetime: Option<Spanned<[u64; 2]>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OverlapEntry {
    spec: Spanned<String>,
    tree: Spanned<Value>,
}

/// What `layout = "dummy_tmem"` stands for.
const DUMMY_TMEM: &str = "dummy_tmem";
/// A member line longer than this is broken over several lines by [`to_toml`].
const LINE_WIDTH: usize = 96;

/// The source text, for locating errors.
struct Cx<'a> {
    text: &'a str,
}

impl Cx<'_> {
    /// `line L, column C (ENTRY, key 'KEY'): MESSAGE`.
    fn err(&self, span: Range<usize>, entry: &str, key: &str, message: impl Display) -> AllocError {
        let (line, column) = line_col(self.text, span.start);
        let context = match (entry.is_empty(), key.is_empty()) {
            (true, true) => String::new(),
            (true, false) => format!(" (key '{key}')"),
            (false, true) => format!(" ({entry})"),
            (false, false) => format!(" ({entry}, key '{key}')"),
        };
        AllocError::Input(format!("line {line}, column {column}{context}: {message}"))
    }

    /// The [`Allocation`] an `[[alloc]]` table describes, its names resolved in `program`.
    fn allocation(
        &self,
        program: &Program,
        a: &AllocEntry,
        entry: &str,
    ) -> Result<Allocation, AllocError> {
        let name = a.name.get_ref();
        let dtype = a
            .dtype
            .get_ref()
            .parse::<DType>()
            .map_err(|e| self.err(a.dtype.span(), entry, "dtype", e))?;
        let (reuse, implied) = match (&a.spec, &a.reuse) {
            (Some(_), Some(r)) => {
                return Err(self.err(
                    r.span(),
                    entry,
                    "reuse",
                    "give spec = … (a storage_alias_spec) or reuse = … (legacy reuse of an earlier allocation), not both",
                ))
            }
            (Some(s), None) => {
                let id = program
                    .spec_id(s.get_ref())
                    .ok_or_else(|| self.err(s.span(), entry, "spec", no_spec(s.get_ref())))?;
                (Reuse::Spec(id), program.spec(id)?.storage)
            }
            (None, Some(r)) => {
                let id = program.alloc_id(r.get_ref()).ok_or_else(|| {
                    self.err(
                        r.span(),
                        entry,
                        "reuse",
                        format!("no earlier allocation named '{}'", r.get_ref()),
                    )
                })?;
                (Reuse::Alloc(id), program.allocation(id)?.storage)
            }
            (None, None) => (Reuse::None, Storage::Smem),
        };
        let storage = match &a.storage {
            Some(s) => s
                .get_ref()
                .parse::<Storage>()
                .map_err(|e| self.err(s.span(), entry, "storage", e))?,
            None => implied,
        };
        let cta_mode = match &a.cta_mode {
            Some(m) => Some(
                parse_cta_mode(m.get_ref())
                    .map_err(|e| self.err(m.span(), entry, "cta_mode", e))?,
            ),
            None => None,
        };
        let mut alloc = Allocation {
            name: name.clone(),
            shape: a.shape.clone(),
            dtype,
            num: a.num,
            storage,
            reuse,
            layout: AllocLayout::Default,
            align: a.align,
        };
        alloc.layout = match &a.layout {
            Some(l) => parse_layout(l.get_ref(), storage, cta_mode)
                .map_err(|e| self.err(l.span(), entry, "layout", e))?,
            None => match cta_mode {
                None | Some(CtaMode::Default) => AllocLayout::Default,
                Some(mode) => {
                    let span = a.cta_mode.as_ref().map_or(0..0, Spanned::span);
                    if storage != Storage::Tmem {
                        return Err(self.err(
                            span,
                            entry,
                            "cta_mode",
                            "cta_mode applies to tensor memory (storage = \"tmem\") only",
                        ));
                    }
                    match alloc.resolved_layout()? {
                        AllocLayout::Tmem(tm, _) => AllocLayout::Tmem(tm, mode),
                        _ => return Err(self.err(span, entry, "cta_mode", format!("{dtype} gets TLX's dummy TMEM layout, which has no CTA mode; give a #ttng.tensor_memory_encoding layout"))),
                    }
                }
            },
        };
        Ok(alloc)
    }

    /// The group a tree table describes; `path` names it in messages (`overlap.shared[1]`).
    fn group(&self, program: &Program, node: &Value, path: &str) -> Result<ReuseGroup, String> {
        let Value::Table(t) = node else {
            return Err(format!(
                "{path}: expected an allocation name or a group table, found {}",
                node.type_str()
            ));
        };
        if let Some(k) = t
            .keys()
            .find(|k| !matches!(k.as_str(), "shared" | "distinct" | "group_size"))
        {
            return Err(format!(
                "{path}: unknown key '{k}' in a group (expected shared = [...] or distinct = [...], and group_size)"
            ));
        }
        let (kind, members) = match (t.get("shared"), t.get("distinct")) {
            (Some(m), None) => (GroupKind::Shared, m),
            (None, Some(m)) => (GroupKind::Distinct, m),
            (Some(_), Some(_)) => {
                return Err(format!("{path}: a group is shared or distinct, not both"))
            }
            (None, None) => {
                return Err(format!(
                    "{path}: a group needs shared = [...] or distinct = [...]"
                ))
            }
        };
        let path = format!("{path}.{kind}");
        let Value::Array(members) = members else {
            return Err(format!(
                "{path}: expected an array of members, found {}",
                members.type_str()
            ));
        };
        let mut out = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            let at = format!("{path}[{i}]");
            out.push(match m {
                Value::String(name) => Member::Alloc(
                    program
                        .alloc_id(name)
                        .ok_or_else(|| format!("{at}: no allocation named '{name}'"))?,
                ),
                other => Member::Group(self.group(program, other, &at)?),
            });
        }
        let group = ReuseGroup::new(kind, out).map_err(|e| format!("{path}: {e}"))?;
        match t.get("group_size") {
            None => Ok(group),
            // Negative sizes never reach `group_size`, whose error would print them as u64.
            Some(Value::Integer(k)) => match u64::try_from(*k) {
                Ok(k) => group.group_size(k).map_err(|e| format!("{path}: {e}")),
                Err(_) => Err(format!(
                    "{path}: group_size must be a positive integer, got {k}"
                )),
            },
            Some(other) => Err(format!(
                "{path}: group_size must be a positive integer, found {}",
                other.type_str()
            )),
        }
    }
}

fn no_spec(name: &str) -> String {
    format!("no spec named '{name}' (declare it in a [[spec]] table)")
}

/// `default`, `two_cta_lhs`, `two_cta_rhs` (TLX's `TwoCTA_LHS`, `TwoCTA_RHS` too).
fn parse_cta_mode(text: &str) -> Result<CtaMode, String> {
    let key: String = text
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "default" => Ok(CtaMode::Default),
        "twoctalhs" => Ok(CtaMode::TwoCtaLhs),
        "twoctarhs" => Ok(CtaMode::TwoCtaRhs),
        _ => Err(format!(
            "unknown cta_mode '{text}' (expected default, two_cta_lhs or two_cta_rhs)"
        )),
    }
}

fn cta_mode_name(mode: CtaMode) -> &'static str {
    match mode {
        CtaMode::Default => "default",
        CtaMode::TwoCtaLhs => "two_cta_lhs",
        CtaMode::TwoCtaRhs => "two_cta_rhs",
    }
}

/// A `layout` value for an allocation in `storage`.
fn parse_layout(
    text: &str,
    storage: Storage,
    cta_mode: Option<CtaMode>,
) -> Result<AllocLayout, String> {
    let tmem = storage == Storage::Tmem;
    let t = text.trim();
    let layout = if t == DUMMY_TMEM || t.starts_with("#tlx.dummy_tmem_layout") {
        AllocLayout::DummyTmem
    } else if t.starts_with('#') {
        match Encoding::from_mlir(t).map_err(|e| e.to_string())? {
            Encoding::Shared(s) => AllocLayout::Shared(s),
            Encoding::TensorMemory(tm) => AllocLayout::Tmem(tm, cta_mode.unwrap_or_default()),
            _ => return Err(format!("'{t}' cannot hold an allocation: give a shared-memory attribute (#ttg.swizzled_shared, #ttg.nvmma_shared, #ttg.shared_linear), #ttng.tensor_memory_encoding or \"{DUMMY_TMEM}\"")),
        }
    } else {
        return Err(format!(
            "'{t}' is not a layout: give an MLIR attribute (#ttg.nvmma_shared<{{…}}>, #ttng.tensor_memory_encoding<…>, …) or \"{DUMMY_TMEM}\""
        ));
    };
    match (&layout, tmem) {
        (AllocLayout::Shared(_), true) => {
            Err("a shared-memory layout on a tensor-memory allocation".into())
        }
        (AllocLayout::Tmem(..) | AllocLayout::DummyTmem, false) => Err(format!(
            "a tensor-memory layout on a {storage} allocation (set storage = \"tmem\")"
        )),
        (AllocLayout::Shared(_) | AllocLayout::DummyTmem, _)
            if !matches!(cta_mode, None | Some(CtaMode::Default)) =>
        {
            Err("cta_mode needs a #ttng.tensor_memory_encoding layout".into())
        }
        _ => Ok(layout),
    }
}

// ---------------------------------------------------------------------------------------------
// Errors.

/// 1-based line and column (in characters) of byte `offset`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    let before = text.get(..o).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// toml's error on one line: where, which `[[spec]]`/`[[alloc]]` entry, which key, what.
fn toml_error(text: &str, e: &toml::de::Error) -> AllocError {
    let message = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let Some(span) = e.span() else {
        return AllocError::Input(message);
    };
    let entry = entry_at(text, span.start).unwrap_or_default();
    let key = key_before(text, span.start).unwrap_or_default();
    Cx { text }.err(span, &entry, &key, message)
}

/// `alloc #2 'p'`: the array-of-tables entry holding byte `offset`, with its `name` if the
/// entry has one that can be read.
fn entry_at(text: &str, offset: usize) -> Option<String> {
    let mut current: Option<(String, usize, usize)> = None;
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if pos > offset {
            break;
        }
        let t: String = line
            .split('#')
            .next()
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if let Some(table) = t.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
            let n = match counts.iter_mut().find(|(k, _)| k == table) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    counts.push((table.to_string(), 1));
                    1
                }
            };
            current = Some((table.to_string(), n, pos));
        } else if t.starts_with('[') {
            current = None;
        }
        pos += line.len();
    }
    let (table, n, start) = current?;
    let name = text
        .get(start..)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| toml::from_str::<toml::Table>(l).ok())
        .find_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string));
    Some(match name {
        Some(name) => format!("{table} #{n} '{name}'"),
        None => format!("{table} #{n}"),
    })
}

/// The key whose value starts at byte `offset` (`num = "2"` → `num`), if the value follows
/// `key =` on its line.
fn key_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset)?;
    let line = before.rsplit('\n').next()?;
    let key = line.trim_end().strip_suffix('=')?.trim_end();
    let key = key
        .rsplit(|c: char| c.is_whitespace() || c == '{' || c == ',')
        .next()?
        .trim_matches('"');
    (!key.is_empty()).then(|| key.to_string())
}

// ---------------------------------------------------------------------------------------------
// Writing.

fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn write_file(program: &Program, target: Option<Target>) -> String {
    let mut out = String::new();
    if let Some(t) = target {
        out.push_str(&format!("target = {}\n", quoted(&t.to_string())));
    }
    // Inline `overlap` keys when each spec has at most one, in spec order; else [[overlap]].
    let overlaps = program.overlaps();
    let inline = overlaps
        .windows(2)
        .all(|w| matches!(w, [a, b] if a.spec.index() < b.spec.index()));
    for (id, s) in program.specs() {
        out.push_str(&format!(
            "\n[[spec]]\nname = {}\nstorage = {}\n",
            quoted(&s.name),
            quoted(&s.storage.to_string())
        ));
        if let Some(size) = s.size {
            out.push_str(&format!("size = {size}\n"));
        }
        if inline {
            if let Some(o) = overlaps.iter().find(|o| o.spec == id) {
                out.push_str(&format!(
                    "overlap = {}\n",
                    tree_text(program, &o.tree, 0, 10)
                ));
            }
        }
    }
    for (_, a) in program.allocations() {
        write_alloc(&mut out, program, a);
    }
    if !inline {
        for o in overlaps {
            let spec = program
                .spec(o.spec)
                .map_or_else(|_| String::new(), |s| s.name.clone());
            out.push_str(&format!(
                "\n[[overlap]]\nspec = {}\ntree = {}\n",
                quoted(&spec),
                tree_text(program, &o.tree, 0, 7)
            ));
        }
    }
    out.trim_start_matches('\n').to_string()
}

fn write_alloc(out: &mut String, program: &Program, a: &Allocation) {
    let shape: Vec<String> = a.shape.iter().map(u64::to_string).collect();
    out.push_str(&format!(
        "\n[[alloc]]\nname = {}\nshape = [{}]\ndtype = {}\nnum = {}\n",
        quoted(&a.name),
        shape.join(", "),
        quoted(a.dtype.name()),
        a.num
    ));
    let implied = match a.reuse {
        Reuse::Spec(s) => {
            let spec = program.spec(s).ok();
            let name = spec.map_or_else(String::new, |s| s.name.clone());
            out.push_str(&format!("spec = {}\n", quoted(&name)));
            spec.map(|s| s.storage)
        }
        Reuse::Alloc(r) => {
            let reused = program.allocation(r).ok();
            let name = reused.map_or_else(String::new, |r| r.name.clone());
            out.push_str(&format!("reuse = {}\n", quoted(&name)));
            reused.map(|r| r.storage)
        }
        Reuse::None => Some(Storage::Smem),
    };
    if implied != Some(a.storage) {
        out.push_str(&format!("storage = {}\n", quoted(&a.storage.to_string())));
    }
    match &a.layout {
        AllocLayout::Default => {}
        AllocLayout::Shared(s) => {
            let attr = Encoding::Shared(s.clone()).to_mlir_for_rank(a.shape.len());
            out.push_str(&format!("layout = {}\n", quoted(&attr)));
        }
        AllocLayout::DummyTmem => out.push_str(&format!("layout = {}\n", quoted(DUMMY_TMEM))),
        AllocLayout::Tmem(tm, mode) => {
            // A CTA mode on TLX's default encoding needs no layout: parse rebuilds it.
            let default = Allocation {
                layout: AllocLayout::Default,
                ..a.clone()
            };
            let is_default = matches!(default.resolved_layout(),
                Ok(AllocLayout::Tmem(d, _)) if d == *tm);
            if !(is_default && *mode != CtaMode::Default) {
                let attr = Encoding::TensorMemory(tm.clone()).to_mlir();
                out.push_str(&format!("layout = {}\n", quoted(&attr)));
            }
            if *mode != CtaMode::Default {
                out.push_str(&format!("cta_mode = {}\n", quoted(cta_mode_name(*mode))));
            }
        }
    }
    if let Some(align) = a.align {
        out.push_str(&format!("align = {align}\n"));
    }
    if let Some(l) = program
        .alloc_id(&a.name)
        .and_then(|id| program.lifetime(id))
    {
        out.push_str(&format!("lifetime = [{}, {}]\n", l.start, l.end));
    }
}

/// A group as an inline table; on one line when it fits in [`LINE_WIDTH`] after `column`
/// characters, else with one member per line at `indent + 4` spaces.
fn tree_text(program: &Program, g: &ReuseGroup, indent: usize, column: usize) -> String {
    let one_line = tree_line(program, g);
    if column.saturating_add(one_line.len()) <= LINE_WIDTH {
        return one_line;
    }
    let inner = indent + 4;
    let lines: Vec<String> = g
        .members
        .iter()
        .map(|m| {
            let text = match m {
                Member::Alloc(a) => leaf_text(program, *a),
                Member::Group(sub) => tree_text(program, sub, inner, inner),
            };
            format!("{}{text},\n", " ".repeat(inner))
        })
        .collect();
    format!(
        "{{ {} = [\n{}{}]{} }}",
        g.kind,
        lines.concat(),
        " ".repeat(indent),
        group_size_text(g)
    )
}

/// A group on one line.
fn tree_line(program: &Program, g: &ReuseGroup) -> String {
    let members: Vec<String> = g
        .members
        .iter()
        .map(|m| match m {
            Member::Alloc(a) => leaf_text(program, *a),
            Member::Group(sub) => tree_line(program, sub),
        })
        .collect();
    format!(
        "{{ {} = [{}]{} }}",
        g.kind,
        members.join(", "),
        group_size_text(g)
    )
}

fn group_size_text(g: &ReuseGroup) -> String {
    if g.group_size == 1 {
        String::new()
    } else {
        format!(", group_size = {}", g.group_size)
    }
}

fn leaf_text(program: &Program, a: crate::AllocId) -> String {
    quoted(
        &program
            .allocation(a)
            .map_or_else(|_| format!("#{}", a.index()), |x| x.name.clone()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, PlanOptions};

    const FA: &str = r#"
target = "sm_100"

[[spec]]
name = "qk_storage"
storage = "tmem"
overlap = { shared = ["qk", { distinct = [{ shared = ["p"], group_size = 2 }, "alpha", "l", "m"] }] }

[[alloc]]
name = "qk"
shape = [128, 128]
dtype = "f32"
num = 2
spec = "qk_storage"

[[alloc]]
name = "p"
shape = [128, 64]
dtype = "bf16"
num = 4
spec = "qk_storage"

[[alloc]]
name = "alpha"
shape = [128, 1]
dtype = "f32"
num = 2
spec = "qk_storage"

[[alloc]]
name = "l"
shape = [128, 1]
dtype = "f32"
num = 2
spec = "qk_storage"

[[alloc]]
name = "m"
shape = [128, 1]
dtype = "f32"
num = 2
spec = "qk_storage"
"#;

    /// The same program through the builder, as in the crate docs.
    fn fa_program() -> Result<Program, AllocError> {
        let mut p = Program::new();
        let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
        let qk = p.local_alloc("qk", &[128, 128], DType::F32, 2, s)?;
        let pt = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
        let alpha = p.local_alloc("alpha", &[128, 1], DType::F32, 2, s)?;
        let l = p.local_alloc("l", &[128, 1], DType::F32, 2, s)?;
        let m = p.local_alloc("m", &[128, 1], DType::F32, 2, s)?;
        let slices = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
        let distinct = ReuseGroup::distinct(vec![slices.into(), alpha.into(), l.into(), m.into()])?;
        p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
        Ok(p)
    }

    fn message(text: &str) -> String {
        match PlanFile::parse(text) {
            Ok(_) => String::from("<parsed>"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn fa_forward_parses_to_the_builder_program() -> Result<(), AllocError> {
        let file = PlanFile::parse(FA)?;
        assert_eq!(file.program, fa_program()?);
        assert_eq!(file.target, Some(Target::SM100));
        let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
        let p: Vec<u64> = (0..4)
            .map(|i| plan.buffer_start("p", i))
            .collect::<Result<_, _>>()?;
        assert_eq!(p, [0, 32, 128, 160]);
        Ok(())
    }

    #[test]
    fn fa_forward_round_trips() -> Result<(), AllocError> {
        let file = PlanFile::parse(FA)?;
        let text = file.to_toml();
        assert_eq!(PlanFile::parse(&text)?, file);
        let tree = "overlap = { shared = [\n    \"qk\",\n    { distinct = [{ shared = [\"p\"], group_size = 2 }, \"alpha\", \"l\", \"m\"] },\n] }\n";
        assert!(text.contains(tree), "{text}");
        assert!(
            !text.contains("storage = \"tmem\"\nlayout"),
            "defaults stay implicit"
        );
        Ok(())
    }

    #[test]
    fn everything_round_trips() -> Result<(), AllocError> {
        let text = r##"
[[spec]]
name = "a_very_long_spec_name_for_breaking_lines"
storage = "smem"
buffer_size_bytes = 65536
overlap = { shared = ["first_allocation_name", { distinct = ["second_allocation_name", { shared = ["third_allocation_name"], group_size = 2 }] }] }

[[spec]]
name = "t"
storage = "tmem"

[[alloc]]
name = "first_allocation_name"
shape = [64, 64]
dtype = "bf16"
num = 2
spec = "a_very_long_spec_name_for_breaking_lines"
layout = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
align = 1024

[[alloc]]
name = "second_allocation_name"
shape = [64, 32]
dtype = "fp8e4nv"
num = 2
spec = "a_very_long_spec_name_for_breaking_lines"
layout = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>"

[[alloc]]
name = "third_allocation_name"
shape = [32, 32]
dtype = "i8"
num = 4
spec = "a_very_long_spec_name_for_breaking_lines"

[[alloc]]
name = "dq"
shape = [64, 128]
dtype = "f32"
num = 1
spec = "t"
cta_mode = "TwoCTA_RHS"

[[alloc]]
name = "x"
shape = [128, 64]
dtype = "f32"
num = 1
spec = "t"
layout = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>"

[[alloc]]
name = "y"
shape = [128, 64]
dtype = "i4"
num = 1
spec = "t"
layout = "dummy_tmem"

[[alloc]]
name = "plain"
shape = [256]
dtype = "f32"
num = 3

[[alloc]]
name = "view"
shape = [128]
dtype = "f16"
num = 2
reuse = "plain"

[[overlap]]
spec = "t"
tree = { distinct = ["dq", "x"] }

[[overlap]]
spec = "t"
tree = { shared = ["y"] }
"##;
        let program = parse(text)?;
        let written = to_toml(&program);
        assert_eq!(parse(&written)?, program, "{written}");
        assert!(written.contains("[[overlap]]"), "{written}");
        assert!(written.contains("cta_mode = \"two_cta_rhs\""), "{written}");
        let dq = program
            .alloc_id("dq")
            .map(|id| program.allocation(id))
            .transpose()?
            .map(|a| a.layout.clone());
        assert!(matches!(dq, Some(AllocLayout::Tmem(_, CtaMode::TwoCtaRhs))));
        // Without the extra overlaps the trees go inline again, the long one over lines.
        let cut = text.split("[[overlap]]").next().unwrap_or_default();
        let program = parse(cut)?;
        let written = to_toml(&program);
        assert!(
            written.contains("overlap = { shared = [\n    \"first_allocation_name\",\n"),
            "{written}"
        );
        assert_eq!(parse(&written)?, program, "{written}");
        Ok(())
    }

    #[test]
    fn toml_errors_name_line_entry_and_key() {
        let bad = FA.replace("num = 4", "num = \"4\"");
        let m = message(&bad);
        assert!(
            m.starts_with("line 20, column 7 (alloc #2 'p', key 'num'): "),
            "{m}"
        );
        let bad = FA.replace("dtype = \"bf16\"", "dtpe = \"bf16\"");
        let m = message(&bad);
        assert!(m.contains("alloc #2 'p'") && m.contains("dtpe"), "{m}");
        assert_eq!(m.lines().count(), 1, "{m}");
        let m = message("[[spec]]\nname = \"s\"\nstorage = tmem\n");
        assert!(
            m.starts_with("line 3, column 11 (spec #1 's', key 'storage'): "),
            "{m}"
        );
        let m = message(&FA.replace("shape = [128, 64]\n", ""));
        assert!(m.contains("alloc #2 'p'") && m.contains("shape"), "{m}");
    }

    #[test]
    fn value_errors_name_line_entry_and_key() {
        let m = message(&FA.replace("\"bf16\"", "\"bf17\""));
        assert!(
            m.starts_with("line 19, column 9 (alloc #2 'p', key 'dtype'): unknown dtype 'bf17'"),
            "{m}"
        );
        let m = message(&FA.replace("storage = \"tmem\"", "storage = \"gmem\""));
        assert!(
            m.starts_with(
                "line 6, column 11 (spec #1 'qk_storage', key 'storage'): unknown storage 'gmem'"
            ),
            "{m}"
        );
        let m = message(&FA.replace("\"alpha\", \"l\"", "\"alpha\", \"ll\""));
        assert!(m.starts_with("line 7, column 11 (spec #1 'qk_storage', key 'overlap'): overlap.shared[1].distinct[2]: no allocation named 'll'"), "{m}");
        let m = message(&FA.replace("group_size = 2", "group_size = 0"));
        assert!(m.ends_with("overlap.shared[1].distinct[0].shared: group_size must be a positive integer, got 0"), "{m}");
        let m = message(&FA.replace("{ shared = [\"p\"]", "{ shared = [\"p\"], distinct = []"));
        assert!(m.contains("not both"), "{m}");
        let m = message(&FA.replace(
            "overlap = { shared = [\"qk\"",
            "overlap = { shred = [\"qk\"",
        ));
        assert!(m.contains("unknown key 'shred'"), "{m}");
        let m = message(&FA.replace("[\"qk\", { distinct", "[\"qk\", 3, { distinct"));
        assert!(
            m.contains(
                "overlap.shared[1]: expected an allocation name or a group table, found integer"
            ),
            "{m}"
        );
        let m = message(&FA.replacen("spec = \"qk_storage\"", "spec = \"kq\"", 1));
        assert!(
            m.contains("(alloc #1 'qk', key 'spec'): no spec named 'kq'"),
            "{m}"
        );
        let m = message(&FA.replace("target = \"sm_100\"", "target = \"sm_75\""));
        assert!(
            m.starts_with("line 2, column 10 (key 'target'): unknown target 'sm_75'"),
            "{m}"
        );
        let m = message(&FA.replacen(
            "num = 2\nspec = \"qk_storage\"",
            "num = 2\nspec = \"qk_storage\"\nreuse = \"p\"",
            1,
        ));
        assert!(m.contains("not both"), "{m}");
        let m = message(&FA.replacen("spec = \"qk_storage\"", "reuse = \"m\"", 1));
        assert!(m.contains("no earlier allocation named 'm'"), "{m}");
    }

    #[test]
    fn layout_errors() {
        let with = |extra: &str| {
            message(&FA.replacen(
                "spec = \"qk_storage\"\n",
                &format!("spec = \"qk_storage\"\n{extra}\n"),
                1,
            ))
        };
        let m = with("layout = \"#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>\"");
        assert!(
            m.contains("key 'layout'): a shared-memory layout on a tensor-memory allocation"),
            "{m}"
        );
        let m = with("layout = \"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>\"");
        assert!(m.contains("cannot hold an allocation"), "{m}");
        let m = with("layout = \"#ttg.nvmma_shared<{swizzlingByteWidth = 128\"");
        assert!(m.contains("key 'layout'): parse error"), "{m}");
        let m = with("layout = \"swizzled\"");
        assert!(m.contains("is not a layout"), "{m}");
        let m = with("cta_mode = \"three_cta\"");
        assert!(m.contains("unknown cta_mode 'three_cta'"), "{m}");
        let m = with("layout = \"dummy_tmem\"\ncta_mode = \"two_cta_lhs\"");
        assert!(
            m.contains("cta_mode needs a #ttng.tensor_memory_encoding"),
            "{m}"
        );
        let smem = FA.replace("storage = \"tmem\"", "storage = \"smem\"");
        let m = message(&smem.replacen(
            "spec = \"qk_storage\"\n",
            "spec = \"qk_storage\"\ncta_mode = \"two_cta_rhs\"\n",
            1,
        ));
        assert!(m.contains("cta_mode applies to tensor memory"), "{m}");
    }

    #[test]
    fn builder_errors_keep_their_variant() {
        let dup = FA.replace("name = \"l\"", "name = \"m\"");
        assert!(matches!(parse(&dup), Err(AllocError::DuplicateName { .. })));
        let mismatch = FA.replacen(
            "spec = \"qk_storage\"\n",
            "spec = \"qk_storage\"\nstorage = \"smem\"\n",
            1,
        );
        let err = parse(&mismatch).err();
        assert!(
            matches!(err, Some(AllocError::StorageMismatch { .. })),
            "{err:?}"
        );
        let zero = FA.replace("storage = \"tmem\"", "storage = \"tmem\"\nsize = 0");
        assert!(matches!(
            parse(&zero),
            Err(AllocError::NonPositiveSize { .. })
        ));
    }

    #[test]
    fn hostile_input_is_an_error_not_a_panic() -> Result<(), AllocError> {
        for text in [
            "",
            "[[",
            "[[alloc]]\n",
            "overlap = 3",
            "[[spec]]\nname = \"s\"\nstorage = \"smem\"\noverlap = \"a\"",
            "[[alloc]]\nname = \"é\"\nshape = [1]\ndtype = \"f32\"\nnum = -1",
        ] {
            let _ = parse(text);
        }
        assert_eq!(parse("")?, Program::new());
        let m = message("[[spec]]\nname = \"s\"\nstorage = \"smem\"\noverlap = \"a\"");
        assert!(m.contains("the root of a reuse tree is a group"), "{m}");
        Ok(())
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\néx = 1", 6), (2, 3));
        assert_eq!(line_col("é", 1), (1, 1));
        assert_eq!(line_col("x", 99), (1, 2));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Edited plan files never panic the parser, and whatever parses writes back to the
        /// same program.
        #[test]
        fn edited_files_parse_or_fail_cleanly(
            edits in proptest::collection::vec((0usize..2000, proptest::prelude::any::<char>()), 1..4)
        ) {
            let mut text: Vec<char> = FA.chars().collect();
            for (at, c) in edits {
                let at = at % (text.len() + 1);
                if c.is_ascii_digit() || c == '"' || c == ']' || c == '}' {
                    text.insert(at, c);
                } else if at < text.len() {
                    text[at] = c;
                }
            }
            let text: String = text.into_iter().collect();
            if let Ok(file) = PlanFile::parse(&text) {
                proptest::prop_assert_eq!(PlanFile::parse(&file.to_toml()).ok(), Some(file));
            }
        }
    }
}
