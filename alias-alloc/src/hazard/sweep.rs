//! [`TripCounts`] and [`SweepReport`]: a kernel checked at every residue of its loops' trip
//! counts modulo the period of its ring arithmetic (`linalias check --sweep`).
//!
//! A ring of `R` barriers is taken at slot `i mod R` with phase `(i / R) & 1`: its waits repeat
//! every `2R` laps, and a kernel's every `lcm(2, 2R, …)` laps (a barrier of its own has phases
//! `i & 1`). Where a loop counter runs on across a loop's end — into an epilogue, the next
//! tile of a persistent kernel — what the next loop or tile meets depends on the trip count
//! modulo that period: a wait on a constant phase can pass in step at even trip counts and race
//! at odd ones. One trip count checks one residue; the sweep checks them all.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use super::read::{bounding_params, laps, loaded_bound_steps, rings, Steps};
use super::{CheckReport, HazardError, ReadOptions};
use crate::mlir::read_module;

/// The trip counts a sweep runs. Each value that bounds loops and is not given — a parameter
/// (`N_CTX`), or the stride of the `cu_seqlens` lengths — starts at the default's laps of its
/// longest-step loops and rises by its shortest step, run after run, until every loop it bounds
/// has run `period` consecutive trip counts: `period` runs where all its loops step alike,
/// `period · ⌈longest / shortest⌉` where they do not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TripCounts {
    /// The parameters swept (those that bound a loop and were not given), each with the steps
    /// of the loops it bounds (`N_CTX → 128`).
    pub swept: BTreeMap<String, Steps>,
    /// The loop-bounding parameters given in the options, not swept.
    pub pinned: Vec<String>,
    /// Where loops run over a length read from memory (`cu_seqlens`) and
    /// [`ReadOptions::seq_stride`] is not given: the steps of those loops; the stride is swept
    /// with the parameters.
    pub seq: Option<Steps>,
    /// The barrier rings' sizes (arrays of barriers picked by an index that is not constant).
    pub rings: Vec<u64>,
    /// `lcm(2, 2R for every ring R)`: the laps after which every ring's slots and phases
    /// repeat.
    pub period: i64,
    /// The laps of the longest-step loops in the first run: the default's (4, or `R + 1` for
    /// the longest ring).
    pub first: i64,
    /// How many runs; 0 when nothing is swept (one run, at the options as given).
    pub runs: usize,
}

impl TripCounts {
    /// The trip counts of `text` under `opts` (its given parameters stay as given).
    ///
    /// Errors: what [`read_module`] refuses, as [`HazardError::Module`].
    ///
    /// ```
    /// use alias_alloc::hazard::{ReadOptions, TripCounts};
    /// let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"),
    ///     "/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir"))
    ///     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let t = TripCounts::new(&text, &ReadOptions::default())?;
    /// assert_eq!(t.rings, vec![3]); // kv and q rings of 3 barriers
    /// assert_eq!((t.period, t.first, t.runs), (6, 4, 6));
    /// let n_ctx: Vec<i64> = t.options(&ReadOptions::default()).iter().map(|o| o.params["N_CTX"]).collect();
    /// assert_eq!(n_ctx, [512, 640, 768, 896, 1024, 1152]); // 4 to 9 laps of 128
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn new(text: &str, opts: &ReadOptions) -> Result<Self, HazardError> {
        let km = read_module(text).map_err(|e| HazardError::Module {
            message: e.to_string(),
        })?;
        let m = &km.module;
        let (pinned, swept): (BTreeMap<String, Steps>, BTreeMap<String, Steps>) =
            bounding_params(m)
                .into_iter()
                .partition(|(name, _)| opts.params.contains_key(name));
        let pinned = pinned.into_keys().collect();
        let rings: Vec<u64> = rings(m).into_iter().collect();
        let period = rings
            .iter()
            .map(|&r| i64::try_from(r.saturating_mul(2)).unwrap_or(i64::MAX))
            .fold(2, lcm);
        let first = laps(m, opts.laps);
        let seq = loaded_bound_steps(m).filter(|_| opts.seq_stride.is_none());
        // Runs enough for the shortest-step loops to see `period` consecutive trip counts too.
        let spread = swept
            .values()
            .chain(seq.iter())
            .map(|s| {
                let shortest = s.shortest.max(1);
                (s.longest.saturating_add(shortest - 1) / shortest).max(1)
            })
            .max();
        let runs = spread.map_or(0, |k| {
            usize::try_from(period.saturating_mul(k)).unwrap_or(usize::MAX)
        });
        Ok(TripCounts {
            swept,
            pinned,
            seq,
            rings,
            period,
            first,
            runs,
        })
    }

