//! `linalias pack FILE.csv`: reads buffers with lifetimes (MiniMalloc CSV,
//! [`packing::csv`]), packs them with the exact solver or a greedy rule, verifies
//! the placement with the independent checker, and prints the offsets, the peak, the lower
//! bound, peak ÷ LB, the time and whether the peak is proved optimal (or all of it as JSON).
//! When the placement does not fit the capacity it fails with the diagnosis.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use packing::bound::{live_bound, LiveBound};
use packing::chart::placement_svg;
use packing::check::{check, Violation};
use packing::csv::{read_csv, write_csv};
use packing::exact::{minimize, SolveOptions, MAX_SEARCH_PAIRS};
use packing::greedy::{best_fit_by_size_until, first_fit_by_lifetime};
use packing::{diagnose, Placement, Problem};
use serde_json::{json, Value};

use crate::cli::args::{PackAlgo, PackArgs};
use crate::cli::error::CliError;
use crate::cli::picture;
use crate::cli::plan_cmd::read_file;

/// Ids named in a diagnosis before the rest are counted.
const MAX_NAMED: usize = 8;

/// What a packer returned, whichever it was.
struct Outcome {
    placement: Placement,
    peak: u64,
    proven_optimal: bool,
    /// Search nodes (the exact solver only).
    nodes: Option<u64>,
    /// The exact search did not run: the instance's conflicting pairs, past the limit.
    search_skipped: Option<u64>,
    elapsed: Duration,
    /// The exact solver's explanation of why the capacity cannot be met, if it has one.
    explanation: Option<diagnose::Infeasibility>,
    /// Best fit stopped at the budget: (placed, buffers); the placement is first fit's.
    stopped: Option<(usize, usize)>,
}

/// Runs `linalias pack`, streaming its report to `out`: the buffers are written one by one,
/// so the report's size costs no memory (#30).
pub fn run(args: PackArgs, out: &mut dyn Write) -> Result<(), CliError> {
    // The budget bounds the whole command: reading the file counts against it.
    let started = Instant::now();
    let file = args.file.display().to_string();
    let text = read_file(&args.file)?;
    let (capacity, source) = match (args.capacity, capacity_from_name(&args.file)) {
        (Some(c), _) => (Some(c), "--capacity"),
        (None, Some(c)) => (Some(c), "the file name"),
        (None, None) => (None, "none"),
    };
    let problem =
        read_csv(&text, capacity).map_err(|e| CliError::input("FILE", format!("{file}: {e}")))?;
    let budget = Duration::from_millis(args.budget_ms);
    let limit = match args.max_nodes {
        Some(n) => Limit::Nodes(n),
        None => Limit::Time(budget.saturating_sub(started.elapsed())),
    };
    let outcome = solve(&problem, args.algo, limit).map_err(|e| CliError::Pack {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let bound = live_bound(&problem);
    // The checker judges validity; fitting the capacity is judged below, with a diagnosis.
    let violations: Vec<Violation> = check(&problem, &outcome.placement)
        .into_iter()
        .filter(|v| !matches!(v, Violation::OverCapacity { .. }))
        .collect();
    if !violations.is_empty() {
        let list: Vec<String> = violations.iter().map(ToString::to_string).collect();
        return Err(CliError::Pack {
            file,
            message: format!(
                "the {} packer produced an invalid placement (a bug): {}",
                algo_name(args.algo),
                list.join("; ")
            ),
        });
    }
    let mut written = Vec::new();
    if let Some(path) = &args.svg {
        let svg =
            placement_svg(&problem, &outcome.placement).map_err(|e| CliError::input("--svg", e))?;
        picture::write(path, &svg)?;
        written.push(path.display().to_string());
    }
    if let Some(path) = &args.out {
        let csv = write_csv(&problem, Some(&outcome.placement))
            .map_err(|e| CliError::input("--out", e))?;
        std::fs::write(path, csv).map_err(|e| {
            CliError::input("--out", format!("cannot write {}: {e}", path.display()))
        })?;
        written.push(path.display().to_string());
    }
    let report = Report {
        file: &file,
        problem: &problem,
        outcome: &outcome,
        bound: &bound,
        source,
        algo: args.algo,
        budget,
        max_nodes: args.max_nodes,
        written: &written,
    };
    let Some(c) = capacity.filter(|&c| outcome.peak > c) else {
        let head = (args.json).then(|| report.json());
        return streamed(report.write(out, head.as_ref()));
    };
    // Does not fit: the whole report, then the diagnosis over lines, the advice last.
    let why = diagnosis(&problem, &outcome, &bound, c, args.algo);
    let advice = advice(&outcome, &bound, c, args.algo, budget);
    let headline = why.lines().next().unwrap_or_default().to_owned();
    let written = if args.json {
        let mut json = report.json();
        if let Some(object) = json.as_object_mut() {
            object.insert("fits".into(), json!(false));
            object.insert("diagnosis".into(), json!(why));
            object.insert("advice".into(), json!(advice));
        }
        report.write(out, Some(&json))
    } else {
        report
            .write(out, None)
            .and_then(|()| write!(out, "\n{why}\nadvice: {advice}\n"))
    };
    streamed(written)?;
    Err(CliError::Findings {
        report: String::new(),
        summary: format!("{file}: {headline}"),
        code: 1,
    })
}

/// A streamed report's write: a closed pipe (`| head`) is the reader's choice, not an error,
/// and does not change the exit code.
fn streamed(written: std::io::Result<()>) -> Result<(), CliError> {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Output(e)),
        _ => Ok(()),
    }
}

