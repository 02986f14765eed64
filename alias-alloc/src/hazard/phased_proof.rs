//! [`PhasedProof`]: a kernel whose partitions run loops one after another, proved or refuted at
//! every trip count phase by phase (`linalias check --every-trip-count`; `docs/hazard-check.md`,
//! *Loops in sequence*): cut at its joins ([`phases`]), each phase read at its own loops' laps
//! and proved as [`TripCountProof`] proves a kernel of one loop.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::phases::phases;
use super::read::{KernelReader, KernelTrace, ReadOptions};
use super::sweep::TripCounts;
use super::trip_count_proof::{prove, refuse, Counted, TripCountProof};
use super::HazardError;

/// A kernel of loops in sequence at every trip count of each.
#[derive(Debug, Clone)]
pub struct PhasedProof {
    /// The joins the phases are cut at, in order (`mp_join_0[0]`).
    pub joins: Vec<String>,
    /// Each phase's proof, in order: its laps are its own loops' (`K = 64 · laps` for a loop
    /// stepping 64), whatever the others run.
    pub phases: Vec<TripCountProof>,
}

impl PhasedProof {
    /// Proves or refutes `text`, as read under `opts`, at every trip count of every phase;
    /// `None` when no partition runs loops one after another ([`TripCountProof::new`] proves
    /// it whole). A phase's trip counts are proved apart from the others' — every combination
    /// the kernel's bound sets is among them. Refuses ([`HazardError::Unsupported`]) what
    /// [`phases`] refuses, a phase without a loop, loops in sequence bounded by more than one
    /// value, and what [`TripCountProof::new`] refuses of a phase; `opts.params` may not fix
    /// the bound ([`HazardError::PinnedBound`]).
    ///
    /// ```
    /// use alias_alloc::hazard::{PhasedProof, ReadOptions, PROOF_BUDGET};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/triple_gemm_multiphase/before.mlir");
    /// # let text = std::fs::read_to_string(path)
    /// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
    /// let none = || alias_alloc::hazard::HazardError::Module { message: "one loop a partition".into() };
    /// let proof = PhasedProof::new(&text, &ReadOptions::default(), PROOF_BUDGET)?
    ///     .ok_or_else(none)?; // three GEMMs one after another
    /// assert_eq!(proof.joins, ["mp_join_0[0]", "mp_join_1[0]"]);
    /// // The third GEMM's loop steps 64 through K, the first two's 128.
    /// let steps: Vec<i64> = proof.phases.iter().map(|p| p.counted.bounds[0].1).collect();
    /// assert_eq!(steps, [128, 128, 64]);
    /// assert_eq!(proof.exit_code(), 0); // every phase verified at every trip count
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn new(text: &str, opts: &ReadOptions, budget: usize) -> Result<Option<Self>, HazardError> {
        let trips = TripCounts::new(text, opts)?;
        if let Some(name) = trips.pinned.first() {
            return Err(HazardError::PinnedBound { name: name.clone() });
        }
        let first = u32::try_from(trips.first).map_err(|_| refuse("a trip count past u32"))?;
        let reader = KernelReader::new(text, opts.mode)?;
        let kt = reader.read(&trips.at_laps(opts, first))?;
        let Some(cut) = phases(&kt)? else {
            return Ok(None);
        };
        // The one value that bounds the loops: a parameter or the `cu_seqlens` stride.
        let bound: Option<String> = match (trips.swept.keys().next(), trips.swept.len(), trips.seq) {
            (Some(name), 1, None) => Some(name.clone()),
            (None, 0, Some(_)) => None,
            _ => {
                return Err(refuse(
                    "loops one after another bounded by more than one value (or by none): each phase is proved at the laps of one",
                ))
            }
        };
        let set = |o: &mut ReadOptions, value: i64| match &bound {
            Some(name) => {
                o.params.insert(name.clone(), value);
            }
            None => o.seq_stride = Some(value),
        };
        let mut proofs = Vec::with_capacity(cut.phases.len());
        for (s, phase) in cut.phases.iter().enumerate() {
            let (shortest, longest) = steps(phase).ok_or_else(|| {
                refuse(&format!(
                    "phase {} (up to {}) runs no loop: a phase is proved at its loop's laps",
                    s + 1,
                    cut.joins.get(s).map_or("the end", String::as_str)
                ))
            })?;
            if longest % shortest != 0 {
                return Err(refuse(
                    "loops of one phase step unalike, one step no multiple of another: their trip counts are not one lap count",
                ));
            }
            let ratio = longest / shortest;
            let period = u32::try_from(trips.period.saturating_mul(ratio))
                .map_err(|_| refuse("a period past u32"))?;
            let read_at = |laps: u32| -> Result<KernelTrace, HazardError> {
                let mut o = opts.clone();
                set(&mut o, shortest.saturating_mul(i64::from(laps)));
                let kt = reader.read(&o)?;
                let again = phases(&kt)?.ok_or_else(|| {
                    refuse(&format!(
                        "at {laps} laps of phase {} no partition runs loops one after another",
                        s + 1
                    ))
                })?;
                if again.joins != cut.joins {
                    return Err(refuse(&format!(
                        "at {laps} laps of phase {} the joins are {} (were {})",
                        s + 1,
                        again.joins.join(", "),
                        cut.joins.join(", ")
                    )));
                }
                again
                    .phases
                    .into_iter()
                    .nth(s)
                    .ok_or_else(|| refuse("a phase missing from a read"))
            };
            let counted = Counted {
                tiles: false,
                bounds: vec![(
                    bound.clone().unwrap_or_else(|| "seq_stride".to_string()),
                    shortest,
                )],
                offset: 0,
                fixed: Vec::new(),
            };
            let f = u32::try_from(i64::from(first).saturating_mul(ratio))
                .map_err(|_| refuse("a trip count past u32"))?;
            proofs.push(prove(&read_at, counted, (period, f), budget)?);
        }
        Ok(Some(PhasedProof {
            joins: cut.joins,
            phases: proofs,
        }))
    }