    /// `opts` with every swept value set to `laps` laps of its shortest-step loops (what
    /// `--every-trip-count` reads a trip count with; below `R + 1` laps too, unlike
    /// [`ReadOptions::laps`]).
    ///
    /// ```
    /// use alias_alloc::hazard::{ReadOptions, TripCounts};
    /// let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"),
    ///     "/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir"))
    ///     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let t = TripCounts::new(&text, &ReadOptions::default())?;
    /// assert_eq!(t.at_laps(&ReadOptions::default(), 2).params["N_CTX"], 256);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn at_laps(&self, opts: &ReadOptions, laps: u32) -> ReadOptions {
        let mut o = opts.clone();
        for (name, s) in &self.swept {
            o.params
                .insert(name.clone(), s.shortest.saturating_mul(i64::from(laps)));
        }
        if let Some(s) = self.seq {
            o.seq_stride = Some(s.shortest.saturating_mul(i64::from(laps)));
        }
        o
    }

    /// What run `k` gives a value bounding loops of `steps`.
    fn value(&self, steps: Steps, k: usize) -> i64 {
        steps.longest.saturating_mul(self.first).saturating_add(
            steps
                .shortest
                .saturating_mul(i64::try_from(k).unwrap_or(i64::MAX)),
        )
    }

    /// One [`ReadOptions`] per run: `opts` with every swept value set; `opts` alone when
    /// nothing is swept.
    pub fn options(&self, opts: &ReadOptions) -> Vec<ReadOptions> {
        if self.runs == 0 {
            return vec![opts.clone()];
        }
        (0..self.runs)
            .map(|k| {
                let mut o = opts.clone();
                for (name, &steps) in &self.swept {
                    o.params.insert(name.clone(), self.value(steps, k));
                }
                if let Some(steps) = self.seq {
                    o.seq_stride = Some(self.value(steps, k));
                }
                o
            })
            .collect()
    }

    /// What run `k` sets, as `N_CTX=640` (`seq_stride=640` for the `cu_seqlens` stride).
    pub fn label(&self, k: usize) -> String {
        let mut out: Vec<String> = self
            .swept
            .iter()
            .map(|(n, &steps)| format!("{n}={}", self.value(steps, k)))
            .collect();
        if let Some(steps) = self.seq {
            out.push(format!("seq_stride={}", self.value(steps, k)));
        }
        out.join(" ")
    }

    /// What the sweep covers, in words (the report's first line).
    pub fn describe(&self) -> String {
        let rings = if self.rings.is_empty() {
            "no barrier ring".to_string()
        } else {
            format!(
                "rings of {} barriers",
                self.rings
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let last = self.runs.saturating_sub(1);
        let mut what: Vec<String> = self
            .swept
            .iter()
            .map(|(n, &s)| {
                format!(
                    "{n} from {} to {} by {}",
                    self.value(s, 0),
                    self.value(s, last),
                    s.shortest
                )
            })
            .collect();
        if let Some(s) = self.seq {
            what.push(format!(
                "the cu_seqlens stride from {} to {} by {}",
                self.value(s, 0),
                self.value(s, last),
                s.shortest
            ));
        }
        if self.runs > 0 {
            format!(
                "{} runs, {}: every loop through {} consecutive trip counts, every residue modulo {} ({rings})",
                self.runs,
                what.join(", "),
                self.period,
                self.period
            )
        } else if !self.pinned.is_empty() {
            format!(
                "one run: {} given, not swept ({rings})",
                self.pinned.join(", ")
            )
        } else {
            format!(
                "one run: no parameter bounds a loop (trip counts from tile positions; {rings})"
            )
        }
    }
}

/// The greatest common divisor (`gcd(0, b) = |b|`).
pub(super) fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The least common multiple (saturating).
pub(super) fn lcm(a: i64, b: i64) -> i64 {
    (a / gcd(a, b).max(1)).saturating_mul(b)
}

/// A kernel checked at every trip count of a [`TripCounts`].
pub struct SweepReport {
    /// The kernel's name in the report (its file).
    pub file: String,
    /// What was swept.
    pub trips: TripCounts,
    /// One report per run, in the order of [`TripCounts::options`], or the reader's refusal of
    /// that run (a fault it meets, a trace past its limit): a refused run does not hide what
    /// the others find.
    pub runs: Vec<Result<CheckReport, HazardError>>,
}

impl SweepReport {
    /// Reads and checks `text` at every trip count of `trips` (with `samples` random executions
    /// each, as [`CheckReport::new`]).
    ///
    /// Errors: input the reader cannot take at all (the module, a parameter the kernel does
    /// not have: [`HazardError::exit_code`] 2); any other refusal is kept as that run's.
    ///
    /// ```
    /// use alias_alloc::hazard::{ReadOptions, SweepReport, TripCounts};
    /// let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"),
    ///     "/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir"))
    ///     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let opts = ReadOptions::default();
    /// let trips = TripCounts::new(&text, &opts)?;
    /// let r = SweepReport::new("fa_ws_pipelined", &text, &opts, trips, 0)?;
    /// assert_eq!(r.runs.len(), 6);
    /// assert_eq!(r.exit_code(), 0);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn new(
        file: &str,
        text: &str,
        opts: &ReadOptions,
        trips: TripCounts,
        samples: usize,
    ) -> Result<Self, HazardError> {
        let mut runs = Vec::new();
        let reader = super::KernelReader::new(text, opts.mode)?;
        for o in trips.options(opts) {
            match reader.read(&o) {
                Ok(k) => runs.push(Ok(CheckReport::new(file, k, samples))),
                Err(e) if e.exit_code() == 2 => return Err(e),
                Err(e) => runs.push(Err(e)),
            }
        }
        Ok(SweepReport {
            file: file.to_owned(),
            trips,
            runs,
        })
    }

    /// Run `i`'s exit code: its report's, or its refusal's.
    fn code(&self, i: usize) -> u8 {
        match self.runs.get(i) {
            Some(Ok(r)) => r.exit_code(),
            Some(Err(e)) => e.exit_code(),
            None => 0,
        }
    }

    /// The index of the run a finding comes from: the first with exit code 1, else the first
    /// with 3.
    pub fn first_finding(&self) -> Option<usize> {
        [1, 3]
            .into_iter()
            .find_map(|c| (0..self.runs.len()).find(|&i| self.code(i) == c))
    }

    /// The worst of the runs' exit codes: 1 (a hazard, a protocol finding or a fault at some
    /// trip count) before 3 (unknowns, a run the check cannot decide) before 0.
    pub fn exit_code(&self) -> u8 {
        self.first_finding().map_or(0, |i| self.code(i))
    }

    /// The summary line.
    pub fn summary(&self) -> String {
        let count = |c: u8| (0..self.runs.len()).filter(|&i| self.code(i) == c).count();
        let mut s = format!(
            "{} runs: {} verified, {} with a hazard or protocol finding, {} with unknowns",
            self.runs.len(),
            count(0),
            count(1),
            count(3)
        );
        if let Some(i) = self.first_finding() {
            let _ = write!(s, "; first at {}", self.trips.label(i));
        }
        s
    }

    /// The report as text: what is swept, a line per run, the full report of the first run
    /// with a finding, the summary; where nothing is swept, what is swept and the one run's
    /// report.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let tiles = self
            .runs
            .iter()
            .find_map(|r| r.as_ref().ok())
            .map(|r| super::check_report::tiles_text(&r.kernel).join(" "))
            .filter(|t| !t.is_empty())
            .map_or(String::new(), |t| format!("; at {t}"));
        let _ = writeln!(out, "{}: {}{tiles}", self.file, self.trips.describe());
        let line = |r: &Result<CheckReport, HazardError>| match r {
            Ok(r) => format!("{} events; {}", r.kernel.trace.events.len(), r.summary()),
            Err(e) => format!("refused: {e}"),
        };
        if self.trips.runs == 0 {
            for r in &self.runs {
                match r {
                    Ok(r) => out.push_str(&r.text()),
                    Err(_) => {
                        let _ = writeln!(out, "{}", line(r));
                    }
                }
            }
            return out;
        }
        for (i, r) in self.runs.iter().enumerate() {
            let _ = writeln!(out, "{:<12} {}", self.trips.label(i), line(r));
        }
        if let Some(i) = self.first_finding() {
            let _ = writeln!(out, "--- {}", self.trips.label(i));
            match self.runs.get(i) {
                Some(Ok(r)) => out.push_str(&r.text()),
                Some(r @ Err(_)) => {
                    let _ = writeln!(out, "{}", line(r));
                }
                None => {}
            }
        }
        let _ = writeln!(out, "summary: {}", self.summary());
        out
    }

    /// The report as one JSON object: what is swept and each run's report (or `refused` with
    /// the reader's reason and the run's exit code).
    pub fn json(&self) -> Value {
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|r| match r {
                Ok(r) => r.json(),
                Err(e) => json!({"refused": e.to_string(), "exit_code": e.exit_code()}),
            })
            .collect();
        json!({
            "kernel": self.file,
            "swept": self.trips.swept,
            "seq": self.trips.seq,
            "rings": self.trips.rings,
            "period": self.trips.period,
            "first": self.trips.first,
            "runs": runs,
            "summary": {
                "runs": self.runs.len(),
                "exit_code": self.exit_code(),
                "first_finding": self.first_finding().map(|i| self.trips.label(i)),
            },
        })
    }

    /// The swimlanes of the first run with a finding, else of the first run read.
    pub fn svg(&self) -> String {
        self.first_finding()
            .and_then(|i| self.runs.get(i))
            .and_then(|r| r.as_ref().ok())
            .or_else(|| self.runs.iter().find_map(|r| r.as_ref().ok()))
            .map_or_else(String::new, CheckReport::svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcm_of_ring_periods() {
        assert_eq!([6, 4].into_iter().fold(2, lcm), 12);
        assert_eq!([12].into_iter().fold(2, lcm), 12);
        assert_eq!([8, 4].into_iter().fold(2, lcm), 8);
    }
}