/// What to do about a placement over `capacity`, naming the flag to change.
fn advice(
    outcome: &Outcome,
    bound: &LiveBound,
    capacity: u64,
    algo: PackAlgo,
    budget: Duration,
) -> String {
    let ms = budget.as_millis();
    let proved = bound.peak > capacity
        || outcome.explanation.as_ref().is_some_and(|i| i.proved)
        || (algo == PackAlgo::Exact && outcome.proven_optimal);
    if proved {
        format!(
            "no placement fits {capacity}: shrink or shorten the buffers named above, or raise \
             --capacity"
        )
    } else if algo == PackAlgo::Exact {
        format!("a placement may exist (none was proved impossible): raise --budget-ms (now {ms})")
    } else {
        format!("a placement may exist: try --algo exact (with --budget-ms, now {ms})")
    }
}

/// The capacity MiniMalloc's naming convention puts in a file name: `a.6.csv` → 6,
/// `A.1048576.csv` → 1048576; none for `-` or a name without a number before `.csv`.
pub fn capacity_from_name(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".csv")?;
    let (_, number) = stem.rsplit_once('.')?;
    number.parse().ok()
}

fn algo_name(algo: PackAlgo) -> &'static str {
    match algo {
        PackAlgo::Exact => "exact",
        PackAlgo::FirstFit => "first-fit",
        PackAlgo::BestFit => "best-fit",
    }
}

/// What ends the exact search: the wall clock, or a count of nodes (reproducible).
#[derive(Debug, Clone, Copy)]
enum Limit {
    Time(Duration),
    Nodes(u64),
}

