//! Text ↔ IR: `parse(kernel.to_string()) == kernel` for random valid kernels, the parser's
//! errors, and (where ptxas is installed) that random printed kernels assemble.

mod common;

use codegen::ptx::{parse, Kernel, ParseError, PtxError, Stmt, Target};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn print_then_parse_is_identity(k in common::kernel()) {
        prop_assert_eq!(k.validate(), Ok(()));
        let text = k.to_string();
        let back = parse(&text);
        prop_assert_eq!(back.as_ref(), Ok(&k), "text:\n{}", text);
    }

    #[test]
    fn parse_never_panics_on_garbage(text in "\\PC{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn parse_never_panics_on_mutated_kernels(k in common::kernel(), cut in 0usize..4000, junk in "[ -~]{0,8}") {
        let text = k.to_string();
        let cut = cut.min(text.len());
        if text.is_char_boundary(cut) {
            let mutated = format!("{}{}{}", &text[..cut], junk, &text[cut..]);
            let _ = parse(&mutated);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every random kernel the generator makes is one ptxas accepts (uninitialised registers
    /// only draw warnings). Random code sometimes crashes ptxas' optimiser ("Internal compiler
    /// error" on a constant-folded `stmatrix` address, seen with 13.5): that is past parsing
    /// and type checking, which is what this test is about, so it counts as accepted.
    #[test]
    fn random_kernels_assemble(k in common::kernel()) {
        let Some(ptxas) = codegen::ptxas::locate() else { return Ok(()); };
        let text = k.to_string();
        match codegen::ptxas::assemble_with(&ptxas, &text, k.target.arch()) {
            Ok(_) => {}
            Err(codegen::ptxas::PtxasError::Rejected { stderr, .. }) if stderr.contains("Internal compiler error") => {}
            Err(e) => prop_assert!(false, "{}\n{}", e, text),
        }
    }
}

const SMALL: &str = "\
.version 8.7
.target sm_90a
.address_size 64

.visible .entry k()
{
\t.reg .b32 %r<2>;

\tmov.u32 %r0, %tid.x;
\tadd.u32 %r1, %r0, 8;
\tret;
}
";

#[test]
fn small_kernel_round_trips_byte_for_byte() {
    let k = parse(SMALL).unwrap();
    assert_eq!(k.to_string(), SMALL);
}

#[test]
fn undeclared_register_is_an_error() {
    let text = SMALL.replace("%r<2>", "%r<1>");
    assert_eq!(
        parse(&text),
        Err(ParseError::UndeclaredRegister {
            line: 10,
            reg: "%r1".into()
        })
    );
}

#[test]
fn unknown_instruction_is_an_error() {
    let text = SMALL.replace("add.u32", "add.f32");
    assert!(matches!(
        parse(&text),
        Err(ParseError::UnknownInstruction { line: 10, .. })
    ));
    let text = SMALL.replace("add.u32 %r1, %r0, 8;", "wgmma.fence.sync.aligned;");
    assert!(matches!(
        parse(&text),
        Err(ParseError::UnknownInstruction { .. })
    ));
}

#[test]
fn wrong_register_class_is_invalid() {
    let text = SMALL.replace("add.u32 %r1", "add.u64 %r1");
    assert!(matches!(
        parse(&text),
        Err(ParseError::Invalid {
            line: 10,
            source: PtxError::OperandType { .. }
        })
    ));
}

#[test]
fn tcgen05_vector_size_is_checked() {
    let text = "
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<4>;
	mov.u32 %r0, 0;
	tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1}, [%r0];
	ret;
}";
    assert!(matches!(
        parse(text),
        Err(ParseError::Invalid {
            source: PtxError::VectorLength { .. },
            ..
        })
    ));
    let text = text.replace("16x128b.x1", "16x128b.x128");
    assert!(matches!(
        parse(&text),
        Err(ParseError::Invalid {
            source: PtxError::Tcgen05Repeat { .. },
            ..
        })
    ));
}

#[test]
fn tcgen05_needs_sm100a() {
    let text = "
.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
	tcgen05.wait::ld.sync.aligned;
}";
    assert!(matches!(
        parse(text),
        Err(ParseError::Kernel(PtxError::TargetFeature { .. }))
    ));
}

#[test]
fn trailing_comments_and_roles() {
    let text = "
// a header comment is ignored
.version 8.7
.target sm_90a
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 out) .maxntid 64
{
	.reg .b32 %r<3>;
	// lane
	mov.u32 %r0, %laneid; // not a role: ignored
	mov.u32 %r1, smem; // @data
	ld.shared.b32 %r2, [%r1+-16];
	ret;
}";
    let k = parse(text).unwrap();
    let roles: Vec<_> = k.instructions().map(|i| i.role).collect();
    use codegen::ptx::Role::*;
    assert_eq!(roles, vec![Address, Data, Data, Control]);
    assert_eq!(k.body.first(), Some(&Stmt::Comment("lane".into())));
    // `.shared` was read as `.shared::cta`, and printing is canonical from then on.
    let again = parse(&k.to_string()).unwrap();
    assert_eq!(again, k);
    assert!(k.to_string().contains("ld.shared::cta.b32 %r2, [%r1+-16];"));
}

#[test]
fn builder_and_parser_reject_the_same_things() {
    // A hand-made kernel with an invalid op prints, but does not parse back.
    let mut k: Kernel = parse(SMALL).unwrap();
    k.target = Target::Sm90a;
    k.body.insert(0, Stmt::Label("1bad".into()));
    assert!(k.validate().is_err());
    assert!(parse(&k.to_string()).is_err());
}
