//! `linalias plan FILE`: reads a plan file ([`alias_alloc::plan_file`]) or a kernel's TTGIR
//! ([`alias_alloc::mlir`]), plans it in one mode, runs the independent checker, and prints the
//! regions, one row per allocation, the memory map, utilisation, warnings and the checker's
//! verdict (or all of it as JSON).

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use alias_alloc::checker::Violation;
use alias_alloc::mlir::{lower_module, read_module};
use alias_alloc::plan_file::PlanFile;
use alias_alloc::report::{arena_limit, rewrite_text, starts, PlanOutcome, MAX_STARTS};
use alias_alloc::{report, AllocError, AllocPlan, Mode, Origin, Plan, PlanOptions, Program};
use alias_alloc::{Arena, SpecPlan, Warning};
use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};

use crate::cli::args::{Emit, PlanArgs, PlanMode};
use crate::cli::error::CliError;
use crate::cli::picture;

/// Runs `linalias plan` and returns its stdout.
pub fn run(args: PlanArgs) -> Result<String, CliError> {
    let file_arg = args.file.display().to_string();
    let mode = match args.mode {
        PlanMode::Tlx => Mode::TlxCompatible,
        PlanMode::Intended => Mode::Intended,
    };
    let text = read_file(&args.file)?;
    let module = is_module(&args.file, &text);
    if !module {
        not_a_buffer_list(&file_arg, &args.file, &text)?;
    }
    if let Some(Emit::Mlir) = args.emit {
        return emit_mlir(module, &file_arg, &text, mode, args.target);
    }
    // A plan file stands for the Python calls (see `message`).
    let python = !module;
    let (file, read_warnings) = read_program(module, &text)
        .map_err(|e| CliError::input(&file_arg, message(&e, mode, python)))?;
    let target = args.target.or(file.target).unwrap_or_default();
    if let Some(Emit::Toml) = args.emit {
        let file = PlanFile {
            target: Some(target),
            ..file
        };
        return Ok(file.to_toml());
    }
    let program = file.program;
    let options = PlanOptions { mode, target };
    let early: Vec<String> = program
        .early_warnings()
        .iter()
        .map(|w| warning_text(w, mode))
        .collect();
    let plan_error = |e: AllocError| CliError::Plan {
        file: file_arg.clone(),
        message: message(&e, mode, python),
        warnings: early.clone(),
    };
    // Lifetimes are this planner's (TLX has none): the regions are packed into arenas by them;
    // too large for the target, the report of what was planned, the rules it breaks last.
    let budget = std::time::Duration::from_millis(args.budget_ms);
    let mut outcome =
        PlanOutcome::new(&program, options, budget, args.emit.is_none()).map_err(plan_error)?;
    outcome.plan.warnings.splice(0..0, read_warnings);
    let over: Vec<String> = outcome
        .over
        .iter()
        .map(|e| message(e, mode, python))
        .collect();
    let refused = |report: String| match over.first() {
        Some(first) => Err(CliError::Findings {
            report,
            summary: format!("{file_arg}: {first}"),
            code: 1,
        }),
        None => Ok(report),
    };
    if let Some(Emit::Ptx) = args.emit {
        let addressed = match &outcome.packed {
            Some(p) => p.rebased().map_err(plan_error)?,
            None => outcome.plan,
        };
        return emit_ptx(&file_arg, &program, &addressed, args.num_warps);
    }
    let violations = outcome.violations(&program);
    let svg = match &args.svg {
        Some(path) => {
            // A kernel read from its IR is drawn whole, a plan file region by region.
            let svg = outcome.svg(&program, module).map_err(plan_error)?;
            picture::write(path, &svg)?;
            Some(path.display().to_string())
        }
        None => None,
    };
    let (plan, packed) = (&outcome.plan, &outcome.packed);
    let arenas = outcome.arenas();
    if args.json {
        let report = outcome.json(&file_arg, &program, &violations, svg.as_deref(), python);
        refused(format!("{report}\n"))
    } else {
        // Packed by lifetime, the arenas below are the kernel's memory: no totals of the
        // regions side by side.
        let totals = packed.is_none();
        let arenas = if packed.is_some() {
            arenas_text(arenas, args.budget_ms)
        } else if program.has_lifetimes() {
            "\nlifetimes: not used in tlx mode (TLX has none); plan in intended mode to pack by them\n".into()
        } else {
            String::new()
        };
        let mut out = text_report(
            &file_arg,
            &program,
            plan,
            &violations,
            svg.as_deref(),
            totals,
            &arenas,
        );
        for o in &over {
            out.push_str(&format!("\ndoes not fit: {o}"));
        }
        if !over.is_empty() {
            out.push('\n');
        }
        refused(out)
    }
}

