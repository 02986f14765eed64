//! Parses a module file N times (for profiling the module model) and checks that printing it
//! gives the text back: `parse_module FILE [N]`.
#![allow(clippy::restriction)]

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a module file");
    let n: usize = args.next().map_or(20, |s| s.parse().expect("a count"));
    let text = std::fs::read_to_string(&path).expect("readable");
    let start = std::time::Instant::now();
    let mut ops = 0;
    let mut printed = String::new();
    for _ in 0..n {
        let m = match linear_layout::mlir::Module::parse(&text) {
            Ok(m) => m,
            Err(e) => {
                println!("refused: {e}");
                return;
            }
        };
        ops += m.walk().len();
        printed = m.to_string();
    }
    println!(
        "{} ops, {:?} per parse",
        ops / n,
        start.elapsed() / n as u32
    );
    if let Some(at) = printed.bytes().zip(text.bytes()).position(|(a, b)| a != b) {
        let from = at.saturating_sub(80);
        println!(
            "printed text differs at byte {at}:\n read    {:?}\n printed {:?}",
            &text[from..(at + 80).min(text.len())],
            &printed[from..(at + 80).min(printed.len())]
        );
    } else if printed.len() != text.len() {
        println!("printed {} bytes of {}", printed.len(), text.len());
    }
}
