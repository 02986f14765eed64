//! Reading a plan file: serde reads the file's shape (values that need checking keep their
//! spans), then each entry is checked and built into the [`Program`] in file order. Errors name
//! the line, column, entry and key.

use std::fmt::Display;
use std::ops::Range;

use linear_layout::families::{Encoding, SharedEncoding};
use serde::Deserialize;
use toml::de::{DeTable, DeValue};
use toml::{Spanned, Value};

use super::{PlanFile, DUMMY_TMEM};
use crate::{
    AllocError, AllocLayout, Allocation, CtaMode, DType, GroupKind, Member, Program, Reuse,
    ReuseGroup, Storage, Target,
};

/// Parses a plan file (see the [module docs](super) for the format).
pub(super) fn read(text: &str) -> Result<PlanFile, AllocError> {
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
                    match alloc.resolved_layout()?.into_owned() {
                        AllocLayout::Tmem(tm, _) => AllocLayout::Tmem(tm, mode),
                        _ => return Err(self.err(span, entry, "cta_mode", format!("{dtype} gets TLX's dummy TMEM layout, which has no CTA mode; give a #ttng.tensor_memory_encoding layout"))),
                    }
                }
            },
        };
        if let (Some(l), AllocLayout::Shared(SharedEncoding::Nvmma(n))) = (&a.layout, &alloc.layout)
        {
            if n.element_bitwidth != dtype.bits() {
                return Err(self.err(
                    l.span(),
                    entry,
                    "layout",
                    format!(
                        "the layout has elementBitWidth = {}, dtype {dtype} has {}-bit elements: \
                         make them agree",
                        n.element_bitwidth,
                        dtype.bits()
                    ),
                ));
            }
        }
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
            Encoding::TensorMemoryScales(sc) => AllocLayout::TmemScales(sc),
            _ => return Err(format!("'{t}' cannot hold an allocation: give a shared-memory attribute (#ttg.swizzled_shared, #ttg.nvmma_shared, #ttg.shared_linear), #ttng.tensor_memory_encoding, #ttng.tensor_memory_scales_encoding or \"{DUMMY_TMEM}\"")),
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
        (AllocLayout::Tmem(..) | AllocLayout::DummyTmem | AllocLayout::TmemScales(_), false) => {
            Err(format!(
                "a tensor-memory layout on a {storage} allocation (set storage = \"tmem\")"
            ))
        }
        (AllocLayout::Shared(_) | AllocLayout::DummyTmem | AllocLayout::TmemScales(_), _)
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
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
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
    let (entry, key) = locate(text, span.start);
    Cx { text }.err(span, &entry, &key, message)
}

/// Where byte `offset` is, from the document's own spans (read with toml's recovering parser,
/// so a document with a syntax error still has them): the `[[…]]` entry whose header, keys or
/// values hold it (`alloc #2 'p'`) and the key whose value holds it. Empty strings where there
/// is none (an unknown key has no value to blame). After a syntax error the recovered headers
/// may run over the broken text, so only keys and values place it then.
fn locate(text: &str, offset: usize) -> (String, String) {
    let (doc, errors) = DeTable::parse_recoverable(text);
    let headers = errors.is_empty();
    let holds = |span: Range<usize>| span.start <= offset && offset < span.end;
    let key_at = |t: &DeTable| {
        t.iter()
            .find(|(_, v)| holds(v.span()))
            .map(|(k, _)| k.get_ref().to_string())
            .unwrap_or_default()
    };
    for (k, v) in doc.get_ref().iter() {
        let DeValue::Array(items) = v.get_ref() else {
            continue;
        };
        for (n, item) in items.iter().enumerate() {
            let DeValue::Table(t) = item.get_ref() else {
                continue;
            };
            let inside = (headers && holds(item.span()))
                || t.iter()
                    .any(|(key, value)| holds(key.span()) || holds(value.span()));
            if !inside {
                continue;
            }
            let name = t.get("name").and_then(|n| match n.get_ref() {
                DeValue::String(s) => Some(s.to_string()),
                _ => None,
            });
            let label = match name {
                Some(name) => format!("{} #{} '{name}'", k.get_ref(), n + 1),
                None => format!("{} #{}", k.get_ref(), n + 1),
            };
            return (label, key_at(t));
        }
    }
    (String::new(), key_at(doc.get_ref()))
}
