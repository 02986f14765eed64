//! The emitter's refusals are typed errors naming the numbers, never panics.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::access::{Access, BufferIndex, BufferLowering, TlxReindex};
use codegen::ptx::{Builder, Reg, RegType, Target};
use codegen::smem::{SmemContext, SmemError, SmemPlan};
use linear_layout::families::TensorMemory;
use linear_layout::{AddressMap, BufferMap, LayoutError, LinearLayout};

fn tile(n: u64) -> LinearLayout {
    LinearLayout::identity_1d(n, "offset", "dim0").unwrap()
}

fn regs(n: u64) -> LinearLayout {
    // 32 lanes × n/32 registers over dim0.
    let r = (n / 32).trailing_zeros();
    LinearLayout::from_bases(
        &[
            ("register", (0..r).map(|k| vec![1 << k]).collect()),
            ("lane", (0..5).map(|k| vec![1 << (k + r)]).collect()),
        ],
        &[("dim0", n)],
        true,
    )
    .unwrap()
}

fn map(bits: u32, buffer: BufferMap) -> AddressMap {
    AddressMap::shared(buffer, bits, &tile(128)).unwrap()
}

fn plan(map: &AddressMap, access: Access) -> Result<SmemPlan, SmemError> {
    SmemPlan::new(map, &regs(128), access, BufferLowering::Explicit)
}

#[test]
fn plans_refuse_what_they_cannot_emit() {
    let none = BufferMap::new(0, &[]).unwrap();
    let tm = TensorMemory {
        block_m: 128,
        block_n: 32,
        col_stride: 1,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    };
    let tmem = AddressMap::tensor_memory(none.clone(), 32, &tm, &[128, 32]).unwrap();
    let r = SmemPlan::new(
        &tmem,
        &regs(128),
        Access::load(32),
        BufferLowering::Explicit,
    );
    assert!(matches!(r, Err(SmemError::NotShared { .. })));

    let m32 = map(32, none.clone());
    assert_eq!(
        plan(&m32, Access::load(16)).unwrap_err(),
        SmemError::ElementBits {
            access: 16,
            map: 32
        }
    );
    let m64 = map(64, none.clone());
    assert_eq!(
        plan(&m64, Access::load(64)).unwrap_err(),
        SmemError::UnsupportedElementBits { bits: 64 }
    );
    assert_eq!(
        plan(&m32, Access::load(32).with_max_vector_bytes(2)).unwrap_err(),
        SmemError::VectorBytes {
            bytes: 2,
            element_bytes: 4
        }
    );
    assert!(matches!(
        plan(&m32, Access::load(32).with_max_vector_bytes(32)),
        Err(SmemError::VectorBytes { bytes: 32, .. })
    ));

    // A 16-bit map whose buffers start on odd bytes.
    let odd = map(16, BufferMap::new(0, &[(2, 3)]).unwrap());
    assert!(matches!(
        plan(&odd, Access::store(16)),
        Err(SmemError::MisalignedBuffer {
            element_bytes: 2,
            ..
        })
    ));

    // Buffers past 4 GiB.
    let far = map(32, BufferMap::new((1 << 32) - 256, &[(2, 512)]).unwrap());
    assert!(matches!(
        plan(&far, Access::load(32)),
        Err(SmemError::AddressTooLarge { .. })
    ));

    // A register layout with an unknown in-dim, or two CTAs.
    let odd_dims = LinearLayout::identity_1d(128, "thread", "dim0").unwrap();
    let r = SmemPlan::new(&m32, &odd_dims, Access::load(32), BufferLowering::Explicit);
    assert!(matches!(r, Err(SmemError::RegisterLayout { .. })));
    let blocks = LinearLayout::from_bases(
        &[("block", vec![vec![64]]), ("lane", Vec::new())],
        &[("dim0", 128)],
        false,
    )
    .unwrap();
    let r = SmemPlan::new(&m32, &blocks, Access::load(32), BufferLowering::Explicit);
    assert!(matches!(r, Err(SmemError::RegisterLayout { .. })));

    // A register layout over another tile: composition fails with the algebra's error.
    let other = LinearLayout::identity_1d(32, "lane", "dim1").unwrap();
    let r = SmemPlan::new(&m32, &other, Access::load(32), BufferLowering::Explicit);
    assert!(matches!(r, Err(SmemError::Layout(_))));

    // TLX with group size 0.
    let tlx = BufferLowering::TlxReindex(TlxReindex::new(1, 1, 0, 512));
    let r = SmemPlan::new(&m32, &regs(128), Access::load(32), tlx);
    assert!(matches!(
        r,
        Err(SmemError::Tlx {
            param: "group_size",
            ..
        })
    ));
}

#[test]
fn emission_checks_its_operands() {
    let m = map(32, BufferMap::new(0, &[(2, 512)]).unwrap());
    let store = plan(&m, Access::store(32)).unwrap();
    let load = plan(&m, Access::load(32)).unwrap();
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    assert_eq!(
        SmemContext::new(&mut b, "smem").unwrap_err(),
        SmemError::UnknownShared {
            name: "smem".into()
        }
    );
    b.extern_shared("smem", 1024).unwrap();
    let mut ctx = SmemContext::new(&mut b, "smem").unwrap();
    let v = b.mov(RegType::B32, 1).unwrap();
    assert_eq!(
        store
            .emit(&mut b, &mut ctx, BufferIndex::Const(0), &[v])
            .unwrap_err(),
        SmemError::ValueCount {
            expected: 4,
            found: 1
        }
    );
    assert_eq!(
        load.emit(&mut b, &mut ctx, BufferIndex::Const(0), &[v])
            .unwrap_err(),
        SmemError::ValueCount {
            expected: 0,
            found: 1
        }
    );
    let wide = Reg::new(RegType::B64, 0);
    assert!(matches!(
        store.emit(&mut b, &mut ctx, BufferIndex::Const(0), &[wide; 4]),
        Err(SmemError::RegisterClass { .. })
    ));
    assert!(matches!(
        load.emit(&mut b, &mut ctx, BufferIndex::Runtime(wide), &[]),
        Err(SmemError::RegisterClass { .. })
    ));
    assert_eq!(
        load.emit(&mut b, &mut ctx, BufferIndex::Const(2), &[])
            .unwrap_err(),
        SmemError::Layout(LayoutError::BufferIndexOutOfRange { index: 2, count: 2 })
    );
    // Nothing invalid was added: the kernel still finishes.
    b.ret().unwrap();
    b.finish().unwrap();
}
