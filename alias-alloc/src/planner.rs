//! [`Program::plan`]: the mode's placement, the plain regions, capacity, explicit lowering and
//! the independent check.

use crate::capacity::capacity_issues;
use crate::checker::{check, MAX_BUFFERS};
use crate::intended::plan_intended;
use crate::lowering::explicit::{address_map, LoweringCache};
use crate::plain_regions::plain_regions;
use crate::tlx::materialize::plan_tlx;
use crate::{AllocError, Mode, Plan, PlanOptions, Program, Warning};

impl Program {
    /// Plans every spec and allocation in `options.mode`.
    ///
    /// Errors: TLX's (in TLX's order, with [`AllocError::tlx_message`] giving its text), and in
    /// Intended mode also the rules TLX does not enforce (buffer counts, `group_size` on a
    /// distinct group, allocations left out of the tree, capacity). In TlxCompatible mode those
    /// become [`Warning::AcceptedByTlx`], and whatever the independent checker finds wrong with
    /// TLX's placement becomes [`Warning::Unsafe`].
    pub fn plan(&self, options: &PlanOptions) -> Result<Plan, AllocError> {
        self.plan_with(options, &mut LoweringCache::new())
    }

    /// [`plan`](Program::plan), taking element layouts from `cache` and keeping the ones it
    /// builds there (see [`LoweringCache`]).
    pub fn plan_with(
        &self,
        options: &PlanOptions,
        cache: &mut LoweringCache,
    ) -> Result<Plan, AllocError> {
        self.plan_regions(options, false, cache)
    }

    /// [`plan`](Program::plan) for the report of a plan that does not fit: where Intended mode
    /// refuses the capacity rules the regions break ([`AllocError::SmemCapacity`],
    /// [`AllocError::TmemCapacity`]), this places the regions anyway and returns those rules
    /// beside the plan, so the map shows what was planned and what is too large. Every other
    /// error is returned as [`plan`](Program::plan) returns it.
    ///
    /// ```
    /// use alias_alloc::{AllocError, DType, Mode, PlanOptions, Program, Storage, Target};
    /// let mut p = Program::new();
    /// let s = p.storage_alias_spec("big", Storage::Smem, None)?;
    /// p.local_alloc("a", &[256, 256], DType::F32, 2, s)?; // 512 KiB
    /// let options = PlanOptions { mode: Mode::Intended, target: "sm_90".parse::<Target>()? };
    /// assert!(matches!(p.plan(&options), Err(AllocError::SmemCapacity { .. })));
    /// let (plan, over) = p.plan_over_capacity(&options)?;
    /// assert_eq!(plan.spec("big")?.backing_units, 524288);
    /// assert!(matches!(over.as_slice(), [AllocError::SmemCapacity { need: 524288, .. }]));
    /// # Ok::<(), AllocError>(())
    /// ```
    pub fn plan_over_capacity(
        &self,
        options: &PlanOptions,
    ) -> Result<(Plan, Vec<AllocError>), AllocError> {
        let mut over = Vec::new();
        let plan =
            self.plan_collecting(options, false, &mut LoweringCache::new(), Some(&mut over))?;
        Ok((plan, over))
    }

    /// [`plan_with`](Program::plan_with), with the capacity totals left to the arena when
    /// `packed`.
    pub(crate) fn plan_regions(
        &self,
        options: &PlanOptions,
        packed: bool,
        cache: &mut LoweringCache,
    ) -> Result<Plan, AllocError> {
        self.plan_collecting(options, packed, cache, None)
    }

    /// [`plan_regions`](Program::plan_regions); with `over`, Intended mode's capacity issues
    /// are pushed there instead of refused.
    fn plan_collecting(
        &self,
        options: &PlanOptions,
        packed: bool,
        cache: &mut LoweringCache,
        mut over: Option<&mut Vec<AllocError>>,
    ) -> Result<Plan, AllocError> {
        let tlx = options.mode == Mode::TlxCompatible;
        let placed = if tlx {
            plan_tlx(self)?
        } else {
            plan_intended(self)?
        };
        let (mut specs, mut allocs, mut warnings) = (placed.specs, placed.allocs, placed.warnings);
        let (plain_specs, plain_allocs) = plain_regions(self, tlx, specs.len())?;
        specs.extend(plain_specs);
        allocs.extend(plain_allocs);
        allocs.sort_by_key(|a| a.alloc);
        for issue in capacity_issues(&specs, &options.target, packed) {
            match over.as_deref_mut() {
                _ if tlx => warnings.push(Warning::AcceptedByTlx(issue)),
                Some(over) => over.push(issue),
                None => return Err(issue),
            }
        }
        for a in &mut allocs {
            let alloc = self.allocation(a.alloc)?;
            a.address_map = match address_map(alloc, a.explicit.clone(), cache) {
                Ok(m) => m,
                Err(e) if tlx => {
                    warnings.push(Warning::AcceptedByTlx(e));
                    None
                }
                Err(e) => return Err(e),
            };
        }
        let plan = Plan {
            mode: options.mode,
            target: options.target,
            specs,
            allocs,
            warnings,
        };
        // TLX's placement is always checked (its findings are warnings); an Intended plan is
        // correct by construction, re-proved by the checker in debug builds.
        let buffers = self
            .allocations()
            .fold(0u64, |t, (_, a)| t.saturating_add(a.num));
        let violations = if tlx || (cfg!(debug_assertions) && buffers <= MAX_BUFFERS) {
            check(self, &plan)
        } else {
            Vec::new()
        };
        if tlx {
            let mut plan = plan;
            plan.warnings
                .extend(violations.into_iter().map(Warning::Unsafe));
            Ok(plan)
        } else {
            match violations.into_iter().next() {
                Some(v) => Err(AllocError::CheckerRejected(Box::new(v))),
                None => Ok(plan),
            }
        }
    }
}
