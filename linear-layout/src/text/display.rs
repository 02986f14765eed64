//! `Display`: exactly Triton's `LinearLayout::toString()` (and Python `str()`).

use std::fmt;

use crate::layout::LinearLayout;

impl fmt::Display for LinearLayout {
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "i", "o")?.product(&LinearLayout::zeros_1d(2, "i", "o", 1)?)?;
    /// assert_eq!(l.to_string(), "\n - i=1 -> (1)\n   i=2 -> (2)\n   i=4 -> (0)\nwhere out dims are: [o (size 4)]");
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outs: Vec<String> = self
            .outs
            .iter()
            .map(|o| format!("{} (size {})", o.dim, o.size()))
            .collect();
        let outs = format!("[{}]", outs.join(", "));
        if self.ins.is_empty() {
            return if self.outs.is_empty() {
                write!(f, "\n(empty layout)")
            } else {
                write!(f, "\n(empty layout with out-dims {outs})")
            };
        }
        writeln!(f)?;
        for (dim, bases) in self.bases() {
            if bases.is_empty() {
                writeln!(f, " - {dim} is a size 1 dimension")?;
                continue;
            }
            let lines: Vec<String> = bases
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let comps: Vec<String> = b.iter().map(u64::to_string).collect();
                    format!("{dim}={} -> ({})", 1u64 << i, comps.join(", "))
                })
                .collect();
            writeln!(f, " - {}", lines.join("\n   "))?;
        }
        write!(f, "where out dims are: {outs}")
    }
}
