//! End-to-end tests of `linalias pack`: the public DSA cases (copied under
//! `packing/tests/data/dsa/`) and the generated GPU suite through the real binary,
//! with every packer; capacity from the file name or `--capacity`; JSON, SVG and CSV outputs;
//! the diagnosis when the buffers do not fit; errors.

#![allow(clippy::restriction)] // test code: a failed check panics

use std::path::PathBuf;

use test_support::cli::{fails, linalias, ok, reports};
use test_support::dsa_cases::DSA;

use packing::csv::read_csv;
use serde_json::Value;

fn dsa(name: &str) -> String {
    format!(
        "{}/packing/tests/data/dsa/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn generated(name: &str) -> String {
    format!(
        "{}/packing/tests/data/generated/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A file under the temp dir, unique to this test process, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("linalias-pack-{}-{name}", std::process::id())))
    }

    fn arg(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }

    fn read(&self) -> String {
        std::fs::read_to_string(&self.0).expect("the command wrote the file")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The value after `key: ` on the line starting with it.
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("no '{key}:' line in:\n{out}"))
}

/// The offset column of buffer `id`'s row.
fn offset_of(out: &str, id: &str) -> u64 {
    let row = out
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id) && l.starts_with("  "))
        .unwrap_or_else(|| panic!("no row for {id} in:\n{out}"));
    row.split_whitespace()
        .last()
        .and_then(|o| o.parse().ok())
        .unwrap_or_else(|| panic!("no offset in {row:?}"))
}

#[test]
fn exact_packs_every_dsa_case_at_lb_and_proves_it() {
    for (file, lb, _, _) in DSA {
        let out = ok(&["pack", &dsa(file)]);
        assert_eq!(
            field(&out, "buffers").split(", ").nth(1),
            Some(format!("capacity {lb} (from the file name)").as_str()),
            "{file}"
        );
        assert!(field(&out, "algorithm").starts_with("exact"), "{out}");
        assert_eq!(field(&out, "peak"), lb.to_string(), "{file}");
        assert!(
            field(&out, "lower bound").starts_with(&format!("{lb} (")),
            "{out}"
        );
        assert_eq!(field(&out, "peak ÷ LB"), "1.0000", "{file}");
        assert!(field(&out, "time").ends_with(" nodes)"), "{out}");
        assert!(out.contains("\nproved optimal\n"), "{out}");
        assert!(out.ends_with("checker: ok\n"), "{out}");
    }
}

#[test]
fn greedy_fits_where_it_reaches_lb_and_is_refused_elsewhere() {
    for (file, lb, ff, bf) in DSA {
        for (algo, peak) in [("first-fit", ff), ("best-fit", bf)] {
            let args = ["pack", &dsa(file), "--algo", algo];
            if peak == lb {
                let out = ok(&args);
                assert_eq!(field(&out, "peak"), lb.to_string());
                assert!(out.contains("\nproved optimal\n"), "{out}");
                assert!(!out.contains("nodes"), "{out}");
            } else {
                let (out, err) = reports(&args, 1);
                let headline = format!(
                    "does not fit in capacity {lb}: the {algo} placement needs {peak} (LB {lb})"
                );
                assert!(err.ends_with(&headline), "{err}");
                // The report, then the diagnosis over lines, the advice last (#29).
                assert!(out.contains("\nchecker: ok\n"), "{out}");
                assert!(
                    out.ends_with(&format!(
                        "\n{headline}\n  LB fits, so a placement may exist: try --algo exact\n\
                         advice: a placement may exist: try --algo exact (with --budget-ms, now 1000)\n"
                    )),
                    "{out}"
                );
            }
        }
    }
}

#[test]
fn capacity_flag_overrides_the_file_name() {
    let out = ok(&[
        "pack",
        &dsa("a.6.csv"),
        "--algo",
        "best-fit",
        "--capacity",
        "8",
    ]);
    assert_eq!(field(&out, "buffers"), "5, capacity 8 (from --capacity)");
    assert_eq!(field(&out, "peak"), "8");
    assert_eq!(field(&out, "peak ÷ LB"), "1.3333");
    assert!(out.contains("\nnot proved optimal\n"), "{out}");
    // The reference placement of best fit on a.6: sizes 3, 3, 2, 2, 1 largest first.
    let offsets: Vec<u64> = ["0", "1", "2", "3", "4"]
        .iter()
        .map(|id| offset_of(&out, id))
        .collect();
    assert_eq!(offsets, vec![3, 5, 0, 0, 7]);
}

