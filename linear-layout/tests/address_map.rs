//! `BufferMap` and `AddressMap`: the buffer part against the explicit mixed-radix formula, the
//! one-layout form against `address`, the swizzle inside against the swizzle outside, named
//! flash-attention maps with concrete numbers, and random bad input (errors, never panics).

#![allow(clippy::restriction)] // test code: a failed check panics

use linear_layout::address::MemorySpace;
use linear_layout::families::{NvmmaShared, SharedEncoding, SwizzledShared, TensorMemory};
use linear_layout::{Address, AddressMap, BufferMap, LayoutError, LinearLayout, Result};
use proptest::prelude::*;
use std::collections::BTreeSet;

// ----- helpers -----------------------------------------------------------------------------

/// Every coordinate tuple of `map`'s tile, first dim fastest.
fn all_coords(map: &AddressMap) -> Vec<Vec<u64>> {
    let dims = map.element().in_dims();
    let total: u64 = dims.iter().map(|d| d.1).product();
    (0..total)
        .map(|flat| {
            let mut rest = flat;
            dims.iter()
                .map(|&(_, s)| {
                    let c = rest % s;
                    rest /= s;
                    c
                })
                .collect()
        })
        .collect()
}

/// `base + Σ digit_k · stride_k` with the digits of `i` computed by hand, in `u128`.
fn mixed_radix(base: u64, modes: &[(u64, u64)], i: u64) -> u128 {
    let mut rest = i;
    let mut acc = u128::from(base);
    for &(size, stride) in modes {
        acc += u128::from(rest % size) * u128::from(stride);
        rest /= size;
    }
    acc
}

fn tmem(block_m: u32, block_n: u32, col_stride: u32) -> TensorMemory {
    TensorMemory {
        block_m,
        block_n,
        col_stride,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    }
}

fn nvmma(sw: u32, bits: u32, transposed: bool) -> Result<SharedEncoding> {
    Ok(SharedEncoding::Nvmma(NvmmaShared::new(
        sw,
        bits,
        transposed,
        false,
        vec![],
    )?))
}

/// `L(x, i)` for a whole-map layout, in the map's `Address` form, plus the base.
fn eval_whole(map: &AddressMap, l: &LinearLayout, i: u64, coords: &[u64]) -> Result<Address> {
    let mut inputs: Vec<(linear_layout::Dim, u64)> = map
        .element()
        .in_dim_names()
        .into_iter()
        .zip(coords.iter().copied())
        .collect();
    inputs.push(("buffer".into(), i));
    let out = l.apply(&inputs)?;
    let base = map.buffer().base();
    Ok(match map.space() {
        MemorySpace::Shared => Address::Shared {
            byte: base + out[0].1,
        },
        MemorySpace::TensorMemory => Address::Tensor {
            lane: out[0].1 as u32,
            column: (base + out[1].1) as u32,
        },
    })
}

// ----- generators ----------------------------------------------------------------------

/// Modes biased towards powers of two (so that the GF(2) form often exists).
fn modes(max_modes: usize) -> impl Strategy<Value = Vec<(u64, u64)>> {
    let size = prop_oneof![3 => (0u32..3).prop_map(|k| 1u64 << k), 1 => 1u64..6];
    let stride = prop_oneof![
        3 => (0u32..20).prop_map(|k| 1u64 << k),
        1 => Just(0u64),
        1 => 1u64..5000,
    ];
    prop::collection::vec((size, stride), 0..=max_modes)
}

fn base() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => Just(0u64),
        2 => (0u32..20).prop_map(|k| 1u64 << k),
        1 => 0u64..100_000,
    ]
}

/// A map description: shared (NVMMA, swizzled) or tensor memory, with a small tile.
#[derive(Clone, Debug)]
enum Spec {
    Nvmma {
        sw: u32,
        bits: u32,
        transposed: bool,
        shape: Vec<u64>,
    },
    Swizzled {
        vec: u32,
        per_phase: u32,
        max_phase: u32,
        bits: u32,
        shape: Vec<u64>,
    },
    Tmem {
        block_m: u32,
        block_n: u32,
        col_stride: u32,
        bits: u32,
        shape: Vec<u64>,
    },
}

