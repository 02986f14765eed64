//! Round trips through the TMEM emitter for every atom × tile × warp count × buffer map:
//! f32 (and packed bf16) tiles `[128, N]` with `block_m` 128 and 64 and `[64, N]` with
//! `block_m` 64, `N = 8..256`, 4 and 8 warps, constant and run-time buffer indices over
//! single, power-of-two, FA-style `(2,2):(32,128)` and non-power-of-two buffer maps. Each
//! kernel's printed text is re-parsed and interpreted: every (thread, register) cell must be
//! `AddressMap::address(i, coords)` with `coords` the register layout of (register, lane,
//! warp), every value must come back (also through a second atom), and ptxas must assemble it.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::access::IndexSource;
use codegen::tmem::TmemError;
use linear_layout::families::Tcgen05Atom;
use linear_layout::BufferMap;
use test_support::tmem::{assemble_all, check_roundtrip, tmem, Alloc};

const NS: [u64; 6] = [8, 16, 32, 64, 128, 256];
const ATOMS: [Tcgen05Atom; 4] = [
    Tcgen05Atom::M32x32b,
    Tcgen05Atom::M16x64b,
    Tcgen05Atom::M16x128b,
    Tcgen05Atom::M16x256b,
];

/// `(rows, block_m)` of the three tile kinds.
#[derive(Clone, Copy, Debug)]
enum Tile {
    /// `[128, N]`, `block_m = 128`.
    M128,
    /// `[128, N]`, `block_m = 64`: rows 64.. in lanes 16..31 of each quarter.
    M128Block64,
    /// `[64, N]`, `block_m = 64`: lanes 16..31 unused.
    M64,
}

impl Tile {
    fn alloc(self, n: u64, bits: u32) -> Alloc {
        let (rows, block_m) = match self {
            Tile::M128 => (128, 128),
            Tile::M128Block64 => (128, 64),
            Tile::M64 => (64, 64),
        };
        Alloc::new(
            tmem(block_m, n as u32),
            [rows, n],
            bits,
            BufferMap::new(0, &[]).unwrap(),
        )
    }
}

/// The buffer maps tried for a tile of `span` columns, with the index each kernel uses.
fn buffer_maps(span: u64) -> Vec<(&'static str, BufferMap, IndexSource)> {
    let mut maps = vec![
        (
            "one",
            BufferMap::new(0, &[]).unwrap(),
            IndexSource::Const(vec![0]),
        ),
        (
            "pair",
            BufferMap::new(0, &[(2, span)]).unwrap(),
            IndexSource::Param,
        ),
        (
            "fa3",
            BufferMap::new(0, &[(2, 32), (2, 128)]).unwrap(),
            IndexSource::Const(vec![3]),
        ),
        (
            "fa",
            BufferMap::new(0, &[(2, 32), (2, 128)]).unwrap(),
            IndexSource::Param,
        ),
    ];
    // Three subtiles per group (a TLX reuse group of 3), groups 3·span + 8 apart, after 16:
    // `div` by 3 for the group digit.
    if 16 + 6 * span + 8 <= 512 {
        maps.push((
            "odd",
            BufferMap::new(16, &[(3, span), (2, 3 * span + 8)]).unwrap(),
            IndexSource::Param,
        ));
    }
    maps
}

/// Why `atom` cannot move this tile, if it cannot (and the error then expected).
fn refused(n: u64, bits: u32, atom: Tcgen05Atom, err: &TmemError) -> bool {
    let columns = n * u64::from(bits) / 32;
    match err {
        // The atom is wider than the tile's columns.
        TmemError::Layout(linear_layout::LayoutError::InvalidShape { .. }) => {
            columns < u64::from(atom.columns())
        }
        _ => false,
    }
}

