//! [`StorageAliasSpec`]: TLX's `storage_alias_spec`, a named region that allocations share.

use std::fmt;
use std::str::FromStr;

use crate::AllocError;

/// Where an allocation lives: TLX's `storage_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Shared memory; planned in bytes.
    Smem,
    /// Blackwell tensor memory; planned in 32-bit columns (rows are never offset).
    Tmem,
    /// Distributed shared memory of a cluster; a spec rejects it, as TLX does.
    SmemCluster,
}

impl Storage {
    /// The plan unit: `"bytes"` for shared memory, `"columns"` for tensor memory.
    pub fn unit(self) -> &'static str {
        match self {
            Storage::Tmem => "columns",
            _ => "bytes",
        }
    }
}

impl fmt::Display for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Storage::Smem => "smem",
            Storage::Tmem => "tmem",
            Storage::SmemCluster => "smemCluster",
        })
    }
}

impl FromStr for Storage {
    type Err = AllocError;

    fn from_str(s: &str) -> Result<Self, AllocError> {
        match s.trim() {
            "smem" => Ok(Storage::Smem),
            "tmem" => Ok(Storage::Tmem),
            "smemCluster" | "smem_cluster" => Ok(Storage::SmemCluster),
            other => Err(AllocError::Input(format!(
                "unknown storage '{other}' (expected smem or tmem)"
            ))),
        }
    }
}

/// Handle of a spec inside its [`Program`](crate::Program).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpecId(pub(crate) usize);

impl SpecId {
    /// Position of the spec in program order.
    pub fn index(self) -> usize {
        self.0
    }
}

/// `tlx.storage_alias_spec(storage, buffer_size_bytes)`: one backing allocation that every
/// allocation made with `reuse = spec` aliases. Build it with
/// [`Program::storage_alias_spec`](crate::Program::storage_alias_spec).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageAliasSpec {
    /// Name used in messages, reports and plan files.
    pub name: String,
    /// `smem` or `tmem`.
    pub storage: Storage,
    /// Explicit `buffer_size_bytes`, if any (bytes, also for TMEM: rows × columns × 4).
    pub size: Option<u64>,
}