    /// 0 when every phase is verified at every trip count, 1 when one goes wrong, 3 when one
    /// is not decided.
    pub fn exit_code(&self) -> u8 {
        let codes = self.phases.iter().map(TripCountProof::exit_code);
        if codes.clone().any(|c| c == 1) {
            1
        } else if codes.clone().all(|c| c == 0) {
            0
        } else {
            3
        }
    }

    /// The verdict in one line.
    pub fn summary(&self) -> String {
        match self.exit_code() {
            0 => "verified at every trip count of every phase".to_string(),
            1 => {
                let wrong: Vec<String> = self
                    .phases
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.exit_code() == 1)
                    .map(|(s, _)| (s + 1).to_string())
                    .collect();
                format!(
                    "some trip count of phase {} races, hangs, arrives past a phase or leaves one open",
                    wrong.join(", ")
                )
            }
            _ => "not decided: the explorer stopped before the end (see above)".to_string(),
        }
    }

    /// The report: where the phases are cut, each phase's proof, the summary.
    pub fn text(&self, file: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{file}: {} phases, one after another: every partition waits on {}",
            self.phases.len(),
            self.joins.join(", then on ")
        );
        for (s, p) in self.phases.iter().enumerate() {
            let upto = self
                .joins
                .get(s)
                .map_or_else(|| "to the end".to_string(), |j| format!("up to {j}"));
            out.push_str(&p.body(&format!("phase {} ({upto})", s + 1)));
        }
        let _ = writeln!(out, "summary: {}", self.summary());
        out
    }

    /// The proof as JSON: the joins, each phase's [`TripCountProof::json`] (its number in
    /// `phase`, the kernel named once), the summary.
    pub fn json(&self, file: &str) -> Value {
        let phases: Vec<Value> = self
            .phases
            .iter()
            .enumerate()
            .map(|(s, p)| {
                let mut v = p.json(file);
                if let Some(o) = v.as_object_mut() {
                    o.remove("kernel");
                    o.insert("phase".to_string(), json!(s + 1));
                }
                v
            })
            .collect();
        json!({
            "kernel": file,
            "counts": "phases",
            "joins": self.joins,
            "phases": phases,
            "summary": {"exit_code": self.exit_code(), "verdict": self.summary()},
        })
    }
}

/// The shortest and longest step of the loops phase `kt` runs (outermost loops), if any.
fn steps(kt: &KernelTrace) -> Option<(i64, i64)> {
    let mut steps = kt
        .origins
        .iter()
        .filter_map(|o| o.induction.first().map(|x| x.1))
        .filter(|&s| s > 0);
    let first = steps.next()?;
    Some(steps.fold((first, first), |(lo, hi), s| (lo.min(s), hi.max(s))))
}