/// Runs every case of one tile kind, element width and store atom; returns (kernels, cells).
fn sweep(tile: Tile, bits: u32, atom: Tcgen05Atom) -> (usize, usize) {
    let started = std::time::Instant::now();
    let mut kernels = Vec::new();
    let mut cells = 0;
    let mut refusals = 0;
    // Packed bf16 on fewer column counts: the packing is the same at every width.
    let ns: &[u64] = if bits == 16 { &[8, 32, 128] } else { &NS };
    for &n in ns {
        let base = tile.alloc(n, bits);
        let span = base.map.element_span();
        for warps in [4, 8] {
            let st = match base.plan(atom, warps) {
                Ok(p) => p,
                Err(e) => {
                    assert!(
                        refused(n, bits, atom, &e),
                        "{tile:?} N={n} {bits}-bit {atom} {warps} warps: unexpected {e}"
                    );
                    refusals += 1;
                    continue;
                }
            };
            for (j, (map_name, buffer, index)) in buffer_maps(span).into_iter().enumerate() {
                // Packed bf16 on the FA maps only: the index code is the f32 one.
                if bits == 16 && !map_name.starts_with("fa") {
                    continue;
                }
                let alloc = base.with_buffer(buffer);
                let st = alloc.plan(atom, warps).unwrap();
                // Load back with another atom where the tile allows one.
                let other = ATOMS[(ATOMS.iter().position(|a| *a == atom).unwrap() + j) % 4];
                let ld = alloc.plan(other, warps).unwrap_or_else(|_| st.clone());
                let name = format!(
                    "rt_{tile:?}_n{n}_b{bits}_{}_{}_w{warps}_{map_name}",
                    atom.ptx_shape(),
                    ld.atom().ptx_shape()
                )
                .to_lowercase();
                let (k, c) = check_roundtrip(&name, &alloc, &st, &ld, index);
                kernels.push(k);
                cells += c;
            }
            drop(st);
        }
    }
    let interp = started.elapsed();
    let assembled = assemble_all(&kernels);
    eprintln!(
        "{tile:?} {bits}-bit {atom}: {} kernels ({assembled} assembled), {cells} cells, {refusals} refused; interp {interp:?}, total {:?}",
        kernels.len(),
        started.elapsed()
    );
    (kernels.len(), cells)
}

macro_rules! sweep_tests {
    ($($name:ident: $tile:expr, $bits:expr, $atom:expr;)*) => {$(
        #[test]
        fn $name() {
            let (kernels, cells) = sweep($tile, $bits, $atom);
            assert!(kernels > 0 && cells > 0);
        }
    )*};
}

sweep_tests! {
    m128_f32_32x32b: Tile::M128, 32, Tcgen05Atom::M32x32b;
    m128_f32_16x64b: Tile::M128, 32, Tcgen05Atom::M16x64b;
    m128_f32_16x128b: Tile::M128, 32, Tcgen05Atom::M16x128b;
    m128_f32_16x256b: Tile::M128, 32, Tcgen05Atom::M16x256b;
    m128_block64_f32_32x32b: Tile::M128Block64, 32, Tcgen05Atom::M32x32b;
    m128_block64_f32_16x64b: Tile::M128Block64, 32, Tcgen05Atom::M16x64b;
    m128_block64_f32_16x128b: Tile::M128Block64, 32, Tcgen05Atom::M16x128b;
    m128_block64_f32_16x256b: Tile::M128Block64, 32, Tcgen05Atom::M16x256b;
    m64_f32_32x32b: Tile::M64, 32, Tcgen05Atom::M32x32b;
    m64_f32_16x64b: Tile::M64, 32, Tcgen05Atom::M16x64b;
    m64_f32_16x128b: Tile::M64, 32, Tcgen05Atom::M16x128b;
    m64_f32_16x256b: Tile::M64, 32, Tcgen05Atom::M16x256b;
    m128_bf16_32x32b: Tile::M128, 16, Tcgen05Atom::M32x32b;
    m128_bf16_16x64b: Tile::M128, 16, Tcgen05Atom::M16x64b;
    m128_bf16_16x128b: Tile::M128, 16, Tcgen05Atom::M16x128b;
    m128_bf16_16x256b: Tile::M128, 16, Tcgen05Atom::M16x256b;
    m64_bf16_32x32b: Tile::M64, 16, Tcgen05Atom::M32x32b;
    m64_bf16_16x64b: Tile::M64, 16, Tcgen05Atom::M16x64b;
    m64_bf16_16x128b: Tile::M64, 16, Tcgen05Atom::M16x128b;
    m64_bf16_16x256b: Tile::M64, 16, Tcgen05Atom::M16x256b;
}