fn solve(problem: &Problem, algo: PackAlgo, limit: Limit) -> Result<Outcome, packing::PackError> {
    // Best fit and the diagnosis are bounded by the time budget; with a node limit they run
    // to their own (deterministic) ends.
    let budget = match limit {
        Limit::Time(t) => Some(t),
        Limit::Nodes(_) => None,
    };
    let lb = live_bound(problem).peak;
    let greedy = |placement: Placement, elapsed: Duration| -> Result<Outcome, _> {
        let peak = placement.peak(problem)?;
        Ok(Outcome {
            placement,
            peak,
            proven_optimal: peak == lb,
            nodes: None,
            search_skipped: None,
            elapsed,
            explanation: None,
            stopped: None,
        })
    };
    let start = Instant::now();
    match algo {
        PackAlgo::FirstFit => greedy(first_fit_by_lifetime(problem)?, start.elapsed()),
        PackAlgo::BestFit => {
            // Best fit is quadratic when every buffer is live together: it stops at the
            // budget, and the placement is then first fit's (near-linear), said so.
            let deadline = budget.map(|b| start + b);
            match best_fit_by_size_until(problem, deadline) {
                Ok(placement) => greedy(placement, start.elapsed()),
                Err(packing::PackError::Deadline { placed, buffers }) => {
                    let mut outcome = greedy(first_fit_by_lifetime(problem)?, start.elapsed())?;
                    outcome.stopped = Some((placed, buffers));
                    Ok(outcome)
                }
                Err(e) => Err(e),
            }
        }
        PackAlgo::Exact => {
            let options = match limit {
                Limit::Time(t) => SolveOptions {
                    budget: Some(t),
                    ..SolveOptions::default()
                },
                Limit::Nodes(n) => SolveOptions {
                    budget: None,
                    node_limit: Some(n),
                    ..SolveOptions::default()
                },
            };
            let solution = minimize(problem, &options)?;
            let explanation = problem
                .capacity()
                .filter(|&c| solution.peak > c)
                .and_then(|_| {
                    diagnose::explain_within(problem, &solution, budget.map(|b| start + b))
                });
            Ok(Outcome {
                peak: solution.peak,
                proven_optimal: solution.proven_optimal || solution.peak == lb,
                nodes: Some(solution.nodes),
                search_skipped: solution.search_skipped,
                elapsed: solution.elapsed,
                explanation,
                placement: solution.placement,
                stopped: None,
            })
        }
    }
}

/// The decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// `a, b, c` or `a, b, … (12 in all)`.
fn ids(problem: &Problem, indices: &[usize]) -> String {
    let mut names: Vec<String> = indices
        .iter()
        .take(MAX_NAMED)
        .filter_map(|&i| problem.buffers().get(i).map(|b| b.id.clone()))
        .collect();
    if indices.len() > MAX_NAMED {
        names.push(format!("… ({} in all)", indices.len()));
    }
    names.join(", ")
}

/// Why the placement does not fit: the exact solver's own diagnosis when it has one (it
/// names the peak, the live set and a conflicting subset), else the peak against the capacity
/// and the live set at the peak when LB alone is over, or what is left to try.
fn diagnosis(
    problem: &Problem,
    outcome: &Outcome,
    bound: &LiveBound,
    capacity: u64,
    algo: PackAlgo,
) -> String {
    if let Some(explanation) = &outcome.explanation {
        return explanation.to_string();
    }
    let why = if bound.peak > capacity {
        format!(
            "at time {} the live buffers need {} together, {} over the capacity: {}",
            bound.at,
            bound.peak,
            bound.peak - capacity,
            ids(problem, &bound.live)
        )
    } else if algo == PackAlgo::Exact && outcome.proven_optimal {
        format!("no placement is lower than {} (proved)", outcome.peak)
    } else if algo == PackAlgo::Exact {
        "LB fits, but the exact solver found no placement within the budget (not proved \
         infeasible; try a larger --budget-ms)"
            .to_string()
    } else {
        "LB fits, so a placement may exist: try --algo exact".to_string()
    };
    format!(
        "does not fit in capacity {capacity}: the {} placement needs {} (LB {})\n  {why}",
        algo_name(algo),
        outcome.peak,
        bound.peak
    )
}

/// Everything the report prints.
struct Report<'a> {
    file: &'a str,
    problem: &'a Problem,
    outcome: &'a Outcome,
    bound: &'a LiveBound,
    source: &'static str,
    algo: PackAlgo,
    budget: Duration,
    /// `--max-nodes`, which replaces the time budget of the exact search.
    max_nodes: Option<u64>,
    written: &'a [String],
}

