//! The docs run as written: every `linalias` command in a ```` ```sh ```` block of `README.md`
//! and `docs/*.md` runs against the binary under test, from the repository root.
//!
//! - A command is a line (joined over trailing `\`) that starts with `linalias ` or
//!   `cargo run --release -- `; `&&` chains a `ptxas` on what it wrote (run where a ptxas is
//!   found, `REQUIRE_PTXAS=1` makes it required). Other lines — `cargo bench`, the Python
//!   generators that need Triton or a GPU, `pip` — are measurement and regeneration recipes,
//!   not run here (`docs/testing.md`).
//! - An argument with `…` is a placeholder and fails the test: a command shown is one that runs.
//! - What a command writes (`--svg F`, `--out F`, `> F`) goes to a temporary folder; where `F` is
//!   a committed file (a picture under `docs/pictures/`), what was written must equal it.
//! - When the block is followed by a plain ```` ``` ```` block, that block is what the block's
//!   commands print on stdout, compared byte for byte (`BLESS=1` rewrites it) — except that a
//!   line `…` (alone, indented or not) stands for any number of lines, for an excerpt (which
//!   `BLESS` leaves alone); a trailing comment `# prints: TEXT` says the output contains TEXT.
//! - Every command exits 0, except those [`EXIT_CODES`] names, whose code is that one (the
//!   README's table: `check` exits 1 on a hazard).
#![allow(clippy::restriction)] // test code: a failed check panics

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Commands shown with an exit code other than 0: (a part of the command line, the code).
const EXIT_CODES: &[(&str, i32)] = &[
    (
        "check alias-alloc/tests/data/tlx_kernels/fa_ws_pipelined_fp8/",
        1,
    ),
    (
        "check alias-alloc/tests/data/tlx_history/fa_bwd_pr1992_before/",
        1,
    ),
    (
        "check alias-alloc/tests/data/tlx_history/fa_fwd_pr739_before/",
        1,
    ),
];

/// One ```` ```sh ```` block: where it is, its lines, and the output block after it.
struct Block {
    file: PathBuf,
    line: usize,
    lines: Vec<String>,
    /// Byte range of the output block's text in the file.
    output: Option<(usize, usize)>,
}

/// The ```` ```sh ```` blocks of `file`.
fn blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = Vec::new();
    let mut offset = 0;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let starts: Vec<usize> = lines
        .iter()
        .scan(0, |at, l| {
            let s = *at;
            *at += l.len();
            Some(s)
        })
        .collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```sh" {
            i += 1;
            continue;
        }
        let open = i;
        let mut j = i + 1;
        while j < lines.len() && !lines[j].starts_with("```") {
            j += 1;
        }
        let body: Vec<String> = lines[open + 1..j]
            .iter()
            .map(|l| l.trim_end_matches('\n').to_owned())
            .collect();
        // The output block: the next non-blank line opens a plain fence.
        let mut k = j + 1;
        while k < lines.len() && lines[k].trim().is_empty() {
            k += 1;
        }
        let output = (k < lines.len() && lines[k].trim_end() == "```").then(|| {
            let mut e = k + 1;
            while e < lines.len() && lines[e].trim_end() != "```" {
                e += 1;
            }
            (starts[k + 1], starts.get(e).copied().unwrap_or(text.len()))
        });
        out.push(Block {
            file: file.to_path_buf(),
            line: open + 1,
            lines: body,
            output,
        });
        offset += 1;
        i = j + 1;
    }
    let _ = offset;
    out
}

/// The line without a trailing `# comment` (a `#` after a blank, outside quotes), and the
/// comment.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let (mut single, mut double, mut prev_blank) = (false, false, true);
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev_blank => {
                return (line[..i].trim_end(), Some(line[i..].trim()));
            }
            _ => {}
        }
        prev_blank = c.is_whitespace();
    }
    (line.trim_end(), None)
}

