//! The TTGIR reader under random input: random programs written as TLX modules read back to
//! the same plans, and the real kernels' dumps, truncated or mutated anywhere, give an answer
//! or an error — never a panic.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::mlir::{read_module, write_module};
use alias_alloc::{AllocError, Mode, PlanOptions, Storage};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use test_support::random_tree::{big_target, gen_tree, Choices, GenOptions};
use test_support::tlx_kernels::{dump, KERNELS};

fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

fn fail(what: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(what.to_string())
}

fn dumps() -> Vec<String> {
    KERNELS.iter().map(|k| dump(k, "before")).collect()
}

/// Random reuse trees (both storages, subtiles, explicit sizes, a plain allocation beside),
/// written by `write_module` and read back: both modes give the same plan, or the same error.
#[test]
fn written_modules_read_back_to_the_same_plans() {
    let mut runner = TestRunner::new(cases(2000));
    let strategy = (vec(any::<u32>(), 0..64), any::<bool>());
    runner
        .run(&strategy, |(choices, tmem)| {
            let opts = GenOptions {
                storage: Some(if tmem { Storage::Tmem } else { Storage::Smem }),
                ..GenOptions::default()
            };
            let mut spec = gen_tree(&mut Choices::new(&choices), opts);
            // Explicit alignments have no place in MLIR.
            for leaf in &mut spec.leaves {
                leaf.align = None;
            }
            let d = spec.describe();
            let program = spec.build().map_err(|e| fail(format!("{e}\n{d}")))?.program;
            let text =
                write_module(&program, big_target()).map_err(|e| fail(format!("{e}\n{d}")))?;
            let read = read_module(&text).map_err(|e| fail(format!("{e}\n{d}\n{text}")))?;
            // The model prints the module it read, byte for byte.
            prop_assert_eq!(read.module.to_string(), text.clone());
            let back = read.program;
            for mode in [Mode::Intended, Mode::TlxCompatible] {
                let options = PlanOptions {
                    mode,
                    target: big_target(),
                };
                match (program.plan(&options), back.plan(&options)) {
                    (Ok(a), Ok(b)) => {
                        prop_assert_eq!(a, b, "{:?}: {}\n{}", mode, d, text);
                    }
                    (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                    (a, b) => {
                        return Err(fail(format!(
                            "{mode:?}: {:?} vs read back {:?}\n{d}\n{text}",
                            a.err(),
                            b.err()
                        )))
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Every prefix of a real dump cut before the module's closing `}` (anywhere, also inside a type
/// or a string) is refused with a line and column — a module cut short never plans as a
/// smaller one; no prefix panics.
#[test]
fn truncated_dumps_never_panic() {
    let dumps = dumps();
    let mut runner = TestRunner::new(cases(300));
    runner
        .run(&(0..KERNELS.len(), any::<u64>()), |(k, at)| {
            let text = &dumps[k];
            let mut cut = (at % text.len() as u64) as usize;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let end = text.rfind('}').unwrap();
            match read_module(&text[..cut]) {
                Ok(_) if cut > end => Ok(()),
                Ok(_) => Err(fail(format!(
                    "{}: cut at {cut} (before the module's end at {end}) reads",
                    KERNELS[k]
                ))),
                Err(AllocError::Syntax(e)) if e.line > 0 && e.column > 0 => Ok(()),
                Err(e) => Err(fail(format!(
                    "{}: cut at {cut}: not a placed syntax error: {e}",
                    KERNELS[k]
                ))),
            }
        })
        .unwrap();
}

/// Real dumps with bytes overwritten by the characters MLIR's grammar turns on: an answer or
/// an error at a line and column, never a panic.
#[test]
fn mutated_dumps_never_panic() {
    const TRICKY: &[char] = &[
        '<', '>', '{', '}', '(', ')', '[', ']', ',', '%', '#', '"', '=', ':', 'x', '0', '9', ' ',
        '\n', '-', '!', '\\', 'é',
    ];
    let dumps = dumps();
    let mut runner = TestRunner::new(cases(300));
    let strategy = (
        0..KERNELS.len(),
        vec((any::<u64>(), 0..TRICKY.len()), 1..12),
    );
    runner
        .run(&strategy, |(k, edits)| {
            // Edit near the aliasing ops, where the reader looks hardest.
            let text = &dumps[k];
            let hot = text
                .find("storage_alias_spec")
                .or_else(|| text.find("local_alias"))
                .unwrap_or(0);
            let mut chars: Vec<char> = text.chars().collect();
            let hot = text[..hot].chars().count();
            for (at, c) in edits {
                let i = (hot + (at % 4000) as usize).min(chars.len() - 1);
                chars[i] = TRICKY[c];
            }
            let mutated: String = chars.into_iter().collect();
            match read_module(&mutated) {
                Ok(m) => {
                    // What reads must also plan or refuse, without a panic.
                    let _ = m.program.plan(&PlanOptions::new(Mode::Intended));
                    let _ = m.program.plan(&PlanOptions::new(Mode::TlxCompatible));
                    Ok(())
                }
                Err(
                    AllocError::Mlir { line, column, .. }
                    | AllocError::Located { line, column, .. },
                ) if line > 0 && column > 0 => Ok(()),
                Err(AllocError::Syntax(e)) if e.line > 0 && e.column > 0 => Ok(()),
                Err(e) => Err(fail(format!(
                    "{}: not a placed MLIR error: {e}",
                    KERNELS[k]
                ))),
            }
        })
        .unwrap();
}

/// The real kernels' programs, written by `write_module` and read back, plan as the dumps do.
#[test]
fn real_programs_written_and_read_back_plan_the_same() {
    for (kernel, text) in KERNELS.iter().zip(dumps()) {
        let m = read_module(&text).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let target = m.target().unwrap();
        let written = write_module(&m.program, target).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let back = read_module(&written).unwrap_or_else(|e| panic!("{kernel}: {e}\n{written}"));
        for mode in [Mode::Intended, Mode::TlxCompatible] {
            let options = PlanOptions { mode, target };
            assert_eq!(
                m.program.plan(&options).unwrap(),
                back.program.plan(&options).unwrap(),
                "{kernel} {mode:?}"
            );
        }
    }
}

/// One structured edit of a real dump.
#[derive(Debug, Clone)]
enum Edit {
    DropLine(usize),
    DuplicateLine(usize),
    TruncateLine(usize, usize),
    SwapTokens(usize, usize),
    Splice(usize, usize, usize),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::DropLine),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(l, c)| Edit::TruncateLine(l, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapTokens(a, b)),
        (any::<usize>(), any::<usize>(), 1usize..64).prop_map(|(a, b, n)| Edit::Splice(a, b, n)),
    ]
}

/// `text` with `edit` applied (lines and whitespace-separated tokens of the text; splices copy
/// `n` bytes from one place to another, on char boundaries).
fn apply(text: &str, edit: &Edit) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len().max(1);
    match *edit {
        Edit::DropLine(l) => {
            let mut v = lines.clone();
            v.remove(l % n);
            v.join("\n")
        }
        Edit::DuplicateLine(l) => {
            let mut v = lines.clone();
            v.insert(l % n, lines[l % n]);
            v.join("\n")
        }
        Edit::TruncateLine(l, c) => {
            let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            let line = &v[l % n];
            let mut cut = c % (line.len() + 1);
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            v[l % n] = line[..cut].to_string();
            v.join("\n")
        }
        Edit::SwapTokens(a, b) => {
            let mut tokens: Vec<&str> = text.split(' ').collect();
            let k = tokens.len();
            tokens.swap(a % k, b % k);
            tokens.join(" ")
        }
        Edit::Splice(a, b, len) => {
            let boundary = |mut i: usize| {
                i %= text.len();
                while !text.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            let (from, to) = (boundary(a), boundary(b));
            let mut end = (from + len).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}{}{}", &text[..to], &text[from..end], &text[to..])
        }
    }
}

/// Real dumps with lines dropped, duplicated or cut, tokens swapped and bytes spliced: the
/// model reads each or refuses it at a line and column, reading and printing stays the
/// identity on what it reads, and what reads also plans and lowers in both modes or refuses —
/// never a panic, and in bounded time.
#[test]
fn structured_mutations_of_real_dumps() {
    let dumps = dumps();
    let mut runner = TestRunner::new(cases(200));
    runner
        .run(
            &(0..KERNELS.len(), vec(edit_strategy(), 1..4)),
            |(k, edits)| {
                let mut text = dumps[k].clone();
                for e in &edits {
                    text = apply(&text, e);
                }
                let started = std::time::Instant::now();
                match linear_layout::mlir::Module::parse(&text) {
                    Ok(m) => prop_assert_eq!(m.to_string(), text.clone()),
                    Err(e) => prop_assert!(e.line > 0 && e.column > 0, "{e}"),
                }
                match read_module(&text) {
                    Ok(m) => {
                        for mode in [Mode::Intended, Mode::TlxCompatible] {
                            if let Ok(plan) = m.program.plan(&PlanOptions::new(mode)) {
                                let _ = alias_alloc::mlir::lower_module(&m, &plan);
                            }
                        }
                    }
                    Err(
                        AllocError::Mlir { line, column, .. }
                        | AllocError::Located { line, column, .. },
                    ) => prop_assert!(line > 0 && column > 0),
                    Err(AllocError::Syntax(e)) => prop_assert!(e.line > 0 && e.column > 0, "{e}"),
                    Err(e) => {
                        return Err(fail(format!("{}: {edits:?}: not placed: {e}", KERNELS[k])))
                    }
                }
                prop_assert!(
                    started.elapsed() < std::time::Duration::from_secs(20),
                    "{}: {edits:?} took {:?}",
                    KERNELS[k],
                    started.elapsed()
                );
                Ok(())
            },
        )
        .unwrap();
}