impl Report<'_> {
    fn ratio(&self) -> Option<f64> {
        (self.bound.peak > 0).then(|| self.outcome.peak as f64 / self.bound.peak as f64)
    }

    /// What ended the search, when something did before it finished: best fit stopped at the
    /// budget, or an exact search that did not prove its peak (its nodes or its time).
    fn limit(&self) -> Value {
        if let Some((placed, buffers)) = self.outcome.stopped {
            return json!({
                "reason": "budget",
                "placed_by_best_fit": placed,
                "buffers": buffers,
                "placement": "first-fit",
            });
        }
        match (self.algo, self.outcome.proven_optimal, self.outcome.nodes) {
            (PackAlgo::Exact, false, Some(nodes)) if self.outcome.search_skipped.is_some() => {
                json!({
                    "reason": "size",
                    "conflict_pairs": self.outcome.search_skipped,
                    "max_search_pairs": MAX_SEARCH_PAIRS,
                    "nodes": nodes,
                })
            }
            (PackAlgo::Exact, false, Some(nodes)) => {
                let by_nodes = self.max_nodes.is_some_and(|m| nodes >= m);
                json!({ "reason": if by_nodes { "nodes" } else { "budget" }, "nodes": nodes })
            }
            _ => Value::Null,
        }
    }

    fn algo_text(&self) -> String {
        match self.algo {
            PackAlgo::Exact => match self.max_nodes {
                Some(n) => format!("exact (branch and bound, at most {n} nodes: reproducible)"),
                None => format!(
                    "exact (branch and bound, budget {} ms)",
                    self.budget.as_millis()
                ),
            },
            PackAlgo::FirstFit => {
                "first-fit (PTOAS: program order, lowest offset free over the lifetime)".into()
            }
            PackAlgo::BestFit => match self.outcome.stopped {
                None => {
                    "best-fit (TFLite: largest first, into the smallest gap that holds it)".into()
                }
                Some((placed, buffers)) => format!(
                    "best-fit stopped at the {} ms budget after {placed} of {buffers} buffers \
                     (it is quadratic when all are live together): the placement is first-fit's; \
                     raise --budget-ms to let best fit finish",
                    self.budget.as_millis()
                ),
            },
        }
    }

    /// The report, as text (`json` is `None`) or as `json` (from [`Report::json`], its
    /// `buffers` left `null`), ending with a newline. The buffers are written one by one, as
    /// rows or as JSON objects, never held: memory independent of the report's size (#30).
    fn write(&self, out: &mut dyn Write, json: Option<&Value>) -> std::io::Result<()> {
        let Some(json) = json else {
            return self.write_text(out);
        };
        let text = json.to_string();
        // The key is found in the text serde_json wrote: a `"` inside a string value (a file
        // name, an id in the diagnosis) is escaped as `\"`, so only the key itself matches.
        let (head, tail) = text
            .split_once("\"buffers\":null")
            .unwrap_or((text.as_str(), ""));
        write!(out, "{head}\"buffers\":[")?;
        for (k, (b, o)) in self
            .problem
            .buffers()
            .iter()
            .zip(&self.outcome.placement.offsets)
            .enumerate()
        {
            // Keys in serde_json's (sorted) order, as the rest of the object.
            write!(
                out,
                r#"{}{{"alignment":{},"id":{},"lower":{},"offset":{o},"size":{},"upper":{}}}"#,
                if k > 0 { "," } else { "" },
                b.alignment,
                Value::String(b.id.clone()),
                b.lower,
                b.size,
                b.upper
            )?;
        }
        writeln!(out, "]{tail}")
    }

    /// The text report; its table of buffers is written row by row, its column widths taken
    /// in a first pass (the layout of `plan_cmd::table`).
    fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "pack: {}", self.file)?;
        let buffers = self.problem.len();
        match self.problem.capacity() {
            Some(c) => writeln!(
                out,
                "buffers: {buffers}, capacity {c} (from {})",
                self.source
            )?,
            None => writeln!(out, "buffers: {buffers}, no capacity (minimising the peak)")?,
        }
        writeln!(out, "algorithm: {}\n", self.algo_text())?;
        let header = ["id", "lower", "upper", "size", "align", "offset"];
        let rows = || {
            self.problem
                .buffers()
                .iter()
                .zip(&self.outcome.placement.offsets)
                .map(|(b, &o)| (b.id.as_str(), [b.lower, b.upper, b.size, b.alignment, o]))
        };
        let mut widths = header.map(str::len);
        for (id, numbers) in rows() {
            let lengths = std::iter::once(id.chars().count()).chain(numbers.map(digits));
            for (w, n) in widths.iter_mut().zip(lengths) {
                *w = (*w).max(n);
            }
        }
        let mut line = String::new();
        let mut row = |cells: [&dyn std::fmt::Display; 6]| {
            line.clear();
            line.push_str("  ");
            for (cell, width) in cells.iter().zip(widths) {
                let _ = write!(line, "{cell:<width$}  ");
            }
            writeln!(out, "{}", line.trim_end())
        };
        row(header.each_ref().map(|h| -> &dyn std::fmt::Display { h }))?;
        for (id, [lower, upper, size, align, offset]) in rows() {
            row([&id, &lower, &upper, &size, &align, &offset])?;
        }
        writeln!(out, "\npeak: {}", self.outcome.peak)?;
        writeln!(
            out,
            "lower bound: {} (live at time {}: buffers {})",
            self.bound.peak,
            self.bound.at,
            ids(self.problem, &self.bound.live)
        )?;
        match self.ratio() {
            Some(r) => writeln!(out, "peak ÷ LB: {r:.4}")?,
            None => writeln!(out, "peak ÷ LB: -")?,
        }
        let ms = self.outcome.elapsed.as_secs_f64() * 1e3;
        match self.outcome.nodes {
            Some(n) => writeln!(out, "time: {ms:.3} ms ({n} nodes)")?,
            None => writeln!(out, "time: {ms:.3} ms")?,
        }
        writeln!(
            out,
            "{}",
            if self.outcome.proven_optimal {
                "proved optimal".to_owned()
            } else if let Some(pairs) = self.outcome.search_skipped {
                format!(
                    "not proved optimal: {pairs} pairs of buffers live together, past the \
                     search's {MAX_SEARCH_PAIRS}; the best greedy rule's placement (a larger \
                     --budget-ms changes nothing)"
                )
            } else {
                "not proved optimal".to_owned()
            }
        )?;
        writeln!(out, "checker: ok")?;
        for path in self.written {
            writeln!(out, "wrote {path}")?;
        }
        Ok(())
    }

    /// The report as JSON, `buffers` left `null`: [`Report::write`] writes them.
    fn json(&self) -> Value {
        let buffers = Value::Null;
        json!({
            "file": self.file,
            "capacity": self.problem.capacity(),
            "capacity_from": self.source,
            "algorithm": algo_name(self.algo),
            "limit": self.limit(),
            "budget_ms": (self.algo == PackAlgo::Exact && self.max_nodes.is_none())
                .then_some(u64::try_from(self.budget.as_millis()).unwrap_or(u64::MAX)),
            "max_nodes": self.max_nodes,
            "buffers": buffers,
            "peak": self.outcome.peak,
            "lower_bound": self.bound.peak,
            "lower_bound_at": self.bound.at,
            "ratio": self.ratio(),
            "time_ms": self.outcome.elapsed.as_secs_f64() * 1e3,
            "nodes": self.outcome.nodes,
            "proven_optimal": self.outcome.proven_optimal,
            "checker": { "ok": true, "violations": [] },
            "written": self.written,
        })
    }
}
