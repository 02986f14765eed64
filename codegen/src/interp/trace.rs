//! [`Trace`]: every memory access an interpreted kernel made, in execution order.
//!
//! One [`Access`] per thread per scalar or vector `ld`/`st`; per supplied row (thread, matrix,
//! row) for `ldmatrix`/`stmatrix`; per 32-bit cell for `tcgen05.ld/st` (each thread's
//! register `r` at the `(lane, column)` of the shape's thread-to-data map); one for the
//! address `tcgen05.alloc` writes to shared memory.

use linear_layout::Address;

/// What kind of access.
///
/// ```
/// use codegen::interp::AccessKind;
/// assert!(AccessKind::TmemLoad { reg: 3, half: None }.is_load());
/// assert!(!AccessKind::StmatrixRow { matrix: 0, row: 1 }.is_load());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// `ld.shared` / `ld.global`.
    Load,
    /// `st.shared` / `st.global`.
    Store,
    /// One 16-byte row of an `ldmatrix`, whose address this thread supplied.
    LdmatrixRow {
        /// Which matrix (0..count).
        matrix: u8,
        /// Which row (0..8).
        row: u8,
    },
    /// One 16-byte row of a `stmatrix`, whose address this thread supplied.
    StmatrixRow {
        /// Which matrix.
        matrix: u8,
        /// Which row.
        row: u8,
    },
    /// One cell read by `tcgen05.ld` into this thread's register `reg` (index within the
    /// instruction's vector).
    TmemLoad {
        /// The register index.
        reg: u16,
        /// With `.pack::16b`: which 16-bit half of the register the cell's low 16 bits fill.
        half: Option<u8>,
    },
    /// One cell written by `tcgen05.st` from this thread's register `reg`.
    TmemStore {
        /// The register index.
        reg: u16,
        /// With `.unpack::16b`: which 16-bit half of the register the cell receives.
        half: Option<u8>,
    },
    /// One 32-bit cell a `tcgen05.cp` writes (recorded for the issuing thread): `row` is the
    /// shared-memory row of the copy it came from.
    TmemCopy {
        /// The copy's row.
        row: u16,
    },
    /// The TMEM address `tcgen05.alloc` writes to shared memory (recorded for the warp's
    /// first thread).
    TmemAllocWrite,
}

impl AccessKind {
    /// Whether the access reads memory.
    ///
    /// ```
    /// use codegen::interp::AccessKind;
    /// assert!(AccessKind::Load.is_load());
    /// ```
    pub fn is_load(self) -> bool {
        matches!(
            self,
            AccessKind::Load | AccessKind::LdmatrixRow { .. } | AccessKind::TmemLoad { .. }
        )
    }
}

/// Where an access went.
///
/// ```
/// use codegen::interp::Location;
/// use linear_layout::Address;
/// assert_eq!(Location::Tmem { lane: 3, column: 9 }.to_address(0), Some(Address::Tensor { lane: 3, column: 9 }));
/// assert_eq!(Location::Shared(1040).to_address(1024), Some(Address::Shared { byte: 16 }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A shared-window byte address (absolute: the reserved region and static variables
    /// included).
    Shared(u32),
    /// A byte of the global buffer passed as parameter `param`.
    Global {
        /// The parameter index.
        param: usize,
        /// The byte offset in its buffer.
        offset: u64,
    },
    /// A tensor-memory cell.
    Tmem {
        /// The lane, `< 128`.
        lane: u32,
        /// The 32-bit column, `< 512`.
        column: u32,
    },
}

impl Location {
    /// As a `linear_layout` [`Address`], shared bytes counted from `shared_origin` (e.g. the
    /// address of the dynamic region): what an `AddressMap` returns. `None` for global
    /// memory or a shared byte below the origin.
    ///
    /// ```
    /// use codegen::interp::Location;
    /// assert_eq!(Location::Shared(8).to_address(1024), None);
    /// ```
    pub fn to_address(self, shared_origin: u32) -> Option<Address> {
        match self {
            Location::Shared(a) => a
                .checked_sub(shared_origin)
                .map(|b| Address::Shared { byte: u64::from(b) }),
            Location::Tmem { lane, column } => Some(Address::Tensor { lane, column }),
            Location::Global { .. } => None,
        }
    }
}

/// One memory access.
///
/// ```
/// use codegen::interp::{Access, AccessKind, Location};
/// let a = Access { thread: 3, stmt: 7, kind: AccessKind::Load, location: Location::Shared(1024), bytes: 4, value: 0xAB };
/// assert_eq!(a.warp(), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// The thread (`%tid.x`).
    pub thread: u32,
    /// The body statement index of the instruction.
    pub stmt: usize,
    /// What kind of access.
    pub kind: AccessKind,
    /// Where (the first byte, or the cell).
    pub location: Location,
    /// Size in bytes (4 for a TMEM cell, 16 for a matrix row).
    pub bytes: u32,
    /// The bytes moved, little-endian (a store's value, a load's result).
    pub value: u128,
}

impl Access {
    /// The thread's warp.
    ///
    /// ```
    /// use codegen::interp::{Access, AccessKind, Location};
    /// let a = Access { thread: 70, stmt: 0, kind: AccessKind::Store, location: Location::Shared(0), bytes: 1, value: 0 };
    /// assert_eq!(a.warp(), 2);
    /// ```
    pub fn warp(&self) -> u32 {
        self.thread / 32
    }
}

