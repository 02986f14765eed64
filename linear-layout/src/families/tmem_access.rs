//! tcgen05 access atoms ([`Tcgen05Atom`]) and the register layout of a TMEM load/store.

/// The shape of one `tcgen05.ld/st` message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tcgen05Atom {
    /// `.32x32b`: lane i of a warp reads TMEM lane i.
    M32x32b,
    /// `.16x64b`.
    M16x64b,
    /// `.16x128b`.
    M16x128b,
    /// `.16x256b`.
    M16x256b,
}
