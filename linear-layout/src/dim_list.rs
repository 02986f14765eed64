//! [`DimList`]: a layout's in-dims or out-dims (names and sizes), interned.
//!
//! A program builds layouts over few distinct dim lists (`[register, lane, warp, block]`,
//! `[dim0, dim1]` at a handful of sizes) and copies them constantly: every `compose`,
//! `invert` or `reshape` result shares a list with an operand. Interned as dim names are (and
//! as MLIR uniques attributes in its context), a copy is a pointer copy: no reference count,
//! no atomic operation, nothing to free. Lists live for the rest of the process, so a program
//! that invents unboundedly many distinct lists grows memory, a few bytes per dim each.
//!
//! Each thread looks a list up in its own table first and takes the process-wide lock only
//! for a list it has not seen.

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{OnceLock, RwLock};

use rustc_hash::FxBuildHasher;

use crate::dims::DimSize;

type Table = HashSet<&'static [DimSize], FxBuildHasher>;

/// An interned list of dims; reads as a slice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DimList(&'static [DimSize]);

fn global() -> &'static RwLock<Table> {
    static GLOBAL: OnceLock<RwLock<Table>> = OnceLock::new();
    GLOBAL.get_or_init(|| RwLock::new(Table::with_hasher(FxBuildHasher)))
}

thread_local! {
    static LOCAL: RefCell<Table> = const { RefCell::new(Table::with_hasher(FxBuildHasher)) };
}

impl DimList {
    /// The interned copy of `dims`: the same list always gives the same `DimList`.
    pub(crate) fn new(dims: &[DimSize]) -> DimList {
        if dims.is_empty() {
            return DimList(&[]);
        }
        let local = LOCAL.with(|t| t.try_borrow().ok()?.get(dims).copied());
        if let Some(found) = local {
            return DimList(found);
        }
        let found = DimList::global(dims);
        // A thread being torn down, or a re-entrant borrow, only loses the cache entry.
        let _ = LOCAL.try_with(|t| t.try_borrow_mut().map(|mut t| t.insert(found)));
        DimList(found)
    }

    /// The process-wide copy; a poisoned lock only means another thread panicked while
    /// holding it, and the table is consistent after every statement, so keep using it.
    fn global(dims: &[DimSize]) -> &'static [DimSize] {
        if let Some(&found) = global().read().unwrap_or_else(|e| e.into_inner()).get(dims) {
            return found;
        }
        let mut table = global().write().unwrap_or_else(|e| e.into_inner());
        if let Some(&found) = table.get(dims) {
            return found;
        }
        let leaked: &'static [DimSize] = Box::leak(dims.to_vec().into_boxed_slice());
        table.insert(leaked);
        leaked
    }
}

impl Deref for DimList {
    type Target = [DimSize];

    fn deref(&self) -> &[DimSize] {
        self.0
    }
}

impl PartialEq for DimList {
    /// Interned lists are equal exactly when they are the same list.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0) || self.0 == other.0
    }
}

impl Eq for DimList {}

impl Hash for DimList {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl From<&[DimSize]> for DimList {
    fn from(dims: &[DimSize]) -> DimList {
        DimList::new(dims)
    }
}

impl From<Vec<DimSize>> for DimList {
    fn from(dims: Vec<DimSize>) -> DimList {
        DimList::new(&dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::Dim;

    fn dims(sizes: &[(&str, u32)]) -> Vec<DimSize> {
        sizes
            .iter()
            .map(|&(name, log2)| DimSize {
                dim: Dim::new(name),
                log2,
            })
            .collect()
    }

    #[test]
    fn equal_lists_are_one_list() {
        let a = DimList::new(&dims(&[("lane", 5), ("warp", 2)]));
        let b = DimList::from(dims(&[("lane", 5), ("warp", 2)]));
        assert!(std::ptr::eq(a.0, b.0));
        assert_eq!(a, b);
        assert_eq!(&*a, dims(&[("lane", 5), ("warp", 2)]).as_slice());
        let c = DimList::new(&dims(&[("lane", 5), ("warp", 3)]));
        assert_ne!(a, c);
        assert_ne!(a, DimList::new(&dims(&[("warp", 2), ("lane", 5)])));
        assert!(DimList::new(&[]).is_empty());
    }

    #[test]
    fn threads_share_the_process_wide_copy() {
        let here = DimList::new(&dims(&[("dim0", 7), ("dim1", 9)]));
        let there = std::thread::spawn(|| DimList::new(&dims(&[("dim0", 7), ("dim1", 9)])).0)
            .join()
            .map_err(|_| "thread panicked");
        assert_eq!(there.map(|p| std::ptr::eq(p, here.0)), Ok(true));
    }
}
