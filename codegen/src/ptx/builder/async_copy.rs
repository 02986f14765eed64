//! The asynchronous-copy helpers of [`Builder`]: `tcgen05.cp` and `tcgen05.commit` (sm_100a),
//! mbarriers and `fence.proxy.async` (sm_90a).

use super::Builder;
use crate::ptx::error::PtxError;
use crate::ptx::inst::Op;
use crate::ptx::operands::{Address, Guard};
use crate::ptx::reg::{Operand, Reg, RegType};
use crate::ptx::types::CpShape;

impl Builder {
    /// `tcgen05.cp.cta_group::1.<shape> [taddr], desc` (guard it so that one thread issues it).
    ///
    /// ```
    /// use codegen::ptx::{Builder, CpShape, RegType, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let (taddr, desc) = (b.mov(RegType::B32, 0)?, b.mov(RegType::B64, 1i64 << 46)?);
    /// b.tcgen05_cp(CpShape::S32x128bWarpx4, taddr, desc)?;
    /// assert!(b.kernel().to_string().contains(&format!("tcgen05.cp.cta_group::1.32x128b.warpx4 [{taddr}], {desc};")));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_cp(
        &mut self,
        shape: CpShape,
        taddr: impl Into<Address>,
        desc: Reg,
    ) -> Result<(), PtxError> {
        self.push(Op::TmemCp {
            shape,
            taddr: taddr.into(),
            desc,
        })
    }

    /// `tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar]`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.shared("bar", 8, 8)?;
    /// let bar = b.shared_address("bar")?;
    /// b.tcgen05_commit(bar)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_commit(&mut self, mbar: impl Into<Address>) -> Result<(), PtxError> {
        self.push(Op::TmemCommit { mbar: mbar.into() })
    }

    /// `mbarrier.init.shared::cta.b64 [addr], count`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.shared("bar", 8, 8)?;
    /// let bar = b.shared_address("bar")?;
    /// b.mbarrier_init(bar, 1)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mbarrier_init(
        &mut self,
        addr: impl Into<Address>,
        count: impl Into<Operand>,
    ) -> Result<(), PtxError> {
        self.push(Op::MbarrierInit {
            addr: addr.into(),
            count: count.into(),
        })
    }

    /// `mbarrier.try_wait.parity.shared::cta.b64 p, [addr], parity` into a fresh predicate.
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.shared("bar", 8, 8)?;
    /// let bar = b.shared_address("bar")?;
    /// assert_eq!(b.mbarrier_try_wait(bar, 0)?.ty(), RegType::Pred);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mbarrier_try_wait(
        &mut self,
        addr: impl Into<Address>,
        parity: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let d = self.reg(RegType::Pred);
        self.push(Op::MbarrierTryWait {
            d,
            addr: addr.into(),
            parity: parity.into(),
        })?;
        Ok(d)
    }

    /// Waits until the mbarrier's phase of parity `parity` completes: a `try_wait` loop.
    ///
    /// ```
    /// use codegen::interp::{run, Config};
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.shared("bar", 8, 8)?;
    /// let bar = b.shared_address("bar")?;
    /// b.mbarrier_init(bar, 0)?; // a zero count: nothing completes phase 0
    /// b.mbarrier_wait(bar, 0)?;
    /// b.ret()?;
    /// // The interpreter sees that no thread can complete the wait.
    /// assert!(run(&b.finish()?, &Config::new(32), &[]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mbarrier_wait(
        &mut self,
        addr: impl Into<Address>,
        parity: impl Into<Operand>,
    ) -> Result<(), PtxError> {
        let (addr, parity) = (addr.into(), parity.into());
        let again = self.fresh_label("wait");
        self.label(&again)?;
        let done = self.mbarrier_try_wait(addr, parity)?;
        self.guarded(Guard::unless(done), |b| b.bra(&again))
    }

    /// `fence.proxy.async.shared::cta`: this thread's shared-memory writes become visible to
    /// `tcgen05.cp`, TMA and wgmma.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.fence_proxy_async()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn fence_proxy_async(&mut self) -> Result<(), PtxError> {
        self.push(Op::FenceProxyAsync)
    }
}
