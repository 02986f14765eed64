//! The linear encodings: `#ttg.linear` (a register layout given by its bases, a
//! [`LinearLayout`] with in-dims `register, lane, warp, block`) and `#ttg.shared_linear`
//! ([`SharedLinear`]: in-dims `offset, block`, plus an alignment), with their attribute text.
//!
//! Both build their out-dims as Triton's attribute parser does: `dim0…dimN-1`, sized by the
//! bases (so the layout is surjective). [`LinearLayout::from_mlir`] reads the same grammar with
//! any in-dims, in the order the text gives them.
//!
//! ```
//! use linear_layout::families::{Encoding, SharedEncoding, SharedLinear};
//! let text = "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}, alignment = 16>";
//! let enc = Encoding::from_mlir(text)?;
//! let dims = vec![("dim0".into(), 4), ("dim1".into(), 4)];
//! assert!(matches!(&enc, Encoding::Shared(SharedEncoding::Linear(SharedLinear { layout, alignment: 16 }))
//!     if layout.out_dims() == dims));
//! assert_eq!(enc.to_mlir(), text);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use crate::families::attribute::Attribute;
use crate::families::checks::check_shape;
use crate::families::tiling::{ensure_not_larger_than, ensure_not_smaller_than};
use crate::text::attr::{bases_text, layout_dims_text, AttrParser};
use crate::{Dim, DimBases, LayoutError, LinearLayout, Result};

/// `#ttg.linear` on a tensor of `shape`, as Triton's `LinearEncodingAttr::toLinearLayout` fits
/// it: out-dims taken in the layout's order (each dim in the order a `register` basis first
/// moves it, then the rest from the last dim down), grown with `register` bases where the
/// tensor is larger (`ensureLayoutNotSmallerThan`), clipped where it is smaller
/// (`ensureLayoutNotLargerThan`: `lane`/`warp`/`block` bases broadcast, `register` bases that
/// fall outside dropped), out-dims back in `dim0…` order.
///
/// Errors: [`LayoutError::InvalidShape`] for a shape of another rank or a size that is not a
/// power of two (Triton asserts).
///
/// ```
/// use linear_layout::{LinearLayout, families::linear::fit_linear};
/// // 32 × 16: lanes cover 8 × 4, warps 2 × 2 more, one register doubles dim1.
/// let l = LinearLayout::from_mlir("#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>")?;
/// // A 64 × 16 tensor repeats the tile along dim0: one more register basis.
/// let big = fit_linear(&l, &[64, 16])?;
/// assert_eq!(big.bases_of("register")?, vec![vec![0, 1], vec![8, 0], vec![32, 0]]);
/// // An 8 × 16 tensor: the warps along dim0 broadcast, the register along dim0 goes.
/// let small = fit_linear(&l, &[8, 16])?;
/// assert_eq!(small.bases_of("register")?, vec![vec![0, 1]]);
/// assert_eq!(small.bases_of("warp")?, vec![vec![0, 8], vec![0, 0]]);
/// assert!(fit_linear(&l, &[48, 16]).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn fit_linear(layout: &LinearLayout, shape: &[u64]) -> Result<LinearLayout> {
    check_permutation("linear", layout)?;
    check_shape("linear", shape, layout.num_out_dims())?;
    let canonical: Vec<Dim> = layout.out_dims().iter().map(|&(d, _)| d).collect();
    let order = register_order(layout)?;
    let mut permuted = Vec::with_capacity(order.len());
    let mut named = Vec::with_capacity(order.len());
    for &d in &order {
        if let (Some(&dim), Some(&size)) = (canonical.get(d), shape.get(d)) {
            permuted.push(dim);
            named.push((dim.name(), size));
        }
    }
    let l = layout.transpose_outs(&permuted)?;
    let l = ensure_not_smaller_than(&l, &named)?;
    let l = ensure_not_larger_than(&l, &named, false)?;
    l.transpose_outs(&canonical)
}

/// Triton's `LinearEncodingAttr` verifier: once the zero (broadcast) bases are removed, the bases
/// form a permutation matrix — each moves one dim by a power of two, and no two are the same.
/// Errors: [`LayoutError::InvalidParameter`] naming the first basis that breaks it.
pub(crate) fn check_permutation(family: &'static str, layout: &LinearLayout) -> Result<()> {
    let mut seen: Vec<Vec<u64>> = Vec::new();
    for (dim, bases) in layout.bases() {
        for (i, b) in bases.iter().enumerate() {
            let moved: Vec<&u64> = b.iter().filter(|&&v| v != 0).collect();
            if moved.is_empty() {
                continue;
            }
            let reason = if moved.len() > 1 {
                "it moves more than one dim"
            } else if !moved.iter().all(|v| v.is_power_of_two()) {
                "it moves a dim by a non-power of two"
            } else if seen.contains(b) {
                "another basis moves the same way"
            } else {
                seen.push(b.clone());
                continue;
            };
            return Err(LayoutError::InvalidParameter {
                family,
                param: "bases",
                value: format!("{dim}[{i}] = {b:?}"),
                reason: format!(
                    "{reason}; Triton requires a permutation matrix layout after removing \
                     broadcast bases"
                ),
            });
        }
    }
    Ok(())
}

