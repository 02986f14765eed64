//! The two lowerings of a plan: TLX-style index rewriting ([`reindex`]) and explicit buffer
//! address maps ([`explicit`]).

pub mod explicit;
pub mod reindex;
