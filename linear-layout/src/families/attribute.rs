//! [`Attribute`]: what each family implements beside its map to be read and printed as MLIR —
//! its name, its keys (on the shared grammar of `text/attr.rs`) and its printer.
//! [`encoding`](super::encoding) registers every family and dispatches on the name.

use crate::text::attr::AttrParser;
use crate::Result;

/// A layout attribute's text: its name, its keys, its printer. Implemented beside each family.
pub(crate) trait Attribute: Sized {
    /// `#ttg.blocked`, `#ttng.tensor_memory_encoding`, …
    const NAME: &'static str;

    /// The attribute after its name (`<{…}>`); `start` is where the name began, for errors
    /// about the whole attribute (a missing key).
    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self>;

    /// The attribute as Triton 3.9 prints it on a tensor or allocation of rank `rank`.
    fn print(&self, rank: usize) -> String;
}

/// The printing half of [`Attribute`], for any family behind a reference.
pub(crate) trait AttributeText {
    /// [`Attribute::NAME`].
    fn name(&self) -> &'static str;
    /// [`Attribute::print`].
    fn text(&self, rank: usize) -> String;
}

impl<A: Attribute> AttributeText for A {
    fn name(&self) -> &'static str {
        A::NAME
    }
    fn text(&self, rank: usize) -> String {
        self.print(rank)
    }
}
