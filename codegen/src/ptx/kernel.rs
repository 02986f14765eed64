//! [`Kernel`]: one `.entry` with its module header (`.version`, `.target`), parameters,
//! `.shared` variables, launch bounds and body; [`InstStats`] counts its instructions by role.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use super::error::PtxError;
use super::inst::{Op, OpClass, Stmt};
use super::operands::MovSource;
use super::reg::{Reg, RegType};
use super::types::{PtxVersion, Role, Target};

/// The type of a kernel parameter.
///
/// ```
/// use codegen::ptx::{ParamType, RegType};
/// assert_eq!(ParamType::U64.reg_type(), RegType::B64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `.u32`: a scalar (e.g. a run-time buffer index).
    U32,
    /// `.u64`: a scalar or a global pointer.
    U64,
}

impl ParamType {
    /// `.u32` or `.u64`.
    ///
    /// ```
    /// use codegen::ptx::ParamType;
    /// assert_eq!(ParamType::U32.suffix(), ".u32");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            ParamType::U32 => ".u32",
            ParamType::U64 => ".u64",
        }
    }

    /// The register class `ld.param` loads it into.
    ///
    /// ```
    /// use codegen::ptx::{ParamType, RegType};
    /// assert_eq!(ParamType::U32.reg_type(), RegType::B32);
    /// ```
    pub fn reg_type(self) -> RegType {
        match self {
            ParamType::U32 => RegType::B32,
            ParamType::U64 => RegType::B64,
        }
    }
}

/// A kernel parameter `.param .u64 out`.
///
/// ```
/// use codegen::ptx::{Param, ParamType};
/// let p = Param { name: "out".into(), ty: ParamType::U64 };
/// assert_eq!(p.to_string(), ".param .u64 out");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: ParamType,
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".param {} {}", self.ty.suffix(), self.name)
    }
}

/// A `.shared` byte array: static (`.shared .align 16 .b8 slot[4];`) or the dynamic
/// (`.extern .shared .align 1024 .b8 smem[];`) region.
///
/// ```
/// use codegen::ptx::SharedVar;
/// let s = SharedVar { name: "smem".into(), align: 1024, size: None };
/// assert_eq!(s.to_string(), ".extern .shared .align 1024 .b8 smem[];");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SharedVar {
    /// Its name (`mov.u32 %r, name` takes its address).
    pub name: String,
    /// Alignment in bytes, a power of two.
    pub align: u32,
    /// Size in bytes; `None` for `.extern` (dynamic) shared memory.
    pub size: Option<u32>,
}

impl fmt::Display for SharedVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.size {
            Some(n) => write!(f, ".shared .align {} .b8 {}[{n}];", self.align, self.name),
            None => write!(
                f,
                ".extern .shared .align {} .b8 {}[];",
                self.align, self.name
            ),
        }
    }
}

/// Instruction counts of a kernel, by [`Role`].
///
/// ```
/// use codegen::ptx::InstStats;
/// let s = InstStats { total: 10, address: 4, address_alu: 4, data: 3, control: 3, memory_accesses: 2 };
/// assert_eq!(s.address_alu_per_access(), Some(2.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InstStats {
    /// Every instruction (labels and comments are not instructions).
    pub total: usize,
    /// Instructions with role [`Role::Address`].
    pub address: usize,
    /// ALU instructions ([`OpClass::Alu`]) with role [`Role::Address`]: the cost an address
    /// emitter is measured by.
    pub address_alu: usize,
    /// Instructions with role [`Role::Data`].
    pub data: usize,
    /// Instructions with role [`Role::Control`].
    pub control: usize,
    /// Memory instructions ([`OpClass::is_memory`]).
    pub memory_accesses: usize,
}

impl InstStats {
    /// `address_alu / memory_accesses`; `None` without accesses.
    ///
    /// ```
    /// use codegen::ptx::InstStats;
    /// assert_eq!(InstStats::default().address_alu_per_access(), None);
    /// ```
    pub fn address_alu_per_access(&self) -> Option<f64> {
        (self.memory_accesses > 0).then(|| self.address_alu as f64 / self.memory_accesses as f64)
    }
}