/// Every access, in execution order (warps run in turn between barriers; within a warp,
/// threads in order).
///
/// ```
/// use codegen::interp::{Access, AccessKind, Location, Trace};
/// let mut t = Trace::default();
/// t.push(Access { thread: 1, stmt: 0, kind: AccessKind::Load, location: Location::Shared(4), bytes: 4, value: 0 });
/// assert_eq!(t.len(), 1);
/// assert_eq!(t.of_thread(1).count(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    accesses: Vec<Access>,
    /// Each warp-level execution: where its accesses start (ascending), its statement and its
    /// warp.
    issue_starts: Vec<(usize, usize, u32)>,
}

impl Trace {
    /// Appends an access.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert!(Trace::default().is_empty());
    /// ```
    pub fn push(&mut self, access: Access) {
        self.accesses.push(access);
    }

    /// Marks the start of one warp-level execution of body statement `stmt` by warp `warp`: the accesses
    /// pushed from here to the next mark are that instruction's, for every thread of the warp
    /// that ran it. An execution may make no access (every lane predicated off).
    ///
    /// ```
    /// use codegen::interp::{Access, AccessKind, Location, Trace};
    /// let mut t = Trace::default();
    /// let a = |thread| Access { thread, stmt: 4, kind: AccessKind::Load, location: Location::Shared(4 * thread), bytes: 4, value: 0 };
    /// t.begin_issue(4, 0);
    /// t.push(a(0));
    /// t.push(a(1));
    /// t.begin_issue(5, 0);
    /// t.begin_issue(4, 0);
    /// t.push(a(0));
    /// assert_eq!(t.issues().map(|i| i.len()).collect::<Vec<_>>(), [2, 1]);
    /// assert_eq!(t.executions().map(|(stmt, _, i)| (stmt, i.len())).collect::<Vec<_>>(), [(4, 2), (5, 0), (4, 1)]);
    /// ```
    pub fn begin_issue(&mut self, stmt: usize, warp: u32) {
        self.issue_starts.push((self.accesses.len(), stmt, warp));
    }

    /// Every marked warp-level execution, in order: its statement, its warp and its accesses (empty when
    /// no lane ran it or it touches no memory). Accesses pushed before the first mark are not
    /// listed.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert_eq!(Trace::default().executions().count(), 0);
    /// ```
    pub fn executions(&self) -> impl Iterator<Item = (usize, u32, &[Access])> {
        let ends = self
            .issue_starts
            .iter()
            .skip(1)
            .map(|&(at, _, _)| at)
            .chain(std::iter::once(self.accesses.len()));
        self.issue_starts
            .iter()
            .zip(ends)
            .map(|(&(start, stmt, warp), end)| {
                (stmt, warp, self.accesses.get(start..end).unwrap_or(&[]))
            })
    }

    /// The accesses of each warp-level execution that made any, in execution order (accesses
    /// pushed before the first mark form one of their own).
    ///
    /// ```
    /// use codegen::interp::{Access, AccessKind, Location, Trace};
    /// assert_eq!(Trace::default().issues().count(), 0);
    /// let mut t = Trace::default();
    /// let a = |thread| Access { thread, stmt: 2, kind: AccessKind::Store, location: Location::Shared(4 * thread), bytes: 4, value: 0 };
    /// t.push(a(0)); // before any mark
    /// t.begin_issue(2, 0);
    /// t.push(a(1));
    /// assert_eq!(t.issues().map(|i| i.len()).collect::<Vec<_>>(), [1, 1]);
    /// ```
    pub fn issues(&self) -> impl Iterator<Item = &[Access]> {
        let first = self
            .issue_starts
            .first()
            .map_or(self.accesses.len(), |&(at, _, _)| at);
        // Empty executions (and an empty lead) are dropped below.
        let leading = self.accesses.get(..first);
        leading
            .into_iter()
            .chain(self.executions().map(|(_, _, a)| a))
            .filter(|a| !a.is_empty())
    }

    /// All accesses.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert!(Trace::default().accesses().is_empty());
    /// ```
    pub fn accesses(&self) -> &[Access] {
        &self.accesses
    }

    /// Iterates over all accesses.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert_eq!(Trace::default().iter().count(), 0);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, Access> {
        self.accesses.iter()
    }

    /// The number of accesses.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert_eq!(Trace::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.accesses.len()
    }

    /// Whether there are none.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert!(Trace::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.accesses.is_empty()
    }

    /// The accesses of one thread.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert_eq!(Trace::default().of_thread(0).count(), 0);
    /// ```
    pub fn of_thread(&self, thread: u32) -> impl Iterator<Item = &Access> {
        self.accesses.iter().filter(move |a| a.thread == thread)
    }

    /// The accesses made by body statement `stmt`.
    ///
    /// ```
    /// use codegen::interp::Trace;
    /// assert_eq!(Trace::default().of_stmt(3).count(), 0);
    /// ```
    pub fn of_stmt(&self, stmt: usize) -> impl Iterator<Item = &Access> {
        self.accesses.iter().filter(move |a| a.stmt == stmt)
    }
}

impl<'a> IntoIterator for &'a Trace {
    type Item = &'a Access;
    type IntoIter = std::slice::Iter<'a, Access>;
    fn into_iter(self) -> Self::IntoIter {
        self.accesses.iter()
    }
}