/// `--emit mlir`: the module after the storage-alias lowering (a module given): TLX's in TLX
/// mode, with Intended's placement in Intended mode.
fn emit_mlir(
    module: bool,
    file: &str,
    text: &str,
    mode: Mode,
    target: Option<alias_alloc::Target>,
) -> Result<String, CliError> {
    if !module {
        return Err(CliError::input(
            file,
            "--emit mlir rewrites a TTGIR module; this is a plan file",
        ));
    }
    let input = |e: AllocError| CliError::input(file, message(&e, mode, false));
    let module = read_module(text).map_err(input)?;
    let target = match target {
        Some(t) => t,
        None => module.target().map_err(input)?,
    };
    let plan = module
        .program
        .plan(&PlanOptions { mode, target })
        .map_err(|e| CliError::Plan {
            file: file.to_owned(),
            message: message(&e, mode, false),
            warnings: module
                .program
                .early_warnings()
                .iter()
                .map(|w| warning_text(w, mode))
                .collect(),
        })?;
    // The module was read and planned: what the lowering cannot write is a refusal (exit 1).
    lower_module(&module, &plan).map_err(|e| CliError::Plan {
        file: file.to_owned(),
        message: message(&e, mode, false),
        warnings: Vec::new(),
    })
}

/// `--emit ptx`: the plan's kernels ([`PlanPtx`]); refused when no allocation got one.
fn emit_ptx(
    file: &str,
    program: &Program,
    plan: &Plan,
    num_warps: u32,
) -> Result<String, CliError> {
    let options = PlanPtxOptions {
        num_warps,
        ..PlanPtxOptions::default()
    };
    let refused = |message: String| CliError::Plan {
        file: file.to_owned(),
        message,
        warnings: Vec::new(),
    };
    let ptx = PlanPtx::new(program, plan, &options).map_err(|e| refused(e.to_string()))?;
    if ptx.allocations.is_empty() {
        // One line per reason, naming the allocations it stopped.
        let mut why: Vec<(String, Vec<String>)> = Vec::new();
        for s in &ptx.skipped {
            let text = s.error.to_string();
            let reason = text
                .strip_prefix(&format!("allocation '{}': ", s.allocation))
                .unwrap_or(&text)
                .to_owned();
            match why.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, names)) => names.push(s.allocation.clone()),
                None => why.push((reason, vec![s.allocation.clone()])),
            }
        }
        let why: Vec<String> = why
            .iter()
            .map(|(reason, names)| format!("'{}': {reason}", names.join("', '")))
            .collect();
        return Err(refused(format!(
            "no allocation can be emitted as PTX: {}",
            why.join("; ")
        )));
    }
    Ok(format!("// linalias plan {file} --emit ptx\n{ptx}"))
}

/// Refuses a MiniMalloc CSV or a JSON file given to `plan`: they are `pack`'s inputs, and read
/// as TOML they give a parse error that says nothing of the kind.
fn not_a_buffer_list(file: &str, path: &Path, text: &str) -> Result<(), CliError> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let csv = extension.eq_ignore_ascii_case("csv")
        || (first.contains(',') && first.to_ascii_lowercase().starts_with("id,"));
    // A JSON object or array; a TOML table header (`[[spec]]`, `[target]`) is not one.
    let array = first
        .strip_prefix('[')
        .map(str::trim_start)
        .is_some_and(|rest| {
            rest.is_empty()
                || rest.starts_with(['{', '"', ']', '-'])
                || rest.starts_with(|c: char| c.is_ascii_digit())
        });
    let json = extension.eq_ignore_ascii_case("json") || first.starts_with('{') || array;
    match (csv, json) {
        (true, _) => Err(CliError::input(
            file,
            "not a plan file: a CSV of buffers is packed by `linalias pack`",
        )),
        (_, true) => Err(CliError::input(
            file,
            "not a plan file (JSON): plan reads a TOML plan file or a TTGIR module (.mlir)",
        )),
        _ => Ok(()),
    }
}

/// Whether `text` (from `path`) is a TTGIR module rather than a plan file: a `.mlir` or
/// `.ttgir` file, or text with a line that opens a module (`module {`, `module attributes …`,
/// `module @name …`), which no plan file has.
fn is_module(path: &Path, text: &str) -> bool {
    if matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("mlir" | "ttgir")
    ) {
        return true;
    }
    text.lines().map(str::trim_start).any(|l| {
        l.strip_prefix("module")
            .is_some_and(|rest| rest.starts_with([' ', '{']) && !rest.trim_start().starts_with('='))
    })
}

/// The program (and the target it names) of a TTGIR module (`module`) or a plan file, and what
/// the reader warns about ([`Warning::NoTlxOps`]).
fn read_program(module: bool, text: &str) -> Result<(PlanFile, Vec<Warning>), AllocError> {
    if module {
        read_module(text)?.into_plan_file()
    } else {
        Ok((PlanFile::parse(text)?, Vec::new()))
    }
}