fn pow2(lo: u32, hi: u32) -> impl Strategy<Value = u64> {
    (lo..=hi).prop_map(|k| 1u64 << k)
}

fn spec() -> impl Strategy<Value = Spec> {
    let bits4 = prop::sample::select(vec![8u32, 16, 32, 64]);
    prop_oneof![
        (
            prop::sample::select(vec![0u32, 32, 64, 128]),
            bits4.clone(),
            any::<bool>(),
            pow2(3, 7),
            pow2(3, 7)
        )
            .prop_map(|(sw, bits, transposed, a, b)| Spec::Nvmma {
                sw,
                bits,
                transposed,
                shape: vec![a, b]
            }),
        (
            pow2(0, 3),
            pow2(0, 2),
            pow2(0, 3),
            bits4,
            pow2(1, 5),
            pow2(1, 5)
        )
            .prop_map(|(v, p, m, bits, a, b)| Spec::Swizzled {
                vec: v as u32,
                per_phase: p as u32,
                max_phase: m as u32,
                bits,
                shape: vec![a, b]
            }),
        (
            prop::sample::select(vec![64u32, 128]),
            pow2(0, 7),
            prop::sample::select(vec![1u32, 2, 4]),
            prop::sample::select(vec![8u32, 16, 32]),
            pow2(6, 8),
            pow2(0, 7)
        )
            .prop_map(|(m, n, cs, bits, a, b)| Spec::Tmem {
                block_m: m,
                block_n: n as u32,
                col_stride: cs,
                bits,
                shape: vec![a, b]
            }),
    ]
}

