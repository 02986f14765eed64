//! Named dimensions (`register`, `lane`, `warp`, `block`, `offset`, `dim0`, …).
//!
//! A [`Dim`] is an interned name: copying and comparing one is a `u32` operation, as Triton's
//! `StringAttr`s are pointer comparisons. Interned names live for the rest of the process, so a
//! program that invents unboundedly many distinct names grows memory; layouts use a handful.

use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

/// An interned dimension name.
///
/// ```
/// use linear_layout::Dim;
/// let lane = Dim::new("lane");
/// assert_eq!(lane, Dim::from("lane"));
/// assert_eq!(lane.name(), "lane");
/// assert_eq!(lane.to_string(), "lane");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim(u32);

#[derive(Default)]
struct Interner {
    ids: HashMap<&'static str, u32>,
    names: Vec<&'static str>,
}

/// Names every layout uses, interned first so that their ids are fixed: [`Dim::new`] finds
/// them without hashing or locking, and [`Dim::standard`] without formatting.
const KNOWN: [&str; 16] = [
    "dim0", "dim1", "dim2", "dim3", "dim4", "dim5", "dim6", "dim7", "register", "lane", "warp",
    "block", "offset", "row", "col", "buffer",
];

fn interner() -> &'static RwLock<Interner> {
    static INTERNER: OnceLock<RwLock<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| {
        let mut table = Interner::default();
        for (id, &name) in (0u32..).zip(KNOWN.iter()) {
            table.names.push(name);
            table.ids.insert(name, id);
        }
        RwLock::new(table)
    })
}

impl Dim {
    /// Interns `name` and returns its handle. The same name always gives the same `Dim`.
    pub fn new(name: &str) -> Dim {
        if let Some(id) = (0u32..)
            .zip(KNOWN.iter())
            .find_map(|(id, &k)| (k == name).then_some(id))
        {
            return Dim(id);
        }
        // A poisoned lock only means another thread panicked while holding it; the map itself
        // is always left consistent (insertions are single statements), so keep using it.
        if let Some(&id) = interner()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .ids
            .get(name)
        {
            return Dim(id);
        }
        let mut table = interner().write().unwrap_or_else(|e| e.into_inner());
        if let Some(&id) = table.ids.get(name) {
            return Dim(id);
        }
        let id = table.names.len() as u32;
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        table.names.push(leaked);
        table.ids.insert(leaked, id);
        Dim(id)
    }

    /// The name this handle was interned from.
    pub fn name(self) -> &'static str {
        if let Some(&known) = KNOWN.get(self.0 as usize) {
            return known;
        }
        interner()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .names
            .get(self.0 as usize)
            .copied()
            // Every `Dim` is created by `Dim::new`, which pushes its name before returning.
            .unwrap_or("<unknown dim>")
    }

    /// `dim0`, `dim1`, … — Triton's standard tensor dimension names.
    ///
    /// ```
    /// assert_eq!(linear_layout::Dim::standard(2).name(), "dim2");
    /// ```
    pub fn standard(index: usize) -> Dim {
        match u32::try_from(index) {
            // dim0..dim7 are the first known names.
            Ok(i) if i < 8 => Dim(i),
            _ => Dim::new(&format!("dim{index}")),
        }
    }
}

impl From<&str> for Dim {
    fn from(name: &str) -> Dim {
        Dim::new(name)
    }
}

impl From<&String> for Dim {
    fn from(name: &String) -> Dim {
        Dim::new(name)
    }
}

impl From<String> for Dim {
    fn from(name: String) -> Dim {
        Dim::new(&name)
    }
}

impl From<&Dim> for Dim {
    fn from(dim: &Dim) -> Dim {
        *dim
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.name())
    }
}

/// A dimension with its size, kept as `log2(size)` (every size is a power of two).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DimSize {
    /// The dimension's name.
    pub dim: Dim,
    /// `log2` of the dimension's size.
    pub log2: u32,
}

impl DimSize {
    /// The size, `2^log2`.
    pub fn size(self) -> u64 {
        1u64 << self.log2
    }
}

/// Names of a dimension list, for error messages.
pub(crate) fn names(dims: &[DimSize]) -> Vec<String> {
    dims.iter().map(|d| d.dim.name().to_owned()).collect()
}