/// Triton's `LinearEncodingAttr::getOrder`: each out-dim in the order a `register` basis first
/// moves it, then those no basis moves from the last dim down.
fn register_order(layout: &LinearLayout) -> Result<Vec<usize>> {
    let rank = layout.num_out_dims();
    let mut order = Vec::with_capacity(rank);
    let registers = if layout.has_in_dim("register") {
        layout.bases_of("register")?
    } else {
        Vec::new()
    };
    let moved = registers
        .iter()
        .filter_map(|b| b.iter().position(|&v| v != 0));
    for d in moved.chain((0..rank).rev()) {
        if !order.contains(&d) {
            order.push(d);
        }
    }
    Ok(order)
}

impl SharedLinear {
    /// A shared linear layout, checked: in-dims `offset` (first) and optionally `block`, and an
    /// alignment that is a power of two ([`LayoutError::InvalidParameter`] otherwise).
    ///
    /// ```
    /// use linear_layout::{LinearLayout, families::SharedLinear};
    /// let l = LinearLayout::identity_1d(64, "offset", "dim0")?;
    /// assert_eq!(SharedLinear::new(l.clone(), 16)?.to_linear_layout(&[64])?, l);
    /// assert!(SharedLinear::new(l, 24).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn new(layout: LinearLayout, alignment: u64) -> Result<SharedLinear> {
        let ins: Vec<String> = layout
            .in_dim_names()
            .iter()
            .map(|d| d.name().to_string())
            .collect();
        let ok_dims = ins.first().map(String::as_str) == Some("offset")
            && ins.iter().skip(1).all(|d| d == "block")
            && ins.len() <= 2;
        let bad =
            |param: &'static str, value: String, reason: &str| LayoutError::InvalidParameter {
                family: "shared_linear",
                param,
                value,
                reason: reason.into(),
            };
        if !ok_dims {
            return Err(bad(
                "layout",
                format!("in-dims {ins:?}"),
                "a shared linear layout has in-dims offset and, optionally, block",
            ));
        }
        if !alignment.is_power_of_two() {
            return Err(bad(
                "alignment",
                alignment.to_string(),
                "must be a power of two",
            ));
        }
        Ok(SharedLinear { layout, alignment })
    }

    /// The layout for an allocation of `shape`: its own, which `shape` must match exactly
    /// (Triton's `SharedLinearEncodingAttr::toLinearLayout` asserts it: shared linear layouts
    /// do not broadcast). Errors: [`LayoutError::InvalidShape`] naming both shapes.
    ///
    /// ```
    /// use linear_layout::families::{Encoding, SharedEncoding};
    /// let enc = Encoding::from_mlir("#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}, alignment = 16>")?;
    /// assert_eq!(enc.to_linear_layout(&[4, 4])?.out_dims().len(), 2);
    /// assert!(enc.to_linear_layout(&[8, 4]).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let own: Vec<u64> = self.layout.out_dims().iter().map(|&(_, s)| s).collect();
        if own != shape {
            return Err(LayoutError::InvalidShape {
                family: "shared_linear",
                shape: shape.to_vec(),
                reason: format!(
                    "the layout is {own:?}; Triton does not broadcast a shared linear layout \
                     to another shape"
                ),
            });
        }
        Ok(self.layout.clone())
    }
}

/// `#ttg.shared_linear<{offset = […], block = […]}, alignment = N>`: any shared-memory layout
/// with in-dims `offset, block`, and the alignment of the allocation's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedLinear {
    /// The map from `offset, block` to `dim0…`.
    pub layout: LinearLayout,
    /// The alignment of the allocation's start, in bytes.
    pub alignment: u64,
}

/// The in-dims of `#ttg.linear`, in the order Triton builds them.
pub(crate) const REGISTER_DIMS: [&str; 4] = ["register", "lane", "warp", "block"];

