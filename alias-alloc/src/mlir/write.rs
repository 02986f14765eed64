//! [`write_module`]: a [`Program`] as the TTGIR module TLX's frontend would give
//! `tlx-storage-alias-lowering` — the inverse of [`read_module`](super::read_module).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use linear_layout::families::Encoding;

use crate::{
    AllocError, AllocId, AllocLayout, CtaMode, GroupKind, Member, Program, Reuse, ReuseGroup,
    Storage, Target,
};
use linear_layout::mlir::lexer::is_suffix_id_char;

/// The module of `program` for `target`: one attribute alias per layout, the specs, every
/// allocation in program order (`tlx.storage_alias_local_alloc`, `tlx.local_alias`,
/// `ttg.local_alloc`, `ttng.tmem_alloc`), then each reuse tree and its
/// `tlx.set_buffer_overlap`, in one `tt.func`. TLX's default layouts are written out.
/// [`read_module`](super::read_module) gives back a program that plans the same.
///
/// Not written (MLIR has no place for them): lifetimes and explicit `align`s.
///
/// Errors: [`AllocError::Input`] for a name that is not an SSA name (`[A-Za-z0-9_$.-]`), or a
/// layout TLX's defaults cannot resolve.
///
/// ```
/// use alias_alloc::mlir::{read_module, write_module};
/// use alias_alloc::{DType, Mode, PlanOptions, Program, ReuseGroup, Storage, Target};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// let a = p.local_alloc("a", &[64, 64], DType::BF16, 2, s)?;
/// let b = p.local_alloc("b", &[64, 64], DType::BF16, 2, s)?;
/// p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
/// let text = write_module(&p, Target::SM100)?;
/// assert!(text.contains("%b = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xbf16, #shared0, #smem, mutable>"));
/// let back = read_module(&text)?.program;
/// let options = PlanOptions::new(Mode::TlxCompatible);
/// assert_eq!(back.plan(&options)?.spec("s")?.backing_units, p.plan(&options)?.spec("s")?.backing_units);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn write_module(program: &Program, target: Target) -> Result<String, AllocError> {
    let mut w = Writer::default();
    let mut body = String::new();
    for (_, s) in program.specs() {
        let name = ssa(&s.name)?;
        let ty = spec_type(s.storage, s.size);
        let size = s.size.map_or(String::new(), |n| format!(", size = {n}"));
        let _ = writeln!(
            body,
            "    %{name} = tlx.storage_alias_spec storage = {}{size} : {ty}",
            s.storage
        );
    }
    for (id, a) in program.allocations() {
        let name = ssa(&a.name)?;
        let ty = w.memdesc(program, id)?;
        let line = match a.reuse {
            Reuse::Spec(s) => {
                let spec = program.spec(s)?;
                format!(
                    "tlx.storage_alias_local_alloc %{} : {} -> {ty}",
                    ssa(&spec.name)?,
                    spec_type(spec.storage, spec.size)
                )
            }
            Reuse::Alloc(r) => format!(
                "tlx.local_alias %{} : {} -> {ty}",
                ssa(&program.allocation(r)?.name)?,
                w.memdesc(program, r)?
            ),
            Reuse::None if a.storage == Storage::Tmem => format!("ttng.tmem_alloc : () -> {ty}"),
            Reuse::None => format!("ttg.local_alloc : () -> {ty}"),
        };
        let _ = writeln!(body, "    %{name} = {line}");
    }
    let mut next = 0;
    for o in program.overlaps() {
        let spec = program.spec(o.spec)?;
        let group = w.group(program, &o.tree, &mut next, &mut body)?;
        let _ = writeln!(
            body,
            "    tlx.set_buffer_overlap(%{}, %{group}) : ({}, !tlx.reuse_group<{}>) -> ()",
            ssa(&spec.name)?,
            spec_type(spec.storage, spec.size),
            kind(o.tree.kind)
        );
    }
    let mut out = String::new();
    for (text, name) in &w.aliases {
        let _ = writeln!(out, "{name} = {text}");
    }
    out.push_str("#smem = #ttg.shared_memory\n");
    let _ = writeln!(
        out,
        "module attributes {{\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:{}\", \"ttg.threads-per-warp\" = 32 : i32}} {{",
        target.sm
    );
    out.push_str("  tt.func public @kernel() {\n");
    out.push_str(&body);
    out.push_str("    tt.return\n  }\n}\n");
    Ok(out)
}

/// Attribute aliases by text, and the memdesc types of allocations.
#[derive(Default)]
struct Writer {
    aliases: BTreeMap<String, String>,
}

