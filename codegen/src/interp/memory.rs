//! The interpreter's memories: where shared variables sit ([`SharedLayout`]), the run
//! configuration ([`Config`]), parameter values and global buffers ([`ParamValue`]), and
//! tensor memory ([`Tmem`]).

use linear_layout::address::align_up_saturating;

use crate::ptx::Kernel;

use super::error::InterpError;

/// How to run a kernel: thread count and shared-memory geometry.
///
/// ```
/// use codegen::interp::Config;
/// let c = Config::new(128).dynamic_shared(4096).with_base(0);
/// assert_eq!((c.threads, c.dynamic_shared_bytes, c.shared_base), (128, 4096, 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Threads in the one CTA (`%ntid.x`): a multiple of 32, at most 1024.
    pub threads: u32,
    /// The shared-window address of the first byte the kernel may use. Defaults to 1024:
    /// sm_90/sm_100 reserve the first KiB, so `.extern .shared` data starts at 0x400.
    pub shared_base: u32,
    /// Bytes of dynamic (`.extern .shared`) memory; 0 by default.
    pub dynamic_shared_bytes: u32,
    /// The most shared bytes above the base the kernel may use: 227 KiB by default
    /// (sm_90a / sm_100a).
    pub shared_limit: u32,
}

impl Config {
    /// `threads` threads, base 1024, no dynamic shared memory, a 227 KiB limit.
    ///
    /// ```
    /// use codegen::interp::Config;
    /// assert_eq!(Config::new(32).shared_base, 1024);
    /// ```
    pub fn new(threads: u32) -> Config {
        Config {
            threads,
            shared_base: 1024,
            dynamic_shared_bytes: 0,
            shared_limit: 227 * 1024,
        }
    }

    /// With `bytes` of dynamic shared memory.
    ///
    /// ```
    /// use codegen::interp::Config;
    /// assert_eq!(Config::new(32).dynamic_shared(64).dynamic_shared_bytes, 64);
    /// ```
    pub fn dynamic_shared(mut self, bytes: u32) -> Config {
        self.dynamic_shared_bytes = bytes;
        self
    }

    /// With shared memory starting at `base`.
    ///
    /// ```
    /// use codegen::interp::Config;
    /// assert_eq!(Config::new(32).with_base(0).shared_base, 0);
    /// ```
    pub fn with_base(mut self, base: u32) -> Config {
        self.shared_base = base;
        self
    }
}

/// A kernel parameter's value. A `Buffer` is a global allocation: `ld.param` of its
/// (`.u64`) parameter yields [`buffer_address`], and the run returns its final contents.
///
/// ```
/// use codegen::interp::ParamValue;
/// let out = ParamValue::Buffer(vec![0; 512]);
/// assert!(matches!(out, ParamValue::Buffer(ref b) if b.len() == 512));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamValue {
    /// A `.u32` scalar.
    U32(u32),
    /// A `.u64` scalar.
    U64(u64),
    /// A global buffer, for a `.u64` pointer parameter.
    Buffer(Vec<u8>),
}

/// The global address the interpreter gives the buffer of parameter `param`: buffers are
/// 64 GiB apart from `0x1000_0000_0000`, so an address identifies its buffer.
///
/// ```
/// use codegen::interp::buffer_address;
/// assert_eq!(buffer_address(1) - buffer_address(0), 1 << 36);
/// ```
pub fn buffer_address(param: usize) -> u64 {
    0x1000_0000_0000u64.wrapping_add((param as u64) << 36)
}