/// The block's command lines (continuations joined), each with its trailing comment.
fn command_lines(block: &Block) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut comment = None;
    for raw in &block.lines {
        let (code, c) = split_comment(raw);
        if c.is_some() {
            comment = c.map(str::to_owned);
        }
        match code.strip_suffix('\\') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(code);
                let line = current.trim().to_owned();
                if !line.is_empty() {
                    out.push((line, comment.take()));
                } else if let (Some(c), Some(last)) = (comment.take(), out.last_mut()) {
                    // A comment on its own line after a command speaks of that command.
                    last.1.get_or_insert(c);
                }
                current.clear();
            }
        }
    }
    out
}

/// The `linalias` arguments of a command line, or `None` for another program.
fn linalias_args(words: &[String]) -> Option<Vec<String>> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["linalias", rest @ ..] => Some(rest.iter().map(|s| s.to_string()).collect()),
        ["cargo", "run", "--release", "--", rest @ ..] => {
            Some(rest.iter().map(|s| s.to_string()).collect())
        }
        _ => None,
    }
}

struct Run {
    stdout: String,
    code: i32,
    /// (the path the doc names, where it was written).
    written: Vec<(String, PathBuf)>,
}

/// Runs `linalias args…` from the repository root, output files moved to `tmp`.
fn run_linalias(args: &[String], redirect: Option<&str>, tmp: &Path, where_: &str) -> Run {
    let mut argv = Vec::new();
    let mut written = Vec::new();
    let mut next_is_output = false;
    for a in args {
        assert!(
            !a.contains('…'),
            "{where_}: the argument {a:?} is a placeholder; show a command that runs"
        );
        if next_is_output {
            let to = tmp.join(format!("{}-{}", written.len(), file_name(a)));
            written.push((a.clone(), to.clone()));
            argv.push(to.to_string_lossy().into_owned());
            next_is_output = false;
            continue;
        }
        next_is_output = matches!(a.as_str(), "--svg" | "--out");
        argv.push(a.clone());
    }
    let out = Command::new(env!("CARGO_BIN_EXE_linalias"))
        .args(&argv)
        .current_dir(ROOT)
        .output()
        .unwrap();
    let mut stdout = String::from_utf8(out.stdout).unwrap();
    for (shown, to) in &written {
        stdout = stdout.replace(&*to.to_string_lossy(), shown);
    }
    if let Some(path) = redirect {
        let to = tmp.join(format!("{}-{}", written.len(), file_name(path)));
        std::fs::write(&to, &stdout).unwrap();
        written.push((path.to_owned(), to));
        stdout.clear();
    }
    let code = out.status.code().unwrap_or(-1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if code != 0 {
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{where_}: exit {code} without a one-line error: {stderr}"
        );
    }
    Run {
        stdout,
        code,
        written,
    }
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into())
}

/// Runs `ptxas ARGS` with the files the chain wrote in place of their names.
fn run_ptxas(words: &[String], written: &[(String, PathBuf)], where_: &str) {
    let Some(ptxas) = codegen::ptxas::require_ptxas().unwrap() else {
        return;
    };
    let args: Vec<String> = words[1..]
        .iter()
        .map(|w| {
            written
                .iter()
                .find(|(shown, _)| shown == w)
                .map_or(w.clone(), |(_, to)| to.to_string_lossy().into_owned())
        })
        .chain(["-o".into(), "/dev/null".into()])
        .collect();
    let out = Command::new(ptxas).args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{where_}: ptxas rejected it: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether `got` is `want` with each `…` line standing for any number of lines.
fn excerpt_matches(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w.trim() == "…" => {
            (0..=got.len()).any(|skip| excerpt_matches(rest, &got[skip..]))
        }
        Some((w, rest)) => got
            .split_first()
            .is_some_and(|(g, more)| g == w && excerpt_matches(rest, more)),
    }
}

fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from(ROOT).join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(PathBuf::from(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_command_in_the_docs_runs_as_written() {
    let tmp = std::env::temp_dir().join(format!("linalias-docs-run-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (mut ran, mut compared) = (0, 0);
    // Output blocks to rewrite under BLESS, per file, last first.
    let mut blessed: Vec<(PathBuf, usize, usize, String)> = Vec::new();
    // Excerpts that no longer match (BLESS cannot rewrite an excerpt): reported at the end.
    let mut excerpts: Vec<String> = Vec::new();
    for file in doc_files() {
        for block in blocks(&file) {
            let rel = file.strip_prefix(ROOT).unwrap().display().to_string();
            let mut printed = String::new();
            let mut ours = 0;
            for (line, comment) in command_lines(&block) {
                let where_ = format!("{rel}:{} `{line}`", block.line);
                let words =
                    shlex::split(&line).unwrap_or_else(|| panic!("{where_}: unbalanced quotes"));
                let mut written: Vec<(String, PathBuf)> = Vec::new();
                let mut stdout = String::new();
                for part in words.split(|w| w == "&&") {
                    let (cmd, redirect) = match part {
                        [head @ .., gt, path] if gt == ">" => (head, Some(path.as_str())),
                        _ => (part, None),
                    };
                    if let Some(args) = linalias_args(cmd) {
                        let r = run_linalias(&args, redirect, &tmp, &where_);
                        let want = EXIT_CODES
                            .iter()
                            .find(|(part, _)| line.contains(part))
                            .map_or(0, |&(_, c)| c);
                        assert_eq!(r.code, want, "{where_}: exit code");
                        stdout.push_str(&r.stdout);
                        written.extend(r.written);
                        ours += 1;
                        ran += 1;
                    } else if cmd.first().is_some_and(|w| w == "ptxas") && ours > 0 {
                        run_ptxas(cmd, &written, &where_);
                    }
                }
                if let Some(text) = comment
                    .as_deref()
                    .and_then(|c| c.strip_prefix("# prints: "))
                {
                    assert!(
                        stdout.contains(text),
                        "{where_}: does not print {text:?}:\n{stdout}"
                    );
                }
                for (shown, to) in &written {
                    let content = std::fs::read_to_string(to)
                        .unwrap_or_else(|e| panic!("{where_}: {shown} was not written: {e}"));
                    assert!(!content.is_empty(), "{where_}: {shown} is empty");
                    let committed = PathBuf::from(ROOT).join(shown);
                    if committed.is_file() {
                        test_support::golden::check(&committed, &content);
                    }
                }
                printed.push_str(&stdout);
            }
            if let (Some((start, end)), true) = (block.output, ours > 0) {
                compared += 1;
                let text = std::fs::read_to_string(&block.file).unwrap();
                let shown = &text[start..end];
                if shown.lines().any(|l| l.trim() == "…") {
                    let want: Vec<&str> = shown.lines().collect();
                    let got: Vec<&str> = printed.lines().collect();
                    if !excerpt_matches(&want, &got) {
                        excerpts.push(format!(
                            "{rel}:{}: the excerpt shown is not what the command prints:\n{printed}",
                            block.line
                        ));
                    }
                } else if test_support::golden::blessing() {
                    blessed.push((block.file.clone(), start, end, printed));
                } else {
                    test_support::golden::assert_same(
                        &format!("{rel}:{} (the output shown after the command)", block.line),
                        &text[start..end],
                        &printed,
                    );
                }
            }
        }
    }
    blessed.sort_by(|a, b| (&b.0, b.1).cmp(&(&a.0, a.1)));
    for (file, start, end, printed) in blessed {
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(
            &file,
            format!("{}{printed}{}", &text[..start], &text[end..]),
        )
        .unwrap();
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(excerpts.is_empty(), "{}", excerpts.join("\n"));
    println!("{ran} commands run, {compared} output blocks compared");
    assert!(
        ran >= 10 && compared >= 5,
        "{ran} commands, {compared} outputs"
    );
}