/// A PTX module with one kernel. Fields are public; [`Kernel::validate`] checks a hand-made
/// one, and [`Builder`](super::Builder) and [`parse`](super::parse::parse) only produce
/// valid ones. `Display` prints PTX that ptxas accepts; register declarations are derived
/// from the registers the body uses.
///
/// ```
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("noop", Target::Sm90a)?;
/// b.ret()?;
/// let k = b.finish()?;
/// assert_eq!(k.to_string(), "\
/// .version 8.7
/// .target sm_90a
/// .address_size 64
///
/// .visible .entry noop()
/// {
/// \tret;
/// }
/// ");
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// `.version`.
    pub version: PtxVersion,
    /// `.target`.
    pub target: Target,
    /// The entry's name.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// Module-level `.shared` variables, in declaration order.
    pub shared: Vec<SharedVar>,
    /// `.reqntid` (exact CTA size), if given.
    pub reqntid: Option<u32>,
    /// `.maxntid`, if given.
    pub maxntid: Option<u32>,
    /// The body.
    pub body: Vec<Stmt>,
}

/// Whether `name` is a PTX identifier of the subset: `[A-Za-z_][A-Za-z0-9_$]*`.
///
/// ```
/// use codegen::ptx::is_identifier;
/// assert!(is_identifier("store_tile") && !is_identifier("a b") && !is_identifier("1k"));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