/// Where each `.shared` variable sits: static variables in declaration order from the base,
/// each at its alignment, then the dynamic region at the largest `.extern` alignment (every
/// `.extern` variable names the same dynamic region, as in CUDA).
///
/// ```
/// use codegen::interp::{Config, SharedLayout};
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm100a)?;
/// b.shared("slot", 16, 4)?;
/// b.extern_shared("smem", 1024)?;
/// let k = b.finish()?;
/// let l = SharedLayout::new(&k, &Config::new(32).dynamic_shared(2048))?;
/// assert_eq!(l.address("slot"), Some(1024));
/// assert_eq!(l.address("smem"), Some(2048));
/// assert_eq!(l.end, 4096);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedLayout {
    /// `(name, address)` of every variable.
    pub vars: Vec<(String, u32)>,
    /// The first usable byte (the configured base).
    pub start: u32,
    /// The address of the dynamic region.
    pub dynamic_start: u32,
    /// One past the last usable byte.
    pub end: u32,
}

impl SharedLayout {
    /// Places the kernel's variables; [`InterpError::SharedCapacity`] if they exceed
    /// `config.shared_limit`.
    ///
    /// ```
    /// use codegen::interp::{Config, InterpError, SharedLayout};
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let k = b.finish()?;
    /// let err = SharedLayout::new(&k, &Config::new(32).dynamic_shared(1 << 20)).unwrap_err();
    /// assert!(matches!(err, InterpError::SharedCapacity { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(kernel: &Kernel, config: &Config) -> Result<SharedLayout, InterpError> {
        let mut cur = u64::from(config.shared_base);
        let mut vars = Vec::new();
        let mut dyn_align = 16;
        for s in &kernel.shared {
            match s.size {
                Some(size) => {
                    cur = align_up_saturating(cur, u64::from(s.align));
                    vars.push((s.name.clone(), cur));
                    cur += u64::from(size);
                }
                None => dyn_align = dyn_align.max(s.align),
            }
        }
        let dynamic_start = align_up_saturating(cur, u64::from(dyn_align));
        let end = dynamic_start + u64::from(config.dynamic_shared_bytes);
        let needed = end - u64::from(config.shared_base);
        if needed > u64::from(config.shared_limit) || end > u64::from(u32::MAX) {
            return Err(InterpError::SharedCapacity {
                needed,
                limit: config.shared_limit,
            });
        }
        let vars = kernel
            .shared
            .iter()
            .map(|s| {
                let addr = if s.size.is_some() {
                    vars.iter()
                        .find(|(n, _)| *n == s.name)
                        .map_or(0, |(_, a)| *a)
                } else {
                    dynamic_start
                };
                (s.name.clone(), addr as u32)
            })
            .collect();
        Ok(SharedLayout {
            vars,
            start: config.shared_base,
            dynamic_start: dynamic_start as u32,
            end: end as u32,
        })
    }

    /// The address of variable `name`.
    ///
    /// ```
    /// use codegen::interp::{Config, SharedLayout};
    /// use codegen::ptx::{Builder, Target};
    /// let k = Builder::new("k", Target::Sm90a)?.finish()?;
    /// assert_eq!(SharedLayout::new(&k, &Config::new(32))?.address("x"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn address(&self, name: &str) -> Option<u32> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, a)| *a)
    }
}

/// Tensor memory: 128 lanes × 512 columns of 32-bit cells, initially zero, with the CTA's
/// allocations.
///
/// `allocate` returns the lowest free column run aligned to its size, so the first
/// allocation starts at column 0.
///
/// ```
/// use codegen::interp::Tmem;
/// let mut t = Tmem::new();
/// assert_eq!(t.allocate(64), Some(0));
/// assert_eq!(t.allocate(32), Some(64));
/// assert!(t.set(5, 70, 0xAB));
/// assert_eq!(t.get(5, 70), Some(0xAB));
/// assert_eq!(t.get(128, 0), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tmem {
    cells: Vec<u32>,
    allocations: Vec<(u32, u32)>,
    relinquished: bool,
}

impl Default for Tmem {
    fn default() -> Tmem {
        Tmem::new()
    }
}

impl Tmem {
    /// Lanes (rows).
    pub const LANES: u32 = 128;
    /// 32-bit columns.
    pub const COLUMNS: u32 = 512;