fn build(spec: &Spec, buffer: BufferMap) -> Result<AddressMap> {
    match spec {
        Spec::Nvmma {
            sw,
            bits,
            transposed,
            shape,
        } => {
            AddressMap::from_shared_encoding(buffer, *bits, &nvmma(*sw, *bits, *transposed)?, shape)
        }
        Spec::Swizzled {
            vec,
            per_phase,
            max_phase,
            bits,
            shape,
        } => {
            let enc = SharedEncoding::Swizzled(SwizzledShared::new(
                *vec,
                *per_phase,
                *max_phase,
                vec![1, 0],
                vec![],
            )?);
            AddressMap::from_shared_encoding(buffer, *bits, &enc, shape)
        }
        Spec::Tmem {
            block_m,
            block_n,
            col_stride,
            bits,
            shape,
        } => {
            AddressMap::tensor_memory(buffer, *bits, &tmem(*block_m, *block_n, *col_stride), shape)
        }
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

// ----- properties --------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn offset_is_the_mixed_radix_formula(base in base(), modes in modes(4), pick in any::<u64>()) {
        let b = BufferMap::new(base, &modes).expect("small modes never overflow");
        let n = b.num_buffers();
        prop_assert_eq!(u128::from(n), modes.iter().map(|m| u128::from(m.0)).product::<u128>());
        let offsets: Vec<u64> = b.offsets().collect();
        prop_assert_eq!(offsets.len() as u64, n);
        for i in 0..n {
            prop_assert_eq!(u128::from(b.offset(i)?), mixed_radix(base, &modes, i));
            prop_assert_eq!(offsets[i as usize], b.offset(i)?);
            // The digits recombine to i, first mode fastest.
            let digits = b.digits(i)?;
            let back = digits.iter().zip(&modes).rev().fold(0u64, |acc, (d, m)| acc * m.0 + d);
            prop_assert_eq!(back, i);
        }
        let past = n.saturating_add(pick % 4);
        prop_assert_eq!(b.offset(past), Err(LayoutError::BufferIndexOutOfRange { index: past, count: n }));
    }

    #[test]
    fn buffer_layout_is_base_xor_offset(base in base(), modes in modes(3)) {
        let b = BufferMap::new(base, &modes).expect("small modes never overflow");
        let top = (b.offsets().max().unwrap_or(0) - base + 1).next_power_of_two();
        if let Some(l) = b.to_linear_layout("buffer", "offset", top)? {
            for i in 0..b.num_buffers() {
                let v = l.apply(&[("buffer", i)])?[0].1;
                prop_assert_eq!(base & v, 0);
                prop_assert_eq!(base ^ v, b.offset(i)?);
            }
        }
    }

    #[test]
    fn whole_layout_evaluates_as_address(spec in spec(), base in base(), modes in modes(2)) {
        // TMEM columns must stay inside the 16-bit column field.
        let base = if matches!(spec, Spec::Tmem { .. }) { base % 1024 } else { base };
        let modes: Vec<(u64, u64)> = match spec {
            Spec::Tmem { .. } => modes.iter().map(|&(s, d)| (s, d % 1024)).collect(),
            _ => modes,
        };
        let Ok(buffer) = BufferMap::new(base, &modes) else { return Ok(()) };
        let Ok(map) = build(&spec, buffer) else { return Ok(()) };
        let Some(l) = map.to_linear_layout()? else { return Ok(()) };
        for i in 0..map.buffer().num_buffers() {
            for x in all_coords(&map) {
                prop_assert_eq!(eval_whole(&map, &l, i, &x)?, map.address(i, &x)?, "{} at {}, {:?}", map, i, x);
            }
        }
    }

    #[test]
    fn swizzle_inside_equals_outside_iff_aligned(
        sw in prop::sample::select(vec![32u32, 64, 128]),
        bits in prop::sample::select(vec![8u32, 16, 32, 64]),
        transposed in any::<bool>(),
        rows in pow2(3, 6),
        k in 0u64..200,
        stride_k in 1u64..40,
    ) {
        let enc = nvmma(sw, bits, transposed)?;
        let bytes = u64::from(bits / 8);
        let contig = 8 * u64::from(sw) / u64::from(bits);
        let shape = if transposed { [contig, rows] } else { [rows, contig] };
        // Buffers at multiples of the element size, some on the repeat, some off it.
        let buffer = BufferMap::new(k * bytes * 16, &[(2, stride_k * 128)])?;
        let map = AddressMap::from_shared_encoding(buffer, bits, &enc, &shape)?;
        let repeat = map.hardware_swizzle().map(|h| h.repeat()).expect("rank 2, not fp4");
        for (i, start) in map.buffer().offsets().enumerate() {
            let coords = all_coords(&map);
            let differs = coords.iter().any(|x| {
                map.address(i as u64, x).ok() != map.address_outside(i as u64, x).ok()
            });
            prop_assert_eq!(differs, start % repeat != 0, "buffer {} at {} of {}", i, start, map);
        }
        prop_assert_eq!(map.check_alignment().is_ok(), map.buffer().offsets().all(|o| o % repeat == 0));
    }

    #[test]
    fn tmem_columns_match_alloc_columns(
        block_m in prop::sample::select(vec![64u32, 128]),
        block_n in pow2(0, 8),
        col_stride in prop::sample::select(vec![1u32, 2, 4]),
        bits in prop::sample::select(vec![8u32, 16, 32]),
        m in pow2(6, 8),
        n in pow2(0, 8),
    ) {
        let tm = tmem(block_m, block_n as u32, col_stride);
        let Ok(map) = AddressMap::tensor_memory(BufferMap::new(0, &[])?, bits, &tm, &[m, n]) else {
            return Ok(());
        };
        let (mut max_column, mut lanes) = (0u32, BTreeSet::new());
        for x in all_coords(&map) {
            let Address::Tensor { lane, column } = map.address(0, &x)? else {
                return Err(TestCaseError::fail("not a TMEM address"));
            };
            prop_assert!(lane < 128);
            max_column = max_column.max(column);
            lanes.insert(lane);
        }
        prop_assert_eq!(max_column + 1, tm.alloc_columns(&[m, n], bits)?);
        prop_assert_eq!(u64::from(max_column) + 1, map.element_span());
        // 64-row tiles use 64 lanes, 16 in each warp's 32-lane slice — not lanes 0..64.
        let rows = tm.alloc_rows(&[m, n])?;
        prop_assert_eq!(lanes.len() as u32, rows);
        if rows == 128 {
            prop_assert!(lanes.iter().all(|&l| l < rows));
        } else {
            prop_assert!(lanes.iter().all(|&l| l % 32 < 16));
        }
    }
}

// ----- no panics ---------------------------------------------------------------------------

