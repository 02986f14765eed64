//! [`Probe`]: a one-warp kernel that makes exactly one warp-level shared-memory access, at
//! per-lane offsets chosen bit by bit, so the hardware's wavefront and bank-conflict counters
//! can be read for one address pattern at a time (the GPU tier records them under Nsight
//! Compute; the cost model must reproduce them).
//!
//! Lane `l` (of the first [`Probe::lanes`] lanes) accesses `smem + base + Σ bit_i(l) · lane_bytes[i]`.
//! A load writes what it read to `out` (16 bytes per lane), so ptxas keeps it; a store writes
//! a constant; `ldmatrix`/`stmatrix` run on the whole warp, each lane supplying the row address
//! its lane id names (lane `l`: matrix `l / 8`, row `l % 8`). A probe's loads read shared
//! memory no one wrote: what they return is whatever the SM held, so a launch checks only that
//! the access runs.
//!
//! ```
//! use codegen::interp::run;
//! use codegen::ptx::DataType;
//! use codegen::smem::kernels::{Probe, ProbeAccess};
//! let p = Probe { access: ProbeAccess::Load { ty: DataType::B32, vec: 2 }, lane_bytes: [8, 16, 32, 64, 128], base: 0, lanes: 32, scale: None };
//! let out = run(&p.kernel("p")?, &p.config(), &p.params())?;
//! assert_eq!(out.trace.issues().count(), 2); // the shared load, then the global store
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{SMEM, SMEM_ALIGN};
use crate::interp::{Config, ParamValue};
use crate::ptx::{
    Address, Builder, CmpOp, DataType, Guard, IntType, Kernel, MatrixCount, ParamType, Reg,
    RegType, SpecialReg, StateSpace, Target,
};
use crate::smem::error::SmemError;

/// The one access a [`Probe`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeAccess {
    /// `ld.shared[.vN].ty`.
    Load {
        /// The element type.
        ty: DataType,
        /// The vector length (1, 2 or 4).
        vec: u32,
    },
    /// `st.shared[.vN].ty`.
    Store {
        /// The element type.
        ty: DataType,
        /// The vector length.
        vec: u32,
    },
    /// `ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16`.
    Ldmatrix {
        /// How many 8×8 matrices.
        count: MatrixCount,
        /// `.trans`.
        trans: bool,
    },
    /// `stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16`.
    Stmatrix {
        /// How many 8×8 matrices.
        count: MatrixCount,
        /// `.trans`.
        trans: bool,
    },
}

impl ProbeAccess {
    /// Bytes each lane's address covers: the vector for `ld`/`st`, a 16-byte row for the
    /// matrix instructions.
    ///
    /// ```
    /// use codegen::ptx::{DataType, MatrixCount};
    /// use codegen::smem::kernels::ProbeAccess;
    /// assert_eq!(ProbeAccess::Store { ty: DataType::B16, vec: 4 }.lane_bytes(), 8);
    /// assert_eq!(ProbeAccess::Ldmatrix { count: MatrixCount::X1, trans: true }.lane_bytes(), 16);
    /// ```
    pub fn lane_bytes(self) -> u32 {
        match self {
            ProbeAccess::Load { ty, vec } | ProbeAccess::Store { ty, vec } => ty.bytes() * vec,
            ProbeAccess::Ldmatrix { .. } | ProbeAccess::Stmatrix { .. } => 16,
        }
    }
}

/// One address pattern, one access: lane `l` accesses
/// `smem + base + scale · Σ bit_i(l) · lane_bytes[i]` (`scale` 1 when `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The access.
    pub access: ProbeAccess,
    /// The byte offset each lane-id bit adds (bit 0 first).
    pub lane_bytes: [u32; 5],
    /// The offset of lane 0 in the dynamic shared array.
    pub base: u32,
    /// How many lanes (from lane 0) take part in an `ld`/`st` (0..=32: 0 runs the instruction
    /// with every lane predicated off); the matrix instructions always run on all 32.
    pub lanes: u32,
    /// `Some(s)`: the lane-bit offsets are multiplied at run time by `s`, passed as
    /// `.param .u32 scale`, so the address is not warp-uniform to ptxas even when every lane's
    /// offset is the same (`Some(0)`); `None`: no such parameter.
    pub scale: Option<u32>,
}

