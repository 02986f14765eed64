//! Runs the real `linalias` binary for the CLI tests: stdout, stderr and exit codes as a user
//! sees them. The binary is the one Cargo built for the running integration test
//! (`CARGO_BIN_EXE_linalias`, which `cargo test` and nextest set at run time).

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The path of the `linalias` binary under test.
pub fn binary() -> String {
    std::env::var("CARGO_BIN_EXE_linalias").unwrap_or_else(|_| {
        panic!("CARGO_BIN_EXE_linalias is not set: run the CLI tests with `cargo test`")
    })
}

/// Runs `linalias args…`, feeding `stdin` when given.
pub fn linalias(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the linalias binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    if let Some(text) = stdin {
        pipe.write_all(text.as_bytes())
            .expect("stdin accepts the input");
    }
    drop(pipe);
    child.wait_with_output().expect("linalias finishes")
}

/// Runs a command that must succeed and returns its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = linalias(args, None);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Runs a command that must fail with `code` and returns its single stderr line.
pub fn fails(args: &[&str], code: i32) -> String {
    let out = exits(args, code);
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout on failure");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr:?}");
    assert!(
        stderr.ends_with('\n') && stderr.lines().count() == 1,
        "{args:?}: not one line: {stderr:?}"
    );
    stderr.trim_end().to_owned()
}

/// Runs a command that must fail with `code` after printing its report (a plan or packing
/// that does not fit, a check with findings): returns stdout and the single stderr line.
pub fn reports(args: &[&str], code: i32) -> (String, String) {
    let out = exits(args, code);
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    assert!(!stdout.is_empty(), "{args:?}: no report on stdout");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    assert!(
        stderr.starts_with("error: ") && stderr.ends_with('\n') && stderr.lines().count() == 1,
        "{args:?}: not one error line: {stderr:?}"
    );
    (stdout, stderr.trim_end().to_owned())
}

/// Runs `linalias args…`, which must exit with `code`.
fn exits(args: &[&str], code: i32) -> Output {
    let out = linalias(args, None);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
