//! The golden-file habit of every test tree, as Cranelift's filetests have it: expected output
//! sits in a committed file, a mismatch panics with a unified diff and the command that
//! regenerates it, and `BLESS=1` rewrites the file instead of comparing (any other value of
//! `BLESS` compares as usual). Review the rewritten files in the commit.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("golden-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("greeting.txt");
//! std::fs::write(&path, "hello\nworld\n").unwrap();
//! test_support::golden::check(&path, "hello\nworld\n");
//! let err = std::panic::catch_unwind(|| test_support::golden::check(&path, "hello\nthere\n"));
//! assert!(err.is_err());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::path::Path;

use similar::TextDiff;

/// Whether this run rewrites goldens: `BLESS=1`.
pub fn blessing() -> bool {
    std::env::var("BLESS").is_ok_and(|v| v == "1")
}

/// Compares `actual` with the committed file at `path`; under `BLESS=1` writes `actual` there
/// (creating its folder) instead. A missing file or a difference panics with a unified diff.
pub fn check(path: impl AsRef<Path>, actual: &str) {
    let path = path.as_ref();
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        }
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\n{}",
            path.display(),
            hint("to write it", &path.display().to_string())
        )
    });
    assert_same(&path.display().to_string(), &committed, actual);
}

/// Panics with a unified diff (committed → actual) when `committed` and `actual` differ; `what`
/// names the golden (a path, or a section of one).
pub fn assert_same(what: &str, committed: &str, actual: &str) {
    if committed == actual {
        return;
    }
    let diff = TextDiff::from_lines(committed, actual)
        .unified_diff()
        .context_radius(3)
        .header("committed", "actual")
        .to_string();
    panic!(
        "{what} is out of date:\n{diff}\n{}",
        hint("if the change is intended", what)
    );
}

/// `run the test again with BLESS=1 …` naming the package and test binary it came from.
fn hint(why: &str, what: &str) -> String {
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_else(|_| "<package>".into());
    // The test binary is `target/…/deps/<target>-<hash>`.
    let target = std::env::args()
        .next()
        .and_then(|a| {
            let stem = Path::new(&a).file_stem()?.to_str()?.to_owned();
            Some(
                stem.rsplit_once('-')
                    .map_or(stem.clone(), |(t, _)| t.to_owned()),
            )
        })
        .unwrap_or_else(|| "<test>".into());
    format!(
        "{why}, run `BLESS=1 cargo test -p {package} --test {target}` and review the diff of {what}"
    )
}

/// Compares the text of the committed file at `path` between `opening` and the next
/// `closing` after it with `actual`; under `BLESS=1` rewrites that section instead. For
/// generated sections of documentation (a command's output after its command, a table between
/// markers). A missing marker panics.
pub fn check_section(path: impl AsRef<Path>, opening: &str, closing: &str, actual: &str) {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = text
        .find(opening)
        .map(|i| i + opening.len())
        .unwrap_or_else(|| panic!("{}: no {opening:?}", path.display()));
    let end = text
        .get(start..)
        .and_then(|rest| rest.find(closing))
        .map(|i| start + i)
        .unwrap_or_else(|| panic!("{}: no {closing:?} after {opening:?}", path.display()));
    let what = format!(
        "{} (after {:?})",
        path.display(),
        opening.lines().next().unwrap_or("")
    );
    if blessing() {
        let updated = format!("{}{actual}{}", &text[..start], &text[end..]);
        std::fs::write(path, updated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    } else {
        assert_same(&what, &text[start..end], actual);
    }
}