impl Kernel {
    /// The instructions of the body, in order.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.comment("nothing yet")?;
    /// b.ret()?;
    /// assert_eq!(b.finish()?.instructions().count(), 1);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn instructions(&self) -> impl Iterator<Item = &super::inst::Inst> {
        self.body.iter().filter_map(|s| match s {
            Stmt::Inst(i) => Some(i),
            _ => None,
        })
    }

    /// The number of instructions (labels and comments excluded).
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.special(SpecialReg::TidX)?;
    /// b.ret()?;
    /// assert_eq!(b.finish()?.instruction_count(), 2);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn instruction_count(&self) -> usize {
        self.instructions().count()
    }

    /// Instructions with role `role`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Role, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.special(SpecialReg::TidX)?;
    /// b.ret()?;
    /// assert_eq!(b.finish()?.count_role(Role::Address), 1);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn count_role(&self, role: Role) -> usize {
        self.instructions().filter(|i| i.role == role).count()
    }

    /// ALU instructions with role [`Role::Address`] (see [`InstStats::address_alu`]).
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, Role, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.with_role(Role::Data, |b| b.add(IntType::U32, t, 1))?;
    /// assert_eq!(b.finish()?.address_alu_count(), 1);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn address_alu_count(&self) -> usize {
        self.instructions()
            .filter(|i| i.role == Role::Address && i.op.class() == OpClass::Alu)
            .count()
    }

    /// All counts at once.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.ret()?;
    /// let s = b.finish()?.stats();
    /// assert_eq!((s.total, s.control), (1, 1));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn stats(&self) -> InstStats {
        let mut s = InstStats::default();
        for i in self.instructions() {
            s.total += 1;
            match i.role {
                Role::Address => {
                    s.address += 1;
                    if i.op.class() == OpClass::Alu {
                        s.address_alu += 1;
                    }
                }
                Role::Data => s.data += 1,
                Role::Control => s.control += 1,
            }
            if i.op.class().is_memory() {
                s.memory_accesses += 1;
            }
        }
        s
    }

    /// For each register class the body uses, one more than the largest index (the `N` of
    /// `.reg .b32 %r<N>;`).
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.special(SpecialReg::TidX)?;
    /// b.special(SpecialReg::LaneId)?;
    /// assert_eq!(b.finish()?.register_counts().get(&RegType::B32), Some(&2));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn register_counts(&self) -> BTreeMap<RegType, u32> {
        let mut counts = BTreeMap::new();
        for r in self.instructions().flat_map(|i| i.registers()) {
            let n = counts.entry(r.ty()).or_insert(0u32);
            *n = (*n).max(r.index().saturating_add(1));
        }
        counts
    }

    /// The statement index of each label.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.label("DONE")?;
    /// b.ret()?;
    /// assert_eq!(b.finish()?.labels().get("DONE"), Some(&0));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn labels(&self) -> HashMap<&str, usize> {
        self.body
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Stmt::Label(l) => Some((l.as_str(), i)),
                _ => None,
            })
            .collect()
    }

    /// Checks everything [`Op::validate`] checks plus names: identifiers, no duplicates,
    /// every `bra` target, `mov` variable and `ld.param` parameter declared with the right
    /// width, shared alignments powers of two, comments on one line, `tcgen05` only on
    /// sm_100a, a version new enough for the target, launch bounds in 1..=1024 and not both.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Op, Stmt, Inst, Target, PtxError};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.ret()?;
    /// let mut k = b.finish()?;
    /// k.body.insert(0, Stmt::Inst(Inst::new(Op::Bra { target: "NOWHERE".into() })));
    /// assert_eq!(k.validate(), Err(PtxError::UnknownLabel { name: "NOWHERE".into() }));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn validate(&self) -> Result<(), PtxError> {
        if !is_identifier(&self.name) {
            return Err(PtxError::InvalidName {
                what: "kernel",
                name: self.name.clone(),
            });
        }
        let needed = self.target.min_version();
        if self.version < needed {
            return Err(PtxError::Version {
                version: self.version,
                target: self.target,
                needed,
            });
        }
        if self.reqntid.is_some() && self.maxntid.is_some() {
            return Err(PtxError::BothThreadBounds);
        }
        for (directive, value) in [(".reqntid", self.reqntid), (".maxntid", self.maxntid)] {
            if let Some(v) = value {
                if !(1..=1024).contains(&v) {
                    return Err(PtxError::ThreadCount {
                        directive,
                        value: v,
                    });
                }
            }
        }
        let mut names = HashSet::new();
        let mut params = HashMap::new();
        for p in &self.params {
            check_name("param", &p.name, &mut names)?;
            params.insert(p.name.as_str(), p.ty);
        }
        let mut shared = HashSet::new();
        for s in &self.shared {
            check_name("shared variable", &s.name, &mut names)?;
            if !s.align.is_power_of_two() {
                return Err(PtxError::SharedDecl {
                    name: s.name.clone(),
                    reason: format!("alignment {} is not a power of two", s.align),
                });
            }
            if s.size == Some(0) {
                return Err(PtxError::SharedDecl {
                    name: s.name.clone(),
                    reason: "size 0".into(),
                });
            }
            shared.insert(s.name.as_str());
        }
        let mut labels = HashSet::new();
        for s in &self.body {
            match s {
                Stmt::Label(l) => check_name("label", l, &mut labels)?,
                Stmt::Comment(text) => {
                    if text.contains(['\n', '\r']) {
                        return Err(PtxError::CommentLineBreak { text: text.clone() });
                    }
                }
                Stmt::Inst(_) => {}
            }
        }
        for inst in self.instructions() {
            inst.validate()?;
            if inst.op.min_target() > self.target {
                return Err(PtxError::TargetFeature {
                    inst: inst.op.opcode(),
                    target: self.target,
                });
            }
            match &inst.op {
                Op::Bra { target } if !labels.contains(target.as_str()) => {
                    return Err(PtxError::UnknownLabel {
                        name: target.clone(),
                    })
                }
                Op::Mov {
                    src: MovSource::Shared(name),
                    ..
                } if !shared.contains(name.as_str()) => {
                    return Err(PtxError::UnknownSharedVar { name: name.clone() })
                }
                Op::LdParam { d, param } => match params.get(param.as_str()) {
                    None => {
                        return Err(PtxError::UnknownParam {
                            name: param.clone(),
                        })
                    }
                    Some(ty) if ty.reg_type() != d.ty() => {
                        return Err(PtxError::ParamType {
                            name: param.clone(),
                            param_type: ty.suffix().into(),
                            found: d.to_string(),
                        })
                    }
                    Some(_) => {}
                },
                _ => {}
            }
        }
        Ok(())
    }

    /// The register that `Reg::new(ty, n)` would be one past the last used of its class: a
    /// fresh register for code appended to this kernel.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Reg, RegType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.special(SpecialReg::TidX)?;
    /// assert_eq!(b.finish()?.fresh_register(RegType::B32), Reg::new(RegType::B32, 1));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn fresh_register(&self, ty: RegType) -> Reg {
        Reg::new(ty, self.register_counts().get(&ty).copied().unwrap_or(0))
    }
}

fn check_name<'a>(
    what: &'static str,
    name: &'a str,
    seen: &mut HashSet<&'a str>,
) -> Result<(), PtxError> {
    if !is_identifier(name) {
        return Err(PtxError::InvalidName {
            what,
            name: name.to_string(),
        });
    }
    if !seen.insert(name) {
        return Err(PtxError::DuplicateName {
            what,
            name: name.to_string(),
        });
    }
    Ok(())
}