/// The file's text; `-` reads stdin.
pub(crate) fn read_file(path: &Path) -> Result<String, CliError> {
    let arg = path.display().to_string();
    if arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::input("FILE", format!("cannot read stdin: {e}")))?;
        return Ok(text);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input("FILE", format!("cannot read {arg}: {e}")))?;
    // A byte-order mark, as some editors write one, is not part of the file.
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// The error, with TLX's own text after it in TLX-compatible mode (where TLX has one): for a
/// plan file, which stands for the Python calls, the frontend's text where the frontend catches
/// the error; for a module, already past the frontend, the verifier's.
fn message(e: &AllocError, mode: Mode, python: bool) -> String {
    e.explain(mode, python)
}

/// A warning, with TLX's own text after it in TLX-compatible mode (where TLX has one).
fn warning_text(w: &alias_alloc::Warning, mode: Mode) -> String {
    w.explain(mode)
}

fn mode_text(mode: Mode) -> &'static str {
    match mode {
        Mode::TlxCompatible => "tlx (fbtriton 3.7.4's placement, quirks included)",
        Mode::Intended => "intended (the documented meaning of the reuse tree)",
    }
}

/// `region 'qk_storage' (tmem spec): 128 lanes × 256 columns, buffer_size_bytes 131072, U = 128
/// columns × 2 buffer groups`.
fn region_line(s: &SpecPlan) -> String {
    let unit = s.storage.unit();
    let origin = match s.origin {
        Origin::Spec(_) => "spec",
        Origin::Allocation(_) => "plain allocation",
    };
    let backing = if s.rows > 0 {
        format!("{} lanes × {} {unit}", s.rows, s.backing_units)
    } else {
        format!("{} {unit}", s.backing_units)
    };
    let mut line = format!(
        "region '{}' ({} {origin}): {backing}, buffer_size_bytes {}",
        s.name, s.storage, s.buffer_size_bytes
    );
    match (s.group_stride, s.groups) {
        _ if !s.phases.is_empty() => {
            let phases: Vec<String> = s
                .phases
                .iter()
                .map(|p| format!("{} × {} {unit}", p.groups, p.stride))
                .collect();
            let _ = write!(line, ", phase pool: {}", phases.join(", "));
        }
        (Some(u), Some(g)) => {
            let groups = if g == 1 {
                "buffer group"
            } else {
                "buffer groups"
            };
            let _ = write!(line, ", U = {u} {unit} × {g} {groups}");
        }
        (Some(u), None) => {
            let _ = write!(line, ", U = {u} {unit}");
        }
        _ => line.push_str(", no reuse tree"),
    }
    line
}

fn alias_shape_text(a: &AllocPlan) -> String {
    a.alias_shape
        .as_ref()
        .map_or_else(|| "-".into(), |s| format!("{s:?}"))
}

fn starts_text(a: &AllocPlan) -> String {
    let mut parts: Vec<String> = starts(a).iter().map(u64::to_string).collect();
    if a.num > MAX_STARTS as u64 {
        parts.push(format!("… ({} in all)", a.num));
    }
    parts.join(", ")
}