    /// Zeroed, nothing allocated.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// assert!(Tmem::new().allocations().is_empty());
    /// ```
    pub fn new() -> Tmem {
        Tmem {
            cells: vec![0; (Tmem::LANES * Tmem::COLUMNS) as usize],
            allocations: Vec::new(),
            relinquished: false,
        }
    }

    fn index(lane: u32, column: u32) -> Option<usize> {
        (lane < Tmem::LANES && column < Tmem::COLUMNS)
            .then(|| (lane * Tmem::COLUMNS + column) as usize)
    }

    /// The cell at `(lane, column)`; `None` out of range.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// assert_eq!(Tmem::new().get(0, 511), Some(0));
    /// ```
    pub fn get(&self, lane: u32, column: u32) -> Option<u32> {
        Tmem::index(lane, column).and_then(|i| self.cells.get(i).copied())
    }

    /// Sets a cell; `false` out of range.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// assert!(!Tmem::new().set(0, 512, 1));
    /// ```
    pub fn set(&mut self, lane: u32, column: u32, value: u32) -> bool {
        match Tmem::index(lane, column).and_then(|i| self.cells.get_mut(i)) {
            Some(c) => {
                *c = value;
                true
            }
            None => false,
        }
    }

    /// Live allocations as `(first column, count)`.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// let mut t = Tmem::new();
    /// t.allocate(128);
    /// assert_eq!(t.allocations(), &[(0, 128)]);
    /// ```
    pub fn allocations(&self) -> &[(u32, u32)] {
        &self.allocations
    }

    /// Allocates `ncols` columns (a power of two in 32..=512) at the lowest free run aligned
    /// to `ncols`; `None` if the count is invalid or nothing is free.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// let mut t = Tmem::new();
    /// assert_eq!(t.allocate(48), None);
    /// assert_eq!(t.allocate(512), Some(0));
    /// assert_eq!(t.allocate(32), None);
    /// ```
    pub fn allocate(&mut self, ncols: u32) -> Option<u32> {
        if !ncols.is_power_of_two() || !(32..=Tmem::COLUMNS).contains(&ncols) {
            return None;
        }
        let start = (0..Tmem::COLUMNS / ncols).map(|k| k * ncols).find(|&s| {
            self.allocations
                .iter()
                .all(|&(a, n)| s + ncols <= a || a + n <= s)
        })?;
        self.allocations.push((start, ncols));
        Some(start)
    }

    /// Frees the allocation `(start, ncols)`; `false` if there is none.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// let mut t = Tmem::new();
    /// t.allocate(64);
    /// assert!(!t.free(0, 32));
    /// assert!(t.free(0, 64));
    /// ```
    pub fn free(&mut self, start: u32, ncols: u32) -> bool {
        match self.allocations.iter().position(|&a| a == (start, ncols)) {
            Some(i) => {
                self.allocations.remove(i);
                true
            }
            None => false,
        }
    }

    /// Whether a live allocation covers `column`.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// let mut t = Tmem::new();
    /// t.allocate(32);
    /// assert!(t.is_allocated(31) && !t.is_allocated(32));
    /// ```
    pub fn is_allocated(&self, column: u32) -> bool {
        self.allocations
            .iter()
            .any(|&(a, n)| (a..a + n).contains(&column))
    }

    /// Marks the permit relinquished (later allocations are errors).
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// let mut t = Tmem::new();
    /// t.relinquish();
    /// assert!(t.is_relinquished());
    /// ```
    pub fn relinquish(&mut self) {
        self.relinquished = true;
    }

    /// Whether `relinquish_alloc_permit` ran.
    ///
    /// ```
    /// use codegen::interp::Tmem;
    /// assert!(!Tmem::new().is_relinquished());
    /// ```
    pub fn is_relinquished(&self) -> bool {
        self.relinquished
    }
}
