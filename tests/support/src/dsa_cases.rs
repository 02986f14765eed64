//! The public DSA cases of `packing/tests/data/dsa/` with their known peaks, shared by the
//! library's greedy tests and the `linalias pack` CLI tests.

/// (file, LB = capacity, first-fit-by-lifetime peak, best-fit-by-size peak)
pub const DSA: [(&str, u64, u64, u64); 8] = [
    ("input.12.csv", 12, 12, 12),
    ("a.6.csv", 6, 9, 8),
    ("b.6.csv", 6, 9, 8),
    ("c.8.csv", 8, 12, 11),
    ("d.9.csv", 9, 13, 12),
    ("e.12.csv", 12, 16, 12),
    ("f.14.csv", 14, 18, 18),
    ("g.7.csv", 7, 9, 9),
];