#[test]
fn live_peak_over_capacity_names_the_time_and_the_live_buffers() {
    let (out, err) = reports(
        &[
            "pack",
            &dsa("a.6.csv"),
            "--algo",
            "first-fit",
            "--capacity",
            "5",
        ],
        1,
    );
    assert!(
        err.ends_with(
            "a.6.csv: does not fit in capacity 5: the first-fit placement needs 9 (LB 6)"
        ),
        "{err}"
    );
    assert!(
        out.ends_with(
            "\ndoes not fit in capacity 5: the first-fit placement needs 9 (LB 6)\n  at time 1 the \
             live buffers need 6 together, 1 over the capacity: 0, 2, 4\nadvice: no placement fits \
             5: shrink or shorten the buffers named above, or raise --capacity\n"
        ),
        "{out}"
    );
    // The exact solver fails too, and says why in its own words: the same live set, one
    // buffer a line; the JSON keeps the report with the verdict.
    let (out, err) = reports(&["pack", &dsa("a.6.csv"), "--capacity", "5"], 1);
    assert!(err.contains("a.6.csv: does not fit in capacity 5"), "{err}");
    for id in ["'0'", "'2'", "'4'"] {
        assert!(out.contains(&format!("\n    {id} (")), "{out}");
    }
    let (json, _) = reports(&["pack", &dsa("a.6.csv"), "--capacity", "5", "--json"], 1);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["fits"], false);
    assert_eq!(json["buffers"].as_array().map(Vec::len), Some(5));
    assert!(
        json["diagnosis"].as_str().unwrap().contains("live at 1:"),
        "{json}"
    );
}