/// Bytes of `out` per lane.
const OUT_BYTES: u32 = 16;

impl Probe {
    /// Lane `lane`'s offset in the dynamic shared array.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// use codegen::smem::kernels::{Probe, ProbeAccess};
    /// let p = Probe { access: ProbeAccess::Load { ty: DataType::B32, vec: 1 }, lane_bytes: [4, 8, 16, 32, 0], base: 256, lanes: 32, scale: None };
    /// assert_eq!(p.offset(17), 256 + 4);
    /// ```
    pub fn offset(&self, lane: u32) -> u32 {
        let lane = self
            .lane_bytes
            .iter()
            .enumerate()
            .filter(|&(i, _)| lane >> i & 1 == 1)
            .fold(0u32, |acc, (_, &c)| acc.wrapping_add(c));
        self.base
            .wrapping_add(lane.wrapping_mul(self.scale.unwrap_or(1)))
    }

    /// Dynamic shared memory the probe touches: past its highest byte.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// use codegen::smem::kernels::{Probe, ProbeAccess};
    /// let p = Probe { access: ProbeAccess::Store { ty: DataType::B32, vec: 4 }, lane_bytes: [16, 32, 64, 128, 256], base: 0, lanes: 32, scale: None };
    /// assert_eq!(p.dynamic_shared_bytes(), 512);
    /// ```
    pub fn dynamic_shared_bytes(&self) -> u32 {
        let top = (0..32).map(|l| self.offset(l)).max().unwrap_or(self.base);
        top.saturating_add(self.access.lane_bytes())
    }

    /// The interpreter's (and the launch's) geometry: one warp, the shared memory it touches.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// use codegen::smem::kernels::{Probe, ProbeAccess};
    /// let p = Probe { access: ProbeAccess::Load { ty: DataType::B8, vec: 1 }, lane_bytes: [1, 2, 4, 8, 16], base: 0, lanes: 32, scale: None };
    /// assert_eq!(p.config().threads, 32);
    /// ```
    pub fn config(&self) -> Config {
        Config::new(32).dynamic_shared(self.dynamic_shared_bytes())
    }

    /// The parameter values: a zeroed `out` of 16 bytes per lane.
    ///
    /// ```
    /// use codegen::interp::ParamValue;
    /// use codegen::ptx::DataType;
    /// use codegen::smem::kernels::{Probe, ProbeAccess};
    /// let p = Probe { access: ProbeAccess::Load { ty: DataType::B8, vec: 1 }, lane_bytes: [0; 5], base: 0, lanes: 1, scale: None };
    /// assert_eq!(p.params(), [ParamValue::Buffer(vec![0; 512])]);
    /// ```
    pub fn params(&self) -> Vec<ParamValue> {
        let out = ParamValue::Buffer(vec![0; (32 * OUT_BYTES) as usize]);
        std::iter::once(out)
            .chain(self.scale.map(ParamValue::U32))
            .collect()
    }