fn fuzz_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0u64..=9,
        2 => (0u32..64).prop_map(|k| 1u64 << k),
        1 => (0u32..64).prop_map(|k| (1u64 << k).wrapping_sub(1)),
        1 => Just(u64::MAX),
        1 => any::<u64>(),
    ]
}

fn fuzz_u32() -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0u32..=130, 1 => Just(u32::MAX), 1 => any::<u32>()]
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn buffer_map_never_panics(
        base in fuzz_u64(),
        modes in prop::collection::vec((fuzz_u64(), fuzz_u64()), 0..5),
        i in fuzz_u64(),
        out in fuzz_u64(),
    ) {
        if let Ok(b) = BufferMap::new(base, &modes) {
            let _ = (b.offset(i), b.digits(i), b.to_string());
            let _ = b.offsets().take(4).count();
            let _ = b.to_linear_layout("buffer", "offset", out);
        }
    }

    #[test]
    fn address_map_never_panics(
        base in fuzz_u64(),
        modes in prop::collection::vec((fuzz_u64(), fuzz_u64()), 0..3),
        bits in fuzz_u32(),
        params in (fuzz_u32(), fuzz_u32(), fuzz_u32(), any::<bool>()),
        shape in prop::collection::vec(fuzz_u64(), 0..4),
        i in fuzz_u64(),
        coords in prop::collection::vec(fuzz_u64(), 0..4),
        kind in 0u8..4,
    ) {
        let Ok(buffer) = BufferMap::new(base, &modes) else { return Ok(()) };
        let (a, b, c, flag) = params;
        let map = match kind {
            0 => NvmmaShared::new(a, b, flag, false, vec![]).and_then(|n| {
                AddressMap::from_shared_encoding(buffer, bits, &SharedEncoding::Nvmma(n), &shape)
            }),
            1 => SwizzledShared::new(a, b, c, vec![1, 0], vec![]).and_then(|s| {
                AddressMap::from_shared_encoding(buffer, bits, &SharedEncoding::Swizzled(s), &shape)
            }),
            2 => AddressMap::tensor_memory(buffer, bits, &tmem(a, b, c), &shape),
            _ => LinearLayout::identity_1d(1u64 << (a % 12), "offset", "dim0")
                .and_then(|l| AddressMap::shared(buffer, bits, &l)),
        };
        if let Ok(map) = map {
            let _ = (map.address(i, &coords), map.address_outside(i, &coords));
            let _ = (map.check_alignment(), map.to_linear_layout(), map.to_string());
            let _ = (map.required_alignment(), map.element_span());
        }
    }
}

// ----- named maps --------------------------------------------------------------------------

#[test]
fn fa_tmem_s_two_f32_buffers() -> Result<()> {
    // S = Q·Kᵀ accumulators: f32 [128, 128], double-buffered 128 columns apart.
    let s = AddressMap::tensor_memory(
        BufferMap::new(0, &[(2, 128)])?,
        32,
        &tmem(128, 128, 1),
        &[128, 128],
    )?;
    assert_eq!(s.element_span(), 128);
    assert_eq!(s.address(0, &[0, 0])?.taddr(), Some(0));
    assert_eq!(
        s.address(1, &[127, 127])?,
        Address::Tensor {
            lane: 127,
            column: 255
        }
    );
    assert_eq!(s.address(1, &[64, 3])?.taddr(), Some(64 << 16 | 131));
    assert!(s.check_alignment().is_ok());
    let l = s.to_linear_layout()?.expect("one power-of-two mode");
    assert_eq!(l.bases_of("buffer")?, vec![vec![0, 128]]);
    assert_eq!(l.bases_of("dim0")?[6], vec![64, 0]); // rows are lanes
    assert_eq!(l.bases_of("dim1")?[6], vec![0, 64]); // f32: one column per element
    assert_eq!(
        s.to_string(),
        "tmem lane = E(x).lane, column = (2):(128) + E(x).column; E: [dim0 128, dim1 128] → [lane 128, column 128]"
    );
    Ok(())
}