/// `{dim = [[…]], …}>`: the bases of a linear attribute. With `keys`, exactly those in-dims,
/// each required, in `keys` order (Triton's attribute); without, any in-dims in text order.
pub(crate) fn linear_bases<'a>(
    p: &mut AttrParser<'a>,
    attr: &str,
    start: usize,
    keys: Option<&[&'static str]>,
) -> Result<Vec<(&'a str, DimBases)>> {
    let mut found: Vec<(&'a str, DimBases)> = Vec::new();
    // `#ttg.linear` as the TLX fork prints it may carry an `order`, which Triton 3.9's parser
    // does not read (it takes the four in-dims from the dictionary and nothing else).
    let with_order: Option<Vec<&'static str>> = keys.map(|k| {
        let mut all = k.to_vec();
        if k == REGISTER_DIMS {
            all.push("order");
        }
        all
    });
    p.open_dict(attr)?;
    p.fields(attr, with_order.as_deref(), '}', |p, key| {
        if key == "order" && keys.is_some() {
            p.ints::<u64>(attr, key)?;
            return Ok(());
        }
        let bases = p.bases(attr, key)?;
        found.push((key, bases));
        Ok(())
    })?;
    p.close_dict(attr)?;
    let Some(keys) = keys else {
        return Ok(found);
    };
    let mut dims = Vec::with_capacity(keys.len());
    for &key in keys {
        let bases = found
            .iter()
            .position(|(k, _)| *k == key)
            .map(|i| found.swap_remove(i).1);
        dims.push((key, p.required(attr, start, key, bases)?));
    }
    Ok(dims)
}

impl Attribute for LinearLayout {
    const NAME: &'static str = "#ttg.linear";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        let dims = linear_bases(p, Self::NAME, start, Some(&REGISTER_DIMS))?;
        let layout = p.layout(Self::NAME, start, &dims)?;
        check_permutation("linear", &layout)?;
        Ok(layout)
    }

    fn print(&self, _rank: usize) -> String {
        format!(
            "{}<{{{}}}>",
            Self::NAME,
            layout_dims_text(self, &REGISTER_DIMS, &[])
        )
    }
}

impl Attribute for SharedLinear {
    const NAME: &'static str = "#ttg.shared_linear";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        const A: &str = SharedLinear::NAME;
        let (mut offset, mut block, mut alignment) = (None, Vec::new(), None);
        p.open_dict(A)?;
        p.fields(A, Some(&["offset", "block"]), '}', |p, key| {
            match key {
                "offset" => offset = Some(p.bases(A, key)?),
                _ => block = p.bases(A, key)?,
            }
            Ok(())
        })?;
        p.cursor.require(A, ',', " before 'alignment'")?;
        p.fields(A, Some(&["alignment"]), '>', |p, key| {
            alignment = Some(p.uint(A, key)?);
            Ok(())
        })?;
        let offset = p.required(A, start, "offset", offset)?;
        let alignment = p.required(A, start, "alignment", alignment)?;
        let layout = p.layout(A, start, &[("offset", offset), ("block", block)])?;
        Ok(SharedLinear { layout, alignment })
    }

    fn print(&self, _rank: usize) -> String {
        format!(
            "{}<{{{}}}, alignment = {}>",
            Self::NAME,
            layout_dims_text(&self.layout, &["offset", "block"], &["block"]),
            self.alignment
        )
    }
}

impl LinearLayout {
    /// Parses `#ttg.linear<{…}>` with any in-dims, in text order.
    ///
    /// Errors: [`LayoutError::Parse`] with the column and the offending token (a key given
    /// twice, a negative or oversized component, lists of different lengths), or the
    /// layout's own error for bases that do not make one.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_mlir("#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>")?;
    /// assert_eq!(l.out_dims(), vec![("dim0".into(), 32), ("dim1".into(), 16)]);
    /// assert_eq!(LinearLayout::from_mlir(&l.to_mlir()?)?, l);
    /// let err = LinearLayout::from_mlir("#ttg.linear<{register = [[0, -1]]}>").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "parse error: #ttg.linear, column 30: register: expected a non-negative integer, found '-1'"
    /// );
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn from_mlir(text: &str) -> Result<LinearLayout> {
        const A: &str = <LinearLayout as Attribute>::NAME;
        AttrParser::whole(text, |p| {
            p.cursor.skip_ws();
            let start = p.cursor.pos();
            let name = p.cursor.hash_name();
            if name != A {
                p.cursor.reset(start);
                return Err(p.err(A, format!("expected '{A}', found {}", p.cursor.found())));
            }
            let dims = linear_bases(p, A, start, None)?;
            p.layout(A, start, &dims)
        })
    }

    /// Prints `#ttg.linear<{…}>` with every in-dim of the layout. The out-dims must be
    /// `dim0…dimN-1` in order and the layout surjective (the attribute infers sizes); otherwise
    /// [`LayoutError::Invalid`].
    pub fn to_mlir(&self) -> Result<String> {
        let standard = self
            .outs
            .iter()
            .enumerate()
            .all(|(i, o)| o.dim == Dim::standard(i));
        if !standard || !self.is_surjective() {
            return Err(LayoutError::Invalid {
                op: "to_mlir",
                what: "#ttg.linear needs out-dims dim0..dimN-1 in order and a surjective layout"
                    .into(),
            });
        }
        let dims: Vec<String> = self
            .bases()
            .iter()
            .map(|(d, b)| format!("{d} = {}", bases_text(b)))
            .collect();
        Ok(format!(
            "{}<{{{}}}>",
            <LinearLayout as Attribute>::NAME,
            dims.join(", ")
        ))
    }
}
