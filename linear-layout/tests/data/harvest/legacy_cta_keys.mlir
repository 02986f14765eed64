// Legacy CTA keys (Triton before the linear CGALayout). The first attribute is verbatim from
// the TLX fork's test/Conversion/tritongpu_to_llvm_blackwell.mlir:97; the others vary it.
// Harvest source for tools/gen_harvested_layouts.py (--file): Triton 3.9 ignores these keys.
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0], instrShape = [16, 256, 32]}>
#mma_two = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0], instrShape = [16, 256, 32]}>
#mfma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true, CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32} {
  tt.func @f(%a: tensor<128x256xf32, #mma>, %b: tensor<256x256xf32, #mma_two>, %c: tensor<64x64xf32, #mfma>) {
    tt.return
  }
}
