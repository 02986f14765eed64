//! Golden-file helpers for the family tests: load `tests/data/families/<family>.json` and turn
//! a Gluon layout spec (`{"kind": ..., Gluon constructor arguments}`, see
//! `tools/gen_family_goldens.py`) into an [`Encoding`].

#![allow(dead_code)]

use linear_layout::families::{
    AmdMfma, AmdWmma, Blocked, DistributedEncoding, DotOperand, Encoding, NvidiaMma, NvmmaShared,
    PaddedShared, PartitionedShared, SharedEncoding, SharedLinear, Slice, SwizzledShared,
    TensorMemory, TensorMemoryScales,
};
use linear_layout::LinearLayout;
use serde_json::{json, Value};

/// The cases of one family file (checks the Triton version).
pub fn load_cases(family: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/data/families/{family}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(doc["triton_version"], "3.9.0", "{path}");
    doc["cases"].as_array().cloned().unwrap_or_default()
}

/// A golden layout in the repo's `from_bases` JSON shape.
pub fn layout(v: &Value) -> LinearLayout {
    LinearLayout::from_json(v).unwrap_or_else(|e| panic!("golden is not a layout ({e}): {v}"))
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected a list: {v}"))
        .iter()
        .map(|x| {
            x.as_u64()
                .unwrap_or_else(|| panic!("expected an integer: {x}")) as u32
        })
        .collect()
}

fn usizes(v: &Value) -> Vec<usize> {
    u32s(v).into_iter().map(|x| x as usize).collect()
}

