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

use super::read::{bounding_params, longest_ring, rings};
use super::{CheckReport, HazardError, ReadOptions};
use crate::mlir::read_module;

/// The trip counts a sweep runs: each loop-bounding parameter left free at `laps` laps of its
/// loop, for every `laps` in `first .. first + period`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TripCounts {
    /// The parameters swept (those that bound a loop and were not given), each with the step
    /// one lap of its loop takes (`N_CTX → 128`).
    pub swept: BTreeMap<String, i64>,
    /// The loop-bounding parameters given in the options, not swept.
    pub pinned: Vec<String>,
    /// The barrier rings' sizes (arrays of barriers picked by an index that is not constant).
    pub rings: Vec<u64>,
    /// `lcm(2, 2R for every ring R)`: the laps after which every ring's slots and phases
    /// repeat.
    pub period: i64,
    /// The laps of each run, in order: `period` consecutive counts from the default's (4, or
    /// `R + 1` for the longest ring); none when nothing is swept (one run, at `opts`).
    pub laps: Vec<i64>,
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
    /// assert_eq!(t.period, 6);
    /// assert_eq!(t.laps, vec![4, 5, 6, 7, 8, 9]);
    /// assert_eq!(t.options(&ReadOptions::default())[1].params["N_CTX"], 640);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn new(text: &str, opts: &ReadOptions) -> Result<Self, HazardError> {
        let km = read_module(text).map_err(|e| HazardError::Module {
            message: e.to_string(),
        })?;
        let m = &km.module;
        let (pinned, swept): (BTreeMap<String, i64>, BTreeMap<String, i64>) = bounding_params(m)
            .into_iter()
            .partition(|(name, _)| opts.params.contains_key(name));
        let pinned = pinned.into_keys().collect();
        let rings: Vec<u64> = rings(m).into_iter().collect();
        let period = rings
            .iter()
            .map(|&r| i64::try_from(r.saturating_mul(2)).unwrap_or(i64::MAX))
            .fold(2, lcm);
        let first = opts.laps.max(
            i64::try_from(longest_ring(m))
                .unwrap_or(i64::MAX)
                .saturating_add(1),
        );
        let laps = if swept.is_empty() {
            Vec::new()
        } else {
            (0..period).map(|k| first.saturating_add(k)).collect()
        };
        Ok(TripCounts {
            swept,
            pinned,
            rings,
            period,
            laps,
        })
    }

    /// One [`ReadOptions`] per run: `opts` with every swept parameter at its laps; `opts`
    /// alone when nothing is swept.
    pub fn options(&self, opts: &ReadOptions) -> Vec<ReadOptions> {
        if self.laps.is_empty() {
            return vec![opts.clone()];
        }
        self.laps
            .iter()
            .map(|&laps| {
                let mut o = opts.clone();
                for (name, step) in &self.swept {
                    o.params.insert(name.clone(), step.saturating_mul(laps));
                }
                o
            })
            .collect()
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
        match (self.swept.is_empty(), self.laps.first(), self.laps.last()) {
            (false, Some(a), Some(b)) => format!(
                "{} over {} trip counts, {a} to {b} laps: every residue modulo {} ({rings})",
                self.swept.keys().cloned().collect::<Vec<_>>().join(", "),
                self.laps.len(),
                self.period
            ),
            _ if !self.pinned.is_empty() => format!(
                "one run: {} given, not swept ({rings})",
                self.pinned.join(", ")
            ),
            _ => format!(
                "one run: no parameter bounds a loop (trip counts from tile positions or loaded data; {rings})"
            ),
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: i64, b: i64) -> i64 {
    (a / gcd(a, b).max(1)).saturating_mul(b)
}

/// A kernel checked at every trip count of a [`TripCounts`].
pub struct SweepReport {
    /// The kernel's name in the report (its file).
    pub file: String,
    /// What was swept.
    pub trips: TripCounts,
    /// One report per run, in the order of `trips.laps` (one when nothing is swept).
    pub runs: Vec<CheckReport>,
}

impl SweepReport {
    /// Reads and checks `text` at every trip count of `trips` (with `samples` random executions
    /// each, as [`CheckReport::new`]).
    ///
    /// Errors: the first run the reader refuses, with its error.
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
        let runs = trips
            .options(opts)
            .iter()
            .map(|o| {
                Ok(CheckReport::new(
                    file,
                    super::read_kernel(text, o)?,
                    samples,
                ))
            })
            .collect::<Result<Vec<_>, HazardError>>()?;
        Ok(SweepReport {
            file: file.to_owned(),
            trips,
            runs,
        })
    }

    /// The run a finding comes from: the first with exit code 1, else the first with 3.
    pub fn first_finding(&self) -> Option<&CheckReport> {
        [1, 3]
            .into_iter()
            .find_map(|c| self.runs.iter().find(|r| r.exit_code() == c))
    }

    /// The worst of the runs' exit codes: 1 (a hazard or protocol finding at some trip
    /// count) before 3 (unknowns) before 0.
    pub fn exit_code(&self) -> u8 {
        self.first_finding().map_or(0, CheckReport::exit_code)
    }

    fn swept_params(&self, r: &CheckReport) -> String {
        self.trips
            .swept
            .keys()
            .filter_map(|n| Some(format!("{n}={}", r.kernel.params.get(n)?)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The summary line.
    pub fn summary(&self) -> String {
        let count = |c: u8| self.runs.iter().filter(|r| r.exit_code() == c).count();
        let mut s = format!(
            "{} trip counts: {} verified, {} with a hazard or protocol finding, {} with unknowns",
            self.runs.len(),
            count(0),
            count(1),
            count(3)
        );
        if let Some(r) = self.first_finding() {
            let _ = write!(s, "; first at {}", self.swept_params(r));
        }
        s
    }

    /// The report as text: what is swept, a line per run, the full report of the first run
    /// with a finding, the summary; where nothing is swept, what is swept and the one run's
    /// report.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}: {}", self.file, self.trips.describe());
        if self.trips.swept.is_empty() {
            for r in &self.runs {
                out.push_str(&r.text());
            }
            return out;
        }
        for r in &self.runs {
            let _ = writeln!(
                out,
                "{:<12} {} events; {}",
                self.swept_params(r),
                r.kernel.trace.events.len(),
                r.summary()
            );
        }
        if let Some(r) = self.first_finding() {
            let _ = writeln!(out, "--- {}", self.swept_params(r));
            out.push_str(&r.text());
        }
        let _ = writeln!(out, "summary: {}", self.summary());
        out
    }

    /// The report as one JSON object: what is swept and each run's report.
    pub fn json(&self) -> Value {
        json!({
            "kernel": self.file,
            "swept": self.trips.swept,
            "rings": self.trips.rings,
            "period": self.trips.period,
            "laps": self.trips.laps,
            "runs": self.runs.iter().map(CheckReport::json).collect::<Vec<_>>(),
            "summary": {
                "runs": self.runs.len(),
                "exit_code": self.exit_code(),
                "first_finding": self.first_finding().map(|r| self.swept_params(r)),
            },
        })
    }

    /// The swimlanes of the first run with a finding, else of the first run.
    pub fn svg(&self) -> String {
        self.first_finding()
            .or(self.runs.first())
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
