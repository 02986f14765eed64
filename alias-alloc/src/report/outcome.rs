//! [`PlanOutcome`]: what `linalias plan` (and the Python `Kernel.plan`) makes of one program —
//! planned in one mode (packed into arenas by lifetime in Intended mode where it has lifetimes;
//! past the target's capacity, what was planned and the rules it breaks), checked by the
//! independent checker, drawn, and reported as JSON.

use std::time::Duration;

use serde_json::{json, Value};

use crate::checker::{check, check_packed, Violation};
use crate::{AllocError, AllocPlan, Arena, Mode, Origin, PackOptions, PackedPlan, Plan};
use crate::{PlanOptions, Program};

use super::{
    kernel_svg, kernel_totals, memory_map_svg, utilisation, with_arenas_svg, KernelTotals,
};

/// Buffer starts listed per allocation before the rest are elided.
pub const MAX_STARTS: usize = 16;

/// A program planned: its plan, its arenas when packed by lifetime, and the capacity rules it
/// breaks when it was planned past the target's limits.
#[derive(Debug, Clone)]
pub struct PlanOutcome {
    /// The regions' plan (inside each region; see `packed` for where regions go).
    pub plan: Plan,
    /// Packed by lifetime (Intended mode, a program with lifetimes).
    pub packed: Option<PackedPlan>,
    /// What does not fit the target, when `over_capacity` allowed planning past it.
    pub over: Vec<AllocError>,
}

