//! Parses a module file N times (for profiling the module model): `parse_module FILE [N]`.
#![allow(clippy::restriction)]

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a module file");
    let n: usize = args.next().map_or(20, |s| s.parse().expect("a count"));
    let text = std::fs::read_to_string(&path).expect("readable");
    let start = std::time::Instant::now();
    let mut ops = 0;
    for _ in 0..n {
        let m = linear_layout::mlir::Module::parse(&text).expect("parses");
        ops += m.walk().len();
    }
    println!(
        "{} ops, {:?} per parse",
        ops / n,
        start.elapsed() / n as u32
    );
}
