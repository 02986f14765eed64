//! Criterion benchmarks of `AddressMap` evaluation on the CPU: addresses per second.
//!
//! Maps (built outside the timing loop):
//! * `nvmma128_f16_64x64`: NVMMA 128-byte swizzle, f16, 64 × 64, one buffer (4096 addresses);
//! * `ring3_nvmma128_f16_64x64`: the same tile in a 3-stage ring `(3):(8192)` (12288 addresses;
//!   3 is not a power of two, so the map is not one GF(2) layout);
//! * `tlx4_nvmma128_f16_64x64`: the same tile, 4 buffers at TLX's placement `scale 2, offset 1,
//!   group_size 2, unit 8192` as an explicit map `8192 + (2,2):(24576,32768)` (16384 addresses;
//!   24576 is not a power of two, so this is integer buffer arithmetic too);
//! * `tmem_f32_128x128_x2`: a TMEM f32 128 × 128 accumulator, 2 buffers `(2):(128)` columns
//!   (32768 addresses; GF(2)).
//!
//! Groups, each over every (buffer, element) of the map, XOR-accumulating the results:
//! * `address/per_element/<map>`: `AddressMap::address(i, &[row, col])`, the checked API a
//!   caller uses one element at a time;
//! * `address/addresses_of/<map>`: `AddressMap::addresses_of(i, &mut out)`, the library's bulk
//!   call (every element of a buffer, no allocation);
//! * `address/bulk/<map>`: the fastest path `linear-layout` offers for many addresses. Where
//!   the whole map is one GF(2) layout (`AddressMap::to_linear_layout`), its compiled
//!   `Evaluator` on flattened `(row, col, buffer)` inputs, one `apply` per address (the packed
//!   output: the byte offset, or `lane | column << 7`); otherwise the element layout's
//!   `Evaluator` on flattened `(row, col)` plus the buffer's precomputed `BufferMap::offsets`.
//!
//! Before timing, every bulk result is compared with `address` for every (buffer, element);
//! the bench panics on a difference, so both paths provably compute the same addresses.
//!
//! Run: `cargo bench --bench address -- --warm-up-time 1 --measurement-time 3`.

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use linear_layout::families::{NvmmaShared, SharedEncoding, TensorMemory};
use linear_layout::{Address, AddressMap, BufferMap, Evaluator};

struct Case {
    name: &'static str,
    map: AddressMap,
}

fn nvmma128(buffer: BufferMap) -> AddressMap {
    let enc =
        SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![]).expect("nvmma"));
    AddressMap::from_shared_encoding(buffer, 16, &enc, &[64, 64]).expect("NVMMA 128B map")
}

fn cases() -> Vec<Case> {
    let tmem = TensorMemory {
        block_m: 128,
        block_n: 128,
        col_stride: 1,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    };
    let buffer = |modes: &[(u64, u64)]| BufferMap::new(0, modes).expect("buffer map");
    vec![
        Case {
            name: "nvmma128_f16_64x64",
            map: nvmma128(buffer(&[])),
        },
        Case {
            name: "ring3_nvmma128_f16_64x64",
            map: nvmma128(buffer(&[(3, 8192)])),
        },
        Case {
            name: "tlx4_nvmma128_f16_64x64",
            map: nvmma128(BufferMap::new(8192, &[(2, 24576), (2, 32768)]).expect("buffer map")),
        },
        Case {
            name: "tmem_f32_128x128_x2",
            map: AddressMap::tensor_memory(buffer(&[(2, 128)]), 32, &tmem, &[128, 128])
                .expect("TMEM map"),
        },
    ]
}

/// The tile's coordinates in flattened order (dim0 in the low bits).
fn coordinates(map: &AddressMap) -> Vec<[u64; 2]> {
    let dims = map.element().in_dims();
    let (d0, d1) = (dims[0].1, dims[1].1);
    (0..d0 * d1).map(|x| [x % d0, x / d0]).collect()
}

/// One address as a number: the byte, or `lane << 16 | column` (`taddr`).
fn number(a: Address) -> u64 {
    match a {
        Address::Shared { byte } => byte,
        Address::Tensor { lane, column } => u64::from(lane) << 16 | u64::from(column),
    }
}