impl PlanOutcome {
    /// Plans `program`. With lifetimes in Intended mode the regions are packed by them (within
    /// `budget`); otherwise planned side by side. When `over_capacity`, a program too large
    /// for the target is still planned, and `over` says what does not fit.
    ///
    /// # Errors
    /// What [`Program::plan`] or [`Program::pack`] refuse.
    ///
    /// ```
    /// use alias_alloc::report::PlanOutcome;
    /// use alias_alloc::{plan_file, Mode, PlanOptions};
    /// let program = plan_file::parse(&std::fs::read_to_string(
    ///     concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/flash_attention.toml"),
    /// ).map_err(|e| alias_alloc::AllocError::Input(e.to_string()))?)?;
    /// let options = PlanOptions::new(Mode::TlxCompatible);
    /// let outcome = PlanOutcome::new(&program, options, std::time::Duration::from_secs(1), true)?;
    /// let json = outcome.json("fa.toml", &program, &outcome.violations(&program), None, true);
    /// assert_eq!(json["mode"], "tlx");
    /// assert_eq!(json["checker"]["ok"], true);
    /// assert_eq!(json["allocations"][1]["name"], "p");
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn new(
        program: &Program,
        options: PlanOptions,
        budget: Duration,
        over_capacity: bool,
    ) -> Result<Self, AllocError> {
        if options.mode == Mode::Intended && program.has_lifetimes() {
            let packed = program.pack(&PackOptions {
                plan: options,
                budget: Some(budget),
            })?;
            return Ok(PlanOutcome {
                plan: packed.plan.clone(),
                packed: Some(packed),
                over: Vec::new(),
            });
        }
        match program.plan(&options) {
            Ok(plan) => Ok(PlanOutcome {
                plan,
                packed: None,
                over: Vec::new(),
            }),
            Err(e @ (AllocError::SmemCapacity { .. } | AllocError::TmemCapacity { .. }))
                if over_capacity =>
            {
                let (plan, over) = program.plan_over_capacity(&options)?;
                if over.is_empty() {
                    return Err(e);
                }
                Ok(PlanOutcome {
                    plan,
                    packed: None,
                    over,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// The arenas when packed by lifetime (none otherwise).
    pub fn arenas(&self) -> &[Arena] {
        self.packed.as_ref().map_or(&[][..], |p| &p.arenas[..])
    }

    /// The independent checker's verdict on the plan (or the packed plan).
    pub fn violations(&self, program: &Program) -> Vec<Violation> {
        match &self.packed {
            Some(p) => check_packed(program, p),
            None => check(program, &self.plan),
        }
    }

    /// The picture: a kernel read from its IR whole (`whole`: SMEM and TMEM maps, then its
    /// large regions), a plan file region by region; the arenas below when packed.
    ///
    /// # Errors
    /// What [`with_arenas_svg`] refuses.
    pub fn svg(&self, program: &Program, whole: bool) -> Result<String, AllocError> {
        let svg = if whole {
            kernel_svg(program, &self.plan)
        } else {
            memory_map_svg(program, &self.plan)
        };
        with_arenas_svg(&svg, self.arenas())
    }

    /// The report as one JSON object (what `linalias plan --json` prints); `svg` is the
    /// picture's path if one was written, and `frontend` whether the program stands for Python
    /// calls (a plan file, the Python `Kernel`), which words what does not fit as TLX's
    /// frontend would ([`AllocError::explain`]).
    pub fn json(
        &self,
        file: &str,
        program: &Program,
        violations: &[Violation],
        svg: Option<&str>,
        frontend: bool,
    ) -> Value {
        let plan = &self.plan;
        let regions: Vec<Value> = plan
            .specs
            .iter()
            .map(|s| {
                json!({
                    "name": s.name,
                    "origin": match s.origin { Origin::Spec(_) => "spec", Origin::Allocation(_) => "allocation" },
                    "storage": s.storage.to_string(),
                    "unit": s.storage.unit(),
                    "backing_units": s.backing_units,
                    "rows": s.rows,
                    "backing_shape": s.backing_shape,
                    "buffer_size_bytes": s.buffer_size_bytes,
                    "group_stride": s.group_stride,
                    "groups": s.groups,
                })
            })
            .collect();
        let allocs: Vec<Value> = plan
            .allocs
            .iter()
            .map(|a| {
                json!({
                    "name": a.name,
                    "region": plan.specs.get(a.region).map(|s| s.name.clone()),
                    "num": a.num,
                    "unit": a.unit,
                    "alignment": a.alignment,
                    "buffer_map": a.explicit.to_string(),
                    "placement": a.placement.to_string(),
                    "index_rewrite": rewrite_text(a),
                    "alias_shape": a.alias_shape,
                    "starts": starts(a),
                })
            })
            .collect();
        let utilisation: Vec<Value> = utilisation(program, plan)
            .iter()
            .map(|u| {
                json!({
                    "region": u.region,
                    "backing_units": u.backing_units,
                    "used_units": u.used_units,
                    "unused_units": u.unused_units,
                    "text": u.to_string(),
                })
            })
            .collect();
        // Packed by lifetime, the arenas are the kernel's memory, not the regions side by side.
        let kernel = match self.packed {
            Some(_) => Value::Null,
            None => totals_json(&kernel_totals(plan)),
        };
        let over: Vec<String> = self
            .over
            .iter()
            .map(|e| e.explain(plan.mode, frontend))
            .collect();
        json!({
            "file": file,
            "kernel": kernel,
            "mode": match plan.mode { Mode::TlxCompatible => "tlx", Mode::Intended => "intended" },
            "target": plan.target.to_string(),
            "regions": regions,
            "allocations": allocs,
            "utilisation": utilisation,
            "warnings": plan.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "checker": {
                "ok": violations.is_empty(),
                "violations": violations.iter().map(ToString::to_string).collect::<Vec<_>>(),
            },
            "svg": svg,
            "arenas": arenas_json(self.arenas()),
            "does_not_fit": over,
        })
    }
}

/// The allocation's index rewrite (`slot(i) = 2·i + 0 + i mod 2`, `identity`,
/// `slot(i) = (2,2):(1,4)`), or `explicit only`.
pub fn rewrite_text(a: &AllocPlan) -> String {
    a.reindex
        .as_ref()
        .map_or_else(|| "explicit only".into(), ToString::to_string)
}

/// The first [`MAX_STARTS`] buffer starts.
pub fn starts(a: &AllocPlan) -> Vec<u64> {
    a.placement.offsets().take(MAX_STARTS).collect()
}

/// What ended an arena search that did not prove its peak: its node limit (`nodes`) or the
/// time budget (`budget`); `None` when the peak is proved.
pub fn arena_limit(a: &Arena) -> Option<&'static str> {
    match (a.proven_optimal, a.nodes >= crate::arena::ARENA_NODES) {
        (true, _) => None,
        (false, true) => Some("nodes"),
        (false, false) => Some("budget"),
    }
}

fn totals_json(t: &KernelTotals) -> Value {
    let placed = |p: &[super::Placed]| -> Vec<Value> {
        p.iter()
            .map(|r| json!({"name": r.name, "start": r.start, "size": r.size, "align": r.align, "aliased": r.aliased}))
            .collect()
    };
    json!({
        "smem_bytes": t.smem_bytes,
        "smem_limit": t.smem_limit,
        "smem_fits": t.smem_fits(),
        "smem_regions": placed(&t.smem),
        "tmem_columns": t.tmem_columns,
        "tmem_allocated": t.tmem_allocated,
        "tmem_limit": t.tmem_limit,
        "tmem_fits": t.tmem_fits(),
        "tmem_regions": placed(&t.tmem),
        "fits": t.fits(),
    })
}

fn arenas_json(arenas: &[Arena]) -> Value {
    Value::Array(
        arenas
            .iter()
            .map(|a| {
                json!({
                    "storage": a.storage.to_string(),
                    "capacity": a.capacity,
                    "peak": a.peak,
                    "lower_bound": a.lower_bound,
                    "proven_optimal": a.proven_optimal,
                    "nodes": a.nodes,
                    // What ended a search that did not prove its peak.
                    "limit": arena_limit(a),
                    "unpacked": a.unpacked,
                    "regions": a.slots.iter().map(|s| json!({
                        "name": s.name,
                        "lifetime": [s.lifetime.start, s.lifetime.end],
                        "units": s.units,
                        "alignment": s.alignment,
                        "offset": s.offset,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}