/// Rows of cells as a left-aligned table, two spaces between columns, indented by two.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::from("  ");
        for (c, cell) in row.iter().enumerate() {
            let width = widths.get(c).copied().unwrap_or(0);
            let _ = write!(
                line,
                "{cell}{}  ",
                " ".repeat(width.saturating_sub(cell.chars().count()))
            );
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn text_report(
    file: &str,
    program: &Program,
    plan: &Plan,
    violations: &[Violation],
    svg: Option<&str>,
    totals: bool,
    arenas: &str,
) -> String {
    let mut out = format!(
        "plan: {file}\nmode: {}\ntarget: {} ({} bytes of shared memory per block{})\n",
        mode_text(plan.mode),
        plan.target,
        plan.target.smem_bytes,
        if plan.target.has_tmem {
            ", tensor memory"
        } else {
            ", no tensor memory"
        }
    );
    let small = |r: usize| report::is_small(plan, r);
    // With lifetimes, each allocation's is a column: they decide what may share bytes.
    let lifetimes = program.has_lifetimes();
    for (region, s) in plan.specs.iter().enumerate() {
        if small(region) {
            continue;
        }
        let _ = writeln!(out, "\n{}", region_line(s));
        let mut header = vec!["allocation", "num", "unit", "align"];
        if lifetimes {
            header.push("live");
        }
        header.extend([
            "buffer map",
            "index rewrite",
            "alias shape",
            "buffer starts",
        ]);
        let mut rows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
        for a in plan.allocs.iter().filter(|a| a.region == region) {
            let mut row = alloc_cells(a);
            if lifetimes {
                row.push(
                    program
                        .lifetime(a.alloc)
                        .map_or("always".into(), |l| l.to_string()),
                );
            }
            row.extend([
                a.explicit.to_string(),
                rewrite_text(a),
                alias_shape_text(a),
                starts_text(a),
            ]);
            rows.push(row);
        }
        out.push_str(&table(&rows));
    }
    out.push_str(&small_table(plan));
    let map = report::memory_map_text_of(program, plan, |r| !small(r));
    let _ = write!(out, "\nmemory map:\n{map}");
    if !map.ends_with('\n') {
        out.push('\n');
    }
    // What the plan adds (the arenas), its warnings and totals, what was written, and the
    // checker's verdict last.
    out.push_str(arenas);
    if !plan.warnings.is_empty() {
        out.push('\n');
    }
    for w in &plan.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if totals {
        out.push_str(&totals_text(&report::kernel_totals(plan)));
    }
    if let Some(path) = svg {
        let _ = writeln!(out, "\nwrote {path}");
    }
    if violations.is_empty() {
        out.push_str("\nchecker: ok\n");
    } else {
        let _ = writeln!(out, "\nchecker: {} violation(s)", violations.len());
        for v in violations {
            let _ = writeln!(out, "  {v}");
        }
    }
    out
}

/// The cells every allocation table starts with: name, buffers, unit, alignment.
fn alloc_cells(a: &AllocPlan) -> Vec<String> {
    vec![
        a.name.clone(),
        a.num.to_string(),
        a.unit.to_string(),
        a.alignment.to_string(),
    ]
}

/// The small plain regions (mbarrier arrays, CLC contexts) in one table, or `""`.
fn small_table(plan: &Plan) -> String {
    let mut rows = vec![["allocation", "num", "unit", "align", "bytes"]
        .map(String::from)
        .to_vec()];
    for (region, s) in plan.specs.iter().enumerate() {
        if !report::is_small(plan, region) {
            continue;
        }
        for a in plan.allocs.iter().filter(|a| a.region == region) {
            let mut row = alloc_cells(a);
            row.push(s.backing_units.to_string());
            rows.push(row);
        }
    }
    if rows.len() == 1 {
        return String::new();
    }
    format!(
        "\nsmall allocations (plain shared memory, at most {} bytes each: mbarrier arrays, CLC contexts):\n{}",
        report::SMALL_REGION_BYTES,
        table(&rows)
    )
}

/// The kernel's totals against the target's limits.
fn totals_text(t: &report::KernelTotals) -> String {
    let verdict = |fits: bool, need: u64, limit: u64, unit: &str| {
        if fits {
            "fits".to_string()
        } else {
            format!("does not fit: {} {unit} over", need.saturating_sub(limit))
        }
    };
    let mut out = String::from("\n");
    if !t.smem.is_empty() {
        let _ = writeln!(
            out,
            "kernel: shared memory {} of {} bytes: {} (the allocations as Triton places them; its scratch for layout conversions comes on top)",
            t.smem_bytes,
            t.smem_limit,
            verdict(t.smem_fits(), t.smem_bytes, t.smem_limit, "bytes")
        );
    }
    if !t.tmem.is_empty() {
        let _ = writeln!(
            out,
            "kernel: tensor memory {} of {} columns: {} (each region rounded to a tcgen05.alloc size; the kernel's tcgen05.alloc takes {})",
            t.tmem_columns,
            t.tmem_limit,
            verdict(t.tmem_fits(), t.tmem_columns, t.tmem_limit, "columns"),
            t.tmem_allocated
        );
    }
    out
}

/// The arenas of a packed plan: per storage kind, each region's lifetime, size and offset.
fn arenas_text(arenas: &[Arena], budget_ms: u64) -> String {
    let mut out = String::new();
    for a in arenas {
        let _ = writeln!(
            out,
            "\n{} arena (regions packed by lifetime): {} of {} {}; lower bound {}{}; one after another {}",
            a.storage,
            a.peak,
            a.capacity,
            a.storage.unit(),
            a.lower_bound,
            match arena_limit(a) {
                None => ", optimal".to_string(),
                Some("nodes") => format!(
                    ", not proved optimal (the search stopped at its {} nodes)",
                    alias_alloc::arena::ARENA_NODES
                ),
                Some(_) => format!(
                    ", not proved optimal (the search stopped at --budget-ms {budget_ms})"
                ),
            },
            a.unpacked,
        );
        let mut rows = vec![["region", "live", "units", "align", "offset"]
            .map(String::from)
            .to_vec()];
        for s in &a.slots {
            rows.push(vec![
                s.name.clone(),
                s.lifetime.to_string(),
                s.units.to_string(),
                s.alignment.to_string(),
                s.offset.to_string(),
            ]);
        }
        out.push_str(&table(&rows));
    }
    out
}