#[test]
fn fa_tmem_p_four_bf16_buffers() -> Result<()> {
    // P tiles: bf16 [128, 64] = 32 columns each, 2 subtiles inside 2 groups 128 columns apart.
    let p = AddressMap::tensor_memory(
        BufferMap::new(0, &[(2, 32), (2, 128)])?,
        16,
        &tmem(128, 64, 1),
        &[128, 64],
    )?;
    assert_eq!(p.element_span(), 32);
    assert_eq!(p.buffer().offsets().collect::<Vec<_>>(), [0, 32, 128, 160]);
    // Two bf16 per 32-bit column: element (17, 9) is in column 4 of its tile.
    for (i, column) in [(0, 4), (1, 36), (2, 132), (3, 164)] {
        assert_eq!(
            p.address(i, &[17, 9])?,
            Address::Tensor { lane: 17, column }
        );
    }
    assert_eq!(p.address(3, &[17, 8])?, p.address(3, &[17, 9])?);
    let l = p.to_linear_layout()?.expect("disjoint powers of two");
    assert_eq!(l.bases_of("buffer")?, vec![vec![0, 32], vec![0, 128]]);
    assert_eq!(l.bases_of("dim1")?[0], vec![0, 0]); // the two halves of a column
    assert_eq!(p.buffer().to_string(), "(2,2):(32,128)");
    Ok(())
}

#[test]
fn shared_ring_with_128b_swizzle() -> Result<()> {
    // K tiles: bf16 [128, 64] (16 KiB), a 3-stage ring after 1 KiB of barriers.
    let enc = nvmma(128, 16, false)?;
    let ring = AddressMap::from_shared_encoding(
        BufferMap::new(1024, &[(3, 16384)])?,
        16,
        &enc,
        &[128, 64],
    )?;
    assert_eq!(ring.element_span(), 16384);
    assert_eq!(ring.required_alignment(), 1024);
    assert!(ring.check_alignment().is_ok());
    // Row r, column c: 16-byte chunk c/8 XOR (r mod 8).
    for (r, c) in [(0u64, 0u64), (1, 8), (5, 17), (127, 63)] {
        let elem = r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8;
        for i in 0..3 {
            let byte = 1024 + i * 16384 + 2 * elem;
            assert_eq!(ring.address(i, &[r, c])?, Address::Shared { byte });
            assert_eq!(ring.address_outside(i, &[r, c])?, Address::Shared { byte });
        }
    }
    // 3 stages: no single layout, but every address is still exact.
    assert_eq!(ring.to_linear_layout()?, None);
    assert_eq!(
        ring.to_string(),
        "smem 1024 + (3):(16384) + 2·E(x) = Sw<3,4,3>(1024 + (3):(16384) + 2·Lin(x)) where aligned to 1024; E: [dim0 128, dim1 64] → [offset 8192]"
    );
    // Two stages 16 KiB apart at base 0 are one layout with a `buffer` bit at 16384.
    let two =
        AddressMap::from_shared_encoding(BufferMap::new(0, &[(2, 16384)])?, 16, &enc, &[128, 64])?;
    let l = two
        .to_linear_layout()?
        .expect("power of two above the tile");
    assert_eq!(l.bases_of("buffer")?, vec![vec![16384]]);
    assert_eq!(l.out_dims(), vec![("offset".into(), 32768)]);
    Ok(())
}

#[test]
fn misaligned_ring_is_reported_and_differs() -> Result<()> {
    let enc = nvmma(128, 16, false)?;
    // A 64-byte header before the ring: every stage is off the 1024-byte swizzle repeat.
    let ring =
        AddressMap::from_shared_encoding(BufferMap::new(64, &[(2, 16384)])?, 16, &enc, &[128, 64])?;
    assert_eq!(
        ring.check_alignment(),
        Err(LayoutError::Misaligned {
            buffer: 0,
            offset: 64,
            alignment: 1024,
            unit: "byte"
        })
    );
    assert_eq!(
        ring.check_alignment().map_err(|e| e.to_string()),
        Err("buffer 0 starts at byte 64, which is not a multiple of the required alignment of 1024 bytes".into())
    );
    // Element (4, 0): the layout XORs chunk 0 with row 4, so it sits at byte 512 + 64 of the
    // tile: 64 + 576 = 640. The hardware swizzles 64 + 512 = 576, whose line bit 9 flips the
    // header's own bit 6 back: 512.
    assert_eq!(ring.address(0, &[4, 0])?.byte(), Some(640));
    assert_eq!(ring.address_outside(0, &[4, 0])?.byte(), Some(512));
    // Rows 0..4 happen to agree: the base's bit 6 is below the source bits 7..10.
    assert_eq!(ring.address(0, &[1, 0])?, ring.address_outside(0, &[1, 0])?);
    Ok(())
}

