//! `linalias ptx-cost` through the real binary: its counters equal what the H100 recorded for
//! the same kernel, the command shown in `docs/gpu-counters.md` prints what the page says
//! (`BLESS=1` rewrites it), and bad input exits 2 naming the culprit.

#![allow(clippy::restriction)] // test code: a failed check panics

use serde_json::Value;
use test_support::cli::{fails, ok};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const EXAMPLE: &str = "examples/blocked_to_nvmma128_store.ptx";

#[test]
fn counters_equal_the_recorded_launch() {
    let got: Value = serde_json::from_str(&ok(&["ptx-cost", EXAMPLE, "--json"])).unwrap();
    let file = format!("{ROOT}/codegen/tests/data/gpu/h100-shared-memory-counters.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let kernel = &doc["kernels"][0];
    assert_eq!(
        kernel["ptx"].as_str().unwrap(),
        std::fs::read_to_string(format!("{ROOT}/{EXAMPLE}")).unwrap(),
        "the example is the first recorded kernel"
    );
    assert_eq!(got["counters"], doc["launches"][0]["counters"]);
    assert_eq!(got["threads"], 128);
    let statements = got["statements"].as_array().unwrap();
    assert_eq!(statements.len(), 8 + 16);
    assert!(statements
        .iter()
        .all(|s| s["issues"] == 4 && s["dead"] == false));
}

#[test]
fn the_docs_show_what_it_prints() {
    // Every `linalias ptx-cost …` block of the page, followed by its output block.
    let page = format!("{ROOT}/docs/gpu-counters.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let commands: Vec<&str> = text
        .split("```sh\n")
        .skip(1)
        .filter_map(|block| block.split("\n```\n\n```\n").next())
        .filter(|c| c.starts_with("linalias ptx-cost ") && !c.contains('\n'))
        .collect();
    assert!(commands.len() >= 2, "{commands:?}");
    for command in commands {
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = ok(&args);
        test_support::golden::check_section(
            &page,
            &format!("```sh\n{command}\n```\n\n```\n"),
            "```\n",
            &out,
        );
    }
}

#[test]
fn parameters_and_dead_loads() {
    // A run-time index: --param picks the buffer; an unused load is reported as deleted.
    let dir = std::env::temp_dir().join(format!("ptx-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dead.ptx");
    std::fs::write(
        &path,
        ".version 8.0\n.target sm_90a\n.address_size 64\n\n.extern .shared .align 16 .b8 smem[];\n\n\
         .visible .entry k(\n\t.param .u32 index\n)\n.reqntid 32\n{\n\t.reg .b32 %r<6>;\n\n\
         \tmov.u32 %r0, %tid.x;\n\tmov.u32 %r1, smem;\n\tld.param.u32 %r2, [index];\n\
         \tshl.b32 %r3, %r0, 2;\n\tadd.u32 %r4, %r1, %r3;\n\tst.shared::cta.b32 [%r4], %r2;\n\
         \tld.shared::cta.b32 %r5, [%r4];\n\tret;\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = ok(&[
        "ptx-cost",
        p,
        "--param",
        "index=7",
        "--dynamic-shared",
        "128",
    ]);
    assert!(
        out.contains("smsp__inst_executed_op_shared_ld.sum"),
        "{out}"
    );
    assert!(
        out.contains("ld.shared::cta.b32: 1 warp issue — its result is never used"),
        "{out}"
    );
    assert!(
        out.contains("st.shared::cta.b32: 1 warp issue, 1 wavefront, 0 bank conflicts"),
        "{out}"
    );
    let err = fails(&["ptx-cost", p, "--param", "nosuch=1"], 2);
    assert!(err.contains("--param: k has no parameter nosuch"), "{err}");
    let err = fails(&["ptx-cost", p, "--threads", "64"], 2);
    assert!(
        err.contains("--threads: 64, but the kernel's .reqntid is 32"),
        "{err}"
    );
    let err = fails(&["ptx-cost", p, "--param", "index"], 2);
    assert!(err.contains("expected NAME=VALUE"), "{err}");
    let err = fails(&["ptx-cost", p, "--dynamic-shared", "64"], 1);
    assert!(err.contains("dead.ptx"), "{err}");
    let err = fails(&["ptx-cost", "no/such.ptx"], 2);
    assert!(err.contains("KERNEL: no/such.ptx"), "{err}");
    let err = fails(&["ptx-cost", "README.md"], 2);
    assert!(err.contains("KERNEL: README.md"), "{err}");
    let err = fails(&["ptx-cost", EXAMPLE, "--param", "out=1"], 2);
    assert!(err.contains("out is a pointer"), "{err}");
    let err = fails(
        &["ptx-cost", p, "--param", "index=1", "--param", "index=2"],
        2,
    );
    assert!(err.contains("--param: index given twice"), "{err}");
    let err = fails(&["ptx-cost", EXAMPLE, "--buffer-bytes", "4294967296"], 2);
    assert!(
        err.contains("--buffer-bytes: 4294967296 bytes: at most"),
        "{err}"
    );
    // A copy of the kernel with `edits` applied, as a file.
    let variant = |name: &str, edits: &[(&str, &str)]| {
        let text = edits
            .iter()
            .fold(std::fs::read_to_string(&path).unwrap(), |t, (a, b)| {
                t.replace(a, b)
            });
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        file.to_str().unwrap().to_string()
    };
    // A static .shared variable: the default dynamic size leaves room for it.
    let with_static = variant(
        "static.ptx",
        &[(
            ".extern .shared .align 16 .b8 smem[];",
            ".shared .align 16 .b8 fixed[4096];\n.extern .shared .align 16 .b8 smem[];",
        )],
    );
    let out = ok(&["ptx-cost", &with_static]);
    assert!(
        out.contains("228352 bytes of dynamic shared memory"),
        "{out}"
    );
    // sm_100a: the rules are the H100's.
    let blackwell = variant(
        "sm100.ptx",
        &[("sm_90a", "sm_100a"), (".version 8.0", ".version 8.7")],
    );
    let err = fails(&["ptx-cost", &blackwell], 1);
    assert!(
        err.contains("targets sm_100a; the cost model's rules are the H100's"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