/// `[[u64]]` lists such as `cga_layout` (missing: empty).
pub fn bases(v: &Value) -> Vec<Vec<u64>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|b| {
                    b.as_array()
                        .unwrap_or_else(|| panic!("expected a basis: {b}"))
                        .iter()
                        .map(|x| {
                            x.as_u64()
                                .unwrap_or_else(|| panic!("expected an integer: {x}"))
                        })
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The shape argument of a case.
pub fn shape(v: &Value) -> Vec<u64> {
    u32s(v).into_iter().map(u64::from).collect()
}

/// A distributed-layout spec.
pub fn distributed(spec: &Value) -> DistributedEncoding {
    match encoding(spec) {
        Encoding::Distributed(d) => d,
        other => panic!("not a distributed layout: {other:?}"),
    }
}

/// Any layout spec.
pub fn encoding(spec: &Value) -> Encoding {
    let kind = spec["kind"]
        .as_str()
        .unwrap_or_else(|| panic!("no kind: {spec}"));
    let cga = bases(&spec["cga_layout"]);
    let flag = |k: &str| spec[k].as_bool().unwrap_or(false);
    let num = |k: &str| spec[k].as_u64().unwrap_or_else(|| panic!("no {k}: {spec}")) as u32;
    match kind {
        "swizzled_shared" => Encoding::Shared(SharedEncoding::Swizzled(SwizzledShared {
            vec: num("vec"),
            per_phase: num("per_phase"),
            max_phase: num("max_phase"),
            order: usizes(&spec["order"]),
            cga_layout: cga,
        })),
        "nvmma_shared" => Encoding::Shared(SharedEncoding::Nvmma(NvmmaShared {
            swizzle_bytes: num("swizzle_byte_width"),
            element_bits: num("element_bitwidth"),
            transposed: flag("transposed"),
            fp4_padded: flag("fp4_padded"),
            cga_layout: cga,
            rank: spec["rank"].as_u64().map(|r| r as usize),
        })),
        "blocked" => Encoding::Distributed(DistributedEncoding::Blocked(Blocked {
            size_per_thread: u32s(&spec["size_per_thread"]),
            threads_per_warp: u32s(&spec["threads_per_warp"]),
            warps_per_cta: u32s(&spec["warps_per_cta"]),
            order: usizes(&spec["order"]),
            cga_layout: cga,
        })),
        "slice" => Encoding::Distributed(DistributedEncoding::Slice(Slice {
            dim: num("dim") as usize,
            parent: Box::new(distributed(&spec["parent"])),
        })),
        "nvidia_mma" => {
            let v = u32s(&spec["version"]);
            Encoding::Distributed(DistributedEncoding::NvidiaMma(NvidiaMma {
                version_major: v[0],
                version_minor: v.get(1).copied().unwrap_or(0),
                warps_per_cta: u32s(&spec["warps_per_cta"]),
                instr_shape: u32s(&spec["instr_shape"]),
                cga_layout: cga,
            }))
        }
        "padded_shared" => {
            let pairs: Vec<(u64, u64)> = bases(&spec["interval_padding_pairs"])
                .iter()
                .map(|p| (p[0], p[1]))
                .collect();
            Encoding::Shared(SharedEncoding::Padded(PaddedShared {
                intervals_paddings: pairs,
                linear: padded_linear(spec).expect("padded linear component"),
            }))
        }
        "partitioned_shared" => {
            let Encoding::Shared(inner) = encoding(&spec["partition_layout"]) else {
                panic!("partition_layout is not shared: {spec}");
            };
            Encoding::Shared(SharedEncoding::Partitioned(PartitionedShared {
                num_partitions: num("num_partitions"),
                num_groups: num("num_groups"),
                partition_dim: num("partition_dim") as usize,
                partition_layout: Box::new(inner),
            }))
        }
        "amd_mfma" => Encoding::Distributed(DistributedEncoding::AmdMfma(AmdMfma {
            version: num("version"),
            warps_per_cta: u32s(&spec["warps_per_cta"]),
            instr_shape: u32s(&spec["instr_shape"]),
            is_transposed: spec["transposed"].as_bool().expect("transposed"),
            tiles_per_warp: u32s(&spec["tiles_per_warp"]),
            element_bitwidth: num("element_bitwidth"),
            cga_layout: cga,
        })),
        "amd_wmma" => {
            let rank = spec["rank"].as_u64().expect("rank") as usize;
            let (reg, warp) = (bases(&spec["reg_bases"]), bases(&spec["warp_bases"]));
            let outs: Vec<linear_layout::Dim> =
                (0..rank).map(linear_layout::Dim::standard).collect();
            let cta =
                LinearLayout::from_bases_inferred(&[("register", reg), ("warp", warp)], &outs)
                    .expect("wmma cta layout");
            Encoding::Distributed(DistributedEncoding::AmdWmma(AmdWmma {
                version: num("version"),
                is_transposed: spec["transposed"].as_bool().expect("transposed"),
                cta_layout: cta,
                instr_shape: u32s(&spec["instr_shape"]),
                cga_layout: cga,
            }))
        }
        "dot_operand" => Encoding::Distributed(DistributedEncoding::DotOperand(DotOperand {
            op_idx: num("operand_index"),
            parent: Box::new(distributed(&spec["parent"])),
            k_width: num("k_width"),
        })),
        "tensor_memory" => {
            let block = u32s(&spec["block"]);
            Encoding::TensorMemory(TensorMemory {
                block_m: block[0],
                block_n: block[1],
                col_stride: num("col_stride"),
                cga_layout: cga,
                two_ctas: flag("two_ctas"),
                fp4_padded: flag("fp4_padded"),
            })
        }
        "tensor_memory_scales" => Encoding::TensorMemoryScales(TensorMemoryScales {
            cga_layout: cga,
            k_then_mn: false,
        }),
        "linear" => {
            let dims = ["register", "lane", "warp", "block"].map(|d| json!([d, spec[d]]));
            let outs: Vec<Value> = shape(&spec["shape"])
                .iter()
                .enumerate()
                .map(|(i, s)| json!([format!("dim{i}"), s]))
                .collect();
            Encoding::Distributed(DistributedEncoding::Linear(layout(
                &json!({"bases": dims, "out_dims": outs}),
            )))
        }
        "shared_linear" => {
            let offset = bases(&spec["offset"]);
            let rank = offset.first().map_or(0, Vec::len);
            // The attribute's sizes are what its bases reach (it is surjective).
            let outs: Vec<Value> = (0..rank)
                .map(|d| {
                    let reach = offset.iter().fold(0, |a, b| a | b[d]);
                    json!([format!("dim{d}"), (reach + 1).next_power_of_two()])
                })
                .collect();
            let dims = [
                json!(["offset", spec["offset"]]),
                json!(["block", spec["block"]]),
            ];
            Encoding::Shared(SharedEncoding::Linear(SharedLinear {
                layout: layout(&json!({"bases": dims, "out_dims": outs})),
                alignment: spec["alignment"].as_u64().unwrap_or(16),
            }))
        }
        other => panic!("unknown layout kind {other}"),
    }
}

/// The linear component of a Gluon `PaddedSharedLayout` spec: `offset, block → dim0..` sized by
/// its `shape` (not checked: the verifier's rules are what the tests exercise).
pub fn padded_linear(spec: &Value) -> Result<LinearLayout, linear_layout::LayoutError> {
    let outs: Vec<(linear_layout::Dim, u64)> = shape(&spec["shape"])
        .iter()
        .enumerate()
        .map(|(i, &s)| (linear_layout::Dim::standard(i), s))
        .collect();
    LinearLayout::from_bases(
        &[
            ("offset", bases(&spec["offset_bases"])),
            ("block", bases(&spec["cga_layout"])),
        ],
        &outs,
        false,
    )
}