#[test]
fn bad_inputs_are_typed_errors() -> Result<()> {
    assert!(matches!(
        BufferMap::new(0, &[(0, 1)]),
        Err(LayoutError::InvalidParameter { param: "modes", .. })
    ));
    assert!(matches!(
        BufferMap::new(0, &[(1 << 32, 1), (1 << 32, 1)]),
        Err(LayoutError::InvalidParameter { param: "modes", .. })
    ));
    let enc = nvmma(64, 16, false)?;
    assert!(matches!(
        AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 32, &enc, &[16, 64]),
        Err(LayoutError::InvalidParameter {
            param: "element_bits",
            ..
        })
    ));
    let l = LinearLayout::identity_1d(8, "offset", "dim0")?;
    assert!(matches!(
        AddressMap::shared(BufferMap::new(0, &[])?, 12, &l),
        Err(LayoutError::InvalidParameter {
            param: "element_bits",
            ..
        })
    ));
    let regs = LinearLayout::identity_1d(8, "register", "dim0")?;
    assert!(matches!(
        AddressMap::shared(BufferMap::new(0, &[])?, 16, &regs),
        Err(LayoutError::InvalidParameter {
            param: "layout",
            ..
        })
    ));
    // Two CTAs: an AddressMap is one CTA's memory.
    let two_cta = NvmmaShared::new(128, 16, false, false, vec![vec![1, 0]])?;
    assert!(matches!(
        AddressMap::from_shared_encoding(
            BufferMap::new(0, &[])?,
            16,
            &SharedEncoding::Nvmma(two_cta),
            &[128, 64]
        ),
        Err(LayoutError::InvalidParameter {
            param: "layout",
            ..
        })
    ));
    let map = AddressMap::shared(BufferMap::new(0, &[(2, 8)])?, 8, &l)?;
    assert!(matches!(
        map.address(0, &[1, 2]),
        Err(LayoutError::Invalid { .. })
    ));
    assert!(matches!(
        map.address(0, &[8]),
        Err(LayoutError::InputOutOfRange { .. })
    ));
    assert_eq!(
        map.address(2, &[0]),
        Err(LayoutError::BufferIndexOutOfRange { index: 2, count: 2 })
    );
    // A TMEM column past the 16-bit field.
    let far = AddressMap::tensor_memory(
        BufferMap::new(0xFFF0, &[])?,
        32,
        &tmem(128, 32, 1),
        &[128, 32],
    )?;
    assert!(matches!(
        far.address(0, &[0, 31]),
        Err(LayoutError::AddressOverflow { .. })
    ));
    Ok(())
}

#[test]
fn sub_byte_elements_share_bytes() -> Result<()> {
    // 4-bit elements, 16 in a row: two per byte.
    let l = LinearLayout::identity_1d(16, "offset", "dim0")?;
    let map = AddressMap::shared(BufferMap::new(32, &[(2, 8)])?, 4, &l)?;
    assert_eq!(map.element_span(), 8);
    assert_eq!(map.address(1, &[5])?, Address::Shared { byte: 32 + 8 + 2 });
    assert_eq!(map.address(1, &[4])?, map.address(1, &[5])?);
    assert_eq!(
        map.to_string(),
        "smem 32 + (2):(8) + 4·E(x)/8; E: [dim0 16] → [offset 16]"
    );
    let whole = map
        .to_linear_layout()?
        .expect("8-byte tiles, 8 bytes apart, base 32");
    assert_eq!(
        whole.bases_of("dim0")?,
        vec![vec![0], vec![1], vec![2], vec![4]]
    );
    assert_eq!(whole.bases_of("buffer")?, vec![vec![8]]);
    Ok(())
}