#[test]
fn stdin_has_no_capacity_and_minimises_the_peak() {
    // pypto's chained matmul: a 64 KB operand, then two 32 KB buffers reusing it.
    let csv = "id,lower,upper,size\nheld_a,0,4,65536\na0,4,8,32768\na1,4,8,32768\n";
    for algo in ["first-fit", "best-fit", "exact"] {
        let out = linalias(&["pack", "-", "--algo", algo], Some(csv));
        assert!(
            out.status.success(),
            "{algo}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = String::from_utf8(out.stdout).expect("UTF-8");
        assert_eq!(
            field(&out, "buffers"),
            "3, no capacity (minimising the peak)"
        );
        assert_eq!(field(&out, "peak"), "65536", "{algo}");
        assert_eq!(
            field(&out, "lower bound"),
            "65536 (live at time 0: buffers held_a)"
        );
        assert_eq!(
            [
                offset_of(&out, "held_a"),
                offset_of(&out, "a0"),
                offset_of(&out, "a1")
            ],
            [0, 0, 32768],
            "{algo}"
        );
        assert!(out.contains("\nproved optimal\n"), "{out}");
    }
}

#[test]
fn json_carries_the_same_numbers() {
    let out = ok(&["pack", &dsa("e.12.csv"), "--algo", "best-fit", "--json"]);
    let v: Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["capacity"], 12);
    assert_eq!(v["capacity_from"], "the file name");
    assert_eq!(v["algorithm"], "best-fit");
    assert_eq!(v["peak"], 12);
    assert_eq!(v["lower_bound"], 12);
    assert_eq!(v["ratio"], 1.0);
    assert_eq!(v["proven_optimal"], true);
    assert_eq!(v["checker"]["ok"], true);
    let buffers = v["buffers"].as_array().expect("an array of buffers");
    assert_eq!(buffers.len(), 5);
    let offsets: Vec<u64> = buffers
        .iter()
        .map(|b| b["offset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets, vec![0, 4, 5, 9, 0]);
    assert!(v["time_ms"].as_f64().is_some_and(|t| t >= 0.0));
    let exact: Value = serde_json::from_str(&ok(&[
        "pack",
        &dsa("c.8.csv"),
        "--json",
        "--budget-ms",
        "5000",
    ]))
    .expect("one JSON object");
    assert_eq!(
        (exact["peak"].as_u64(), exact["budget_ms"].as_u64()),
        (Some(8), Some(5000))
    );
    assert!(exact["nodes"].as_u64().is_some());
}

/// The JSON report is streamed (#30: memory independent of its size), its buffers written into
/// the object serde_json prints: a file name and ids that spell the key it is split at, or
/// need escaping, leave it one valid object with every buffer. A reader that closes the pipe
/// early is not an error, and a no-fit report keeps its exit code.
#[test]
fn the_streamed_json_is_one_object_whatever_the_names() {
    let file = TempFile::new("\"buffers\":null.csv");
    std::fs::write(
        &file.0,
        "id,lower,upper,size\n\"buffers\":null,0,2,4\nq\\\"x,1,3,4\n",
    )
    .unwrap();
    let v: Value = serde_json::from_str(&ok(&["pack", &file.arg(), "--json"])).unwrap();
    assert_eq!(v["file"], file.arg());
    let ids: Vec<&str> = v["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["\"buffers\":null", "q\\\"x"]);
    // 3,000 rows into a pipe closed after the first line: exit 0; over capacity: still 1.
    let many = TempFile::new("many.csv");
    let rows: String = (0..3000).map(|i| format!("b{i},0,1,8\n")).collect();
    std::fs::write(&many.0, format!("id,lower,upper,size\n{rows}")).unwrap();
    for (capacity, code) in [("24000", 0), ("8", 1)] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_linalias"))
            .args([
                "pack",
                &many.arg(),
                "--algo",
                "first-fit",
                "--capacity",
                capacity,
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut first = [0u8; 5];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        assert_eq!(&first, b"pack:");
        drop(child.stdout.take());
        assert_eq!(
            child.wait().unwrap().code(),
            Some(code),
            "capacity {capacity}"
        );
    }
}

#[test]
fn svg_and_csv_outputs_round_trip() {
    let svg = TempFile::new("g7.svg");
    let csv = TempFile::new("g7.7.csv");
    let out = ok(&[
        "pack",
        &dsa("g.7.csv"),
        "--svg",
        &svg.arg(),
        "--out",
        &csv.arg(),
    ]);
    assert!(out.contains(&format!("wrote {}\n", svg.arg())), "{out}");
    assert!(out.ends_with(&format!("wrote {}\n", csv.arg())), "{out}");
    let picture = svg.read();
    assert!(picture.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(picture.matches("<rect").count(), 6);
    assert!(picture.contains("6 buffers: peak 7, LB 7 (×1.0000), capacity 7"));
    let placed = read_csv(&csv.read(), Some(7)).expect("the CSV reads back");
    assert!(placed.buffers().iter().all(|b| b.offset.is_some()));
    // Packing the placed file keeps every (now fixed) offset.
    let again = ok(&["pack", &csv.arg(), "--algo", "first-fit"]);
    assert_eq!(field(&again, "peak"), "7");
    for b in placed.buffers() {
        assert_eq!(Some(offset_of(&again, &b.id)), b.offset);
    }
}

#[test]
fn outputs_are_written_even_when_the_buffers_do_not_fit() {
    let svg = TempFile::new("a6-over.svg");
    let (_, err) = reports(
        &[
            "pack",
            &dsa("a.6.csv"),
            "--algo",
            "first-fit",
            "--svg",
            &svg.arg(),
        ],
        1,
    );
    assert!(err.contains("needs 9"), "{err}");
    let picture = svg.read();
    assert!(picture.contains("capacity 6"));
    assert!(
        picture.contains(r##"stroke="#c00" stroke-width="1.5""##),
        "over-capacity outline"
    );
}

#[test]
fn generated_smem_instance_first_fit_overflows_best_fit_fits_exact_proves() {
    let file = generated("smem_mixed_s1.232448.csv");
    let (_, err) = reports(&["pack", &file, "--algo", "first-fit"], 1);
    assert!(
        err.contains("the first-fit placement needs 245760 (LB 213120)"),
        "{err}"
    );
    let out = ok(&["pack", &file, "--algo", "best-fit"]);
    assert_eq!(field(&out, "peak"), "229504");
    assert!(out.contains("\nnot proved optimal\n"), "{out}");
    let out = ok(&["pack", &file, "--budget-ms", "60000"]);
    assert_eq!(field(&out, "peak"), "213120");
    assert!(out.contains("\nproved optimal\n"), "{out}");
}

/// Best fit is quadratic when every buffer is live together (#30: 100,000 took 25 s and
/// ignored the budget): it stops at `--budget-ms` and the placement is first fit's, said in the
/// report and the JSON.
#[test]
fn best_fit_stops_at_the_budget_and_says_so() {
    let mut csv = String::from("id,lower,upper,size\n");
    for i in 0..20_000 {
        csv.push_str(&format!("b{i},0,10,64\n"));
    }
    let out = linalias(
        &["pack", "-", "--algo", "best-fit", "--budget-ms", "1"],
        Some(&csv),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("algorithm: best-fit stopped at the 1 ms budget after "),
        "{text}"
    );
    assert!(
        text.contains("the placement is first-fit's; raise --budget-ms"),
        "{text}"
    );
    assert_eq!(field(&text, "peak"), "1280000");
    let out = linalias(
        &[
            "pack",
            "-",
            "--algo",
            "best-fit",
            "--budget-ms",
            "1",
            "--json",
        ],
        Some(&csv),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["limit"]["reason"], "budget");
    assert_eq!(json["limit"]["placement"], "first-fit");
    // Within its budget it finishes: no limit.
    let out = ok(&[
        "pack",
        &dsa("a.6.csv"),
        "--algo",
        "best-fit",
        "--capacity",
        "8",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(json["limit"].is_null(), "{json}");
}

/// `--max-nodes` ends the exact search after a count of nodes instead of a time: the same
/// placement on every run, and the JSON says which limit ended it (#30: near the budget edge
/// the verdict flipped between runs).
#[test]
fn max_nodes_gives_the_same_answer_every_run() {
    let file = format!(
        "{}/packing/tests/data/generated/perfect_s10.1048576.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = || {
        let out = ok(&[
            "pack",
            &file,
            "--capacity",
            "2000000",
            "--max-nodes",
            "5000",
            "--json",
        ]);
        let mut json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            json["limit"],
            serde_json::json!({"reason": "nodes", "nodes": 5000})
        );
        assert_eq!(json["max_nodes"], 5000);
        assert!(json["budget_ms"].is_null());
        json["time_ms"] = serde_json::Value::Null;
        json
    };
    assert_eq!(run(), run());
    let err = fails(&["pack", &file, "--max-nodes", "5", "--budget-ms", "5"], 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// A trace too large for the search (idealloc's S_1: 43 million pairs of buffers live
/// together) is packed by the greedy rules, and the report says the size ended it, not the
/// budget: a larger `--budget-ms` changes nothing.
#[test]
fn a_trace_too_large_for_the_search_says_so() {
    let file = format!(
        "{}/packing/tests/data/idealloc/S_1.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: Value =
        serde_json::from_str(&ok(&["pack", &file, "--budget-ms", "60000", "--json"])).unwrap();
    assert_eq!(
        json["limit"],
        serde_json::json!({"reason": "size", "conflict_pairs": 43_218_991u64, "max_search_pairs": 16_777_216u64, "nodes": 0})
    );
    let text = ok(&["pack", &file, "--budget-ms", "60000"]);
    assert!(
        text.contains("not proved optimal: 43218991 pairs of buffers live together, past the search's 16777216"),
        "{text}"
    );
}

/// A repeated id names both CSV lines, counted as the file counts them (#29: "rows 0 and 1",
/// 0-based, beside 1-based lines).
#[test]
fn a_repeated_id_names_both_lines() {
    let out = linalias(
        &["pack", "-"],
        Some("id,lower,upper,size\na,0,10,100\nb,0,10,100\na,0,10,100\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: FILE: -: line 4: buffer id 'a' is used twice (first on line 2)\n"
    );
}

#[test]
fn bad_input_is_refused_with_exit_code_2() {
    let err = fails(&["pack", "/nonexistent/x.6.csv"], 2);
    assert!(
        err.starts_with("error: FILE: cannot read /nonexistent/x.6.csv"),
        "{err}"
    );
    let out = linalias(
        &["pack", "-"],
        Some("id,lower,upper,size\na,0,1,4\nb,2,x,4\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        err.contains("line 3: field 'upper' is not a non-negative integer: 'x'"),
        "{err}"
    );
    let out = linalias(&["pack", "-"], Some("id,lower,upper,size\na,4,4,4\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("buffer 'a': empty lifetime [4, 4)"));
    let err = fails(&["pack", &dsa("a.6.csv"), "--algo", "worst-fit"], 2);
    assert!(err.contains("worst-fit"), "{err}");
    let err = fails(&["pack", &dsa("a.6.csv"), "--capacity=-3"], 2);
    assert!(err.contains("--capacity"), "{err}");
}