    /// The kernel, named `name`.
    ///
    /// Errors: [`SmemError::Probe`] for a base or lane offset that is not a multiple of the
    /// bytes a lane's address covers, a vector length other than 1, 2 or 4, a 64-bit element
    /// type or more than 32 lanes; [`SmemError::Ptx`] for a name PTX refuses.
    ///
    /// ```
    /// use codegen::ptx::{DataType, MatrixCount};
    /// use codegen::smem::kernels::{Probe, ProbeAccess};
    /// let p = Probe { access: ProbeAccess::Stmatrix { count: MatrixCount::X4, trans: true }, lane_bytes: [16, 32, 64, 128, 256], base: 0, lanes: 32, scale: None };
    /// assert!(p.kernel("stm")?.to_string().contains("stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16"));
    /// let bad = Probe { lane_bytes: [8, 16, 32, 64, 0], ..p };
    /// assert!(bad.kernel("stm").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn kernel(&self, name: &str) -> Result<Kernel, SmemError> {
        self.validate()?;
        let mut b = Builder::new(name, Target::Sm90a)?;
        b.extern_shared(SMEM, SMEM_ALIGN)?;
        b.param("out", ParamType::U64)?;
        b.reqntid(32)?;
        if self.scale.is_some() {
            b.param("scale", ParamType::U32)?;
        }
        let tid = b.special(SpecialReg::TidX)?;
        let smem = b.shared_address(SMEM)?;
        let mut lane = b.mov(RegType::B32, 0u32)?;
        for (i, &c) in self.lane_bytes.iter().enumerate() {
            if c != 0 {
                let bit = b.bfe(tid, i as u32, 1u32)?;
                lane = b.mad_lo(IntType::U32, bit, c, lane)?;
            }
        }
        if self.scale.is_some() {
            let scale = b.ld_param("scale")?;
            lane = b.mul_lo(IntType::U32, lane, scale)?;
        }
        let at = b.add(IntType::U32, smem, self.base)?;
        let at = b.add(IntType::U32, at, lane)?;
        let out = b.global_pointer("out")?;
        let lane_out = b.mul_wide_u32(tid, OUT_BYTES)?;
        let out = b.add(IntType::U64, out, lane_out)?;
        let shared = StateSpace::Shared;
        match self.access {
            ProbeAccess::Load { ty, vec } => {
                let active = b.setp(CmpOp::Lt, IntType::U32, tid, self.lanes)?;
                b.guarded(Guard::when(active), |b| {
                    let got = b.ld(shared, ty, vec, at)?;
                    b.st(
                        StateSpace::Global,
                        register_type(ty),
                        Address::new(out, 0),
                        &got,
                    )
                })?;
            }
            ProbeAccess::Store { ty, vec } => {
                let value = match ty {
                    DataType::B8 | DataType::B16 => b.mov(RegType::B16, 0x5A5Au32)?,
                    DataType::B32 | DataType::B64 => tid,
                };
                let active = b.setp(CmpOp::Lt, IntType::U32, tid, self.lanes)?;
                let values = vec![value; vec as usize];
                b.guarded(Guard::when(active), |b| b.st(shared, ty, at, &values))?;
            }
            ProbeAccess::Ldmatrix { count, trans } => {
                let got = b.ldmatrix(count, trans, at)?;
                b.st(
                    StateSpace::Global,
                    DataType::B32,
                    Address::new(out, 0),
                    &got,
                )?;
            }
            ProbeAccess::Stmatrix { count, trans } => {
                let values: Vec<Reg> = vec![tid; count.count() as usize];
                b.stmatrix(count, trans, at, &values)?;
            }
        }
        b.ret()?;
        Ok(b.finish()?)
    }

    fn validate(&self) -> Result<(), SmemError> {
        let bytes = self.access.lane_bytes();
        let bad = |reason: String| Err(SmemError::Probe { reason });
        if let ProbeAccess::Load { ty, vec } | ProbeAccess::Store { ty, vec } = self.access {
            if !matches!(vec, 1 | 2 | 4) {
                return bad(format!("a vector of {vec}: 1, 2 or 4"));
            }
            if ty == DataType::B64 {
                return bad("64-bit elements: use .v2 of 32-bit ones".into());
            }
            if self.lanes > 32 {
                return bad(format!("{} lanes: a warp has 32", self.lanes));
            }
        }
        if self.base % bytes != 0 {
            return bad(format!(
                "base {} is not a multiple of the {bytes} bytes a lane moves",
                self.base
            ));
        }
        match self.lane_bytes.iter().find(|&&c| c % bytes != 0) {
            Some(&c) => bad(format!(
                "lane-bit offset {c} is not a multiple of the {bytes} bytes a lane moves"
            )),
            None => Ok(()),
        }
    }
}

/// The type a loaded register is stored back to global memory with.
fn register_type(ty: DataType) -> DataType {
    match ty {
        DataType::B8 => DataType::B16,
        t => t,
    }
}