impl Writer {
    /// `#sharedN` / `#tmemN` for an attribute text, defined once.
    fn alias(&mut self, text: String, stem: &str) -> String {
        let count = self.aliases.len();
        self.aliases
            .entry(text)
            .or_insert_with(|| format!("#{stem}{count}"))
            .clone()
    }

    /// `!ttg.memdesc<NUMxSHAPExT, #enc, #space, mutable>` of an allocation.
    fn memdesc(&mut self, program: &Program, id: AllocId) -> Result<String, AllocError> {
        let a = program.allocation(id)?;
        let dims: Vec<String> = std::iter::once(a.num)
            .chain(a.shape.iter().copied())
            .map(|d| d.to_string())
            .collect();
        let (enc, space) = match a.resolved_layout()?.into_owned() {
            AllocLayout::Shared(s) => {
                let text = Encoding::Shared(s.clone()).to_mlir_for_rank(a.shape.len());
                (self.alias(text, "shared"), "#smem")
            }
            AllocLayout::Tmem(tm, mode) => {
                let text = Encoding::TensorMemory(tm).to_mlir();
                let text = match mode {
                    CtaMode::Default => text,
                    CtaMode::TwoCtaLhs => with_cta_mode(&text, "twocta_lhs"),
                    CtaMode::TwoCtaRhs => with_cta_mode(&text, "twocta_rhs"),
                };
                (self.alias(text, "tmem"), "#ttng.tensor_memory")
            }
            AllocLayout::TmemScales(sc) => (
                self.alias(Encoding::TensorMemoryScales(sc).to_mlir(), "tmem_scales"),
                "#ttng.tensor_memory",
            ),
            AllocLayout::DummyTmem => (
                self.alias("#tlx.dummy_tmem_layout<>".into(), "dummy"),
                "#ttng.tensor_memory",
            ),
            AllocLayout::Default => {
                return Err(AllocError::Input(format!(
                    "allocation '{}': TLX's default layout did not resolve",
                    a.name
                )))
            }
        };
        Ok(format!(
            "!ttg.memdesc<{}x{}, {enc}, {space}, mutable>",
            dims.join("x"),
            a.dtype.mlir()
        ))
    }

    /// Writes the `tlx.reuse_group` ops of `g` (children first) and returns its SSA number.
    fn group(
        &mut self,
        program: &Program,
        g: &ReuseGroup,
        next: &mut usize,
        body: &mut String,
    ) -> Result<usize, AllocError> {
        let mut operands = Vec::new();
        let mut types = Vec::new();
        for m in &g.members {
            match m {
                Member::Alloc(a) => {
                    operands.push(format!("%{}", ssa(&program.allocation(*a)?.name)?));
                    types.push(self.memdesc(program, *a)?);
                }
                Member::Group(c) => {
                    let n = self.group(program, c, next, body)?;
                    operands.push(format!("%{n}"));
                    types.push(format!("!tlx.reuse_group<{}>", kind(c.kind)));
                }
            }
        }
        let n = *next;
        *next += 1;
        let size = if g.group_size > 1 {
            format!(", group_size = {}", g.group_size)
        } else {
            String::new()
        };
        let _ = writeln!(
            body,
            "    %{n} = tlx.reuse_group({}) group_kind = {}{size} : ({}) -> !tlx.reuse_group<{}>",
            operands.join(", "),
            kind(g.kind),
            types.join(", "),
            kind(g.kind)
        );
        Ok(n)
    }
}

fn kind(k: GroupKind) -> &'static str {
    match k {
        GroupKind::Shared => "shared",
        GroupKind::Distinct => "distinct",
    }
}

fn spec_type(storage: Storage, size: Option<u64>) -> String {
    match size {
        Some(n) => format!("!tlx.storage_alias_spec<{storage}, {n}>"),
        None => format!("!tlx.storage_alias_spec<{storage}>"),
    }
}

/// `…, colStride = 1>` → `…, colStride = 1, ctaMode = MODE>`.
fn with_cta_mode(text: &str, mode: &str) -> String {
    match text.strip_suffix('>') {
        Some(head) => format!("{head}, ctaMode = {mode}>"),
        None => text.to_string(),
    }
}

/// `name` if it is an SSA name MLIR can print (and not a number, which MLIR renumbers).
fn ssa(name: &str) -> Result<&str, AllocError> {
    // LangRef's suffix-id, without the all-digits form (MLIR renumbers those).
    let whole = !name.is_empty() && name.chars().all(is_suffix_id_char);
    if whole && !name.starts_with(|c: char| c.is_ascii_digit()) {
        Ok(name)
    } else {
        Err(AllocError::Input(format!(
            "'{name}' cannot be an SSA name in MLIR (letters, digits, _ $ . -; not starting with a digit)"
        )))
    }
}