/// The bulk path for a map.
enum Bulk {
    /// The whole map as one GF(2) layout: `(row, col, buffer)` flattened → packed address.
    Gf2 { eval: Evaluator, tile_bits: u32 },
    /// The element layout, plus the buffers' byte offsets (shared memory only here).
    Element {
        eval: Evaluator,
        offsets: Vec<u64>,
        bytes: u64,
    },
}

impl Bulk {
    fn new(map: &AddressMap) -> Bulk {
        let tile_bits = coordinates(map).len().trailing_zeros();
        match map.to_linear_layout().expect("to_linear_layout") {
            Some(l) => Bulk::Gf2 {
                eval: l.evaluator().expect("evaluator"),
                tile_bits,
            },
            None => Bulk::Element {
                eval: map.element().evaluator().expect("evaluator"),
                offsets: map.buffer().offsets().collect(),
                bytes: u64::from(map.element_bits() / 8),
            },
        }
    }

    fn describe(&self) -> &'static str {
        match self {
            Bulk::Gf2 { .. } => "one GF(2) evaluator over (row, col, buffer)",
            Bulk::Element { .. } => "element evaluator + precomputed buffer offsets",
        }
    }

    /// XOR of every address of every buffer (the timed loop).
    fn run(&self, buffers: u64, tile: u64) -> u64 {
        let mut acc = 0u64;
        match self {
            Bulk::Gf2 { eval, tile_bits } => {
                for x in 0..buffers << tile_bits {
                    acc ^= eval.apply(black_box(x));
                }
            }
            Bulk::Element {
                eval,
                offsets,
                bytes,
            } => {
                for &start in offsets {
                    for x in 0..tile {
                        acc ^= start + bytes * eval.apply(black_box(x));
                    }
                }
            }
        }
        acc
    }

    /// The address number of element `x` (flattened) of buffer `i`, to check against
    /// `AddressMap::address`.
    fn one(&self, map: &AddressMap, i: u64, x: u64) -> u64 {
        match self {
            Bulk::Gf2 { eval, tile_bits } => {
                let out = eval.split(eval.apply(x | i << tile_bits));
                match out.as_slice() {
                    [byte] => *byte,
                    [lane, column] => lane << 16 | column,
                    _ => panic!("{}: unexpected out-dims", map),
                }
            }
            Bulk::Element {
                eval,
                offsets,
                bytes,
            } => offsets[i as usize] + bytes * eval.apply(x),
        }
    }
}

fn bench_address(c: &mut Criterion) {
    let mut group = c.benchmark_group("address");
    for case in cases() {
        let map = &case.map;
        let coords = coordinates(map);
        let buffers = map.buffer().num_buffers();
        let tile = coords.len() as u64;
        let bulk = Bulk::new(map);
        for i in 0..buffers {
            for (x, c) in coords.iter().enumerate() {
                let want = number(map.address(i, c).expect("address"));
                let got = bulk.one(map, i, x as u64);
                assert_eq!(got, want, "{}: buffer {i}, element {c:?}", case.name);
            }
        }
        eprintln!(
            "{}: {} buffers × {tile} elements; bulk path: {}",
            case.name,
            buffers,
            bulk.describe()
        );
        group.throughput(Throughput::Elements(buffers * tile));
        group.bench_function(BenchmarkId::new("per_element", case.name), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for i in 0..buffers {
                    for c in &coords {
                        acc ^= number(map.address(i, black_box(c)).expect("address"));
                    }
                }
                acc
            })
        });
        group.bench_function(BenchmarkId::new("bulk", case.name), |b| {
            b.iter(|| bulk.run(buffers, tile))
        });
        // The library's bulk call, checked against `address` first.
        let mut out = vec![0u64; tile as usize];
        for i in 0..buffers {
            map.addresses_of(i, &mut out).expect("addresses_of");
            for (x, c) in coords.iter().enumerate() {
                assert_eq!(
                    out[x],
                    number(map.address(i, c).expect("address")),
                    "{}",
                    case.name
                );
            }
        }
        group.bench_function(BenchmarkId::new("addresses_of", case.name), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for i in 0..buffers {
                    map.addresses_of(i, &mut out).expect("addresses_of");
                    acc ^= out[black_box(0)];
                }
                acc
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_address);
criterion_main!(benches);
