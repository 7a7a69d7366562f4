//===- Passes.td - pyptx analysis passes -------------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_ANALYSIS_PASSES_TD
#define PYPTX_DIALECT_PTX_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ParamEffectsPass : Pass<"pyptx-param-effects"> {
  let summary = "Report the parameters each function may write through";
  let description = [{
    Runs the ParamEffects analysis (ParamEffects.h) on every `pyptx.func`
    with a body and reports its result as a remark at the function:
    `'k' writes through y, X_tmap0` (parameter names, in parameter order)
    or `'k' writes nothing`. When some write could not be attributed (a
    pointer loaded from memory, a call), every pointer-wide parameter is
    listed, and a note at that instruction says why. The IR is unchanged.
  }];
}

def CheckHazardsPass : Pass<"pyptx-check-hazards"> {
  let summary = "Warn about the hangs and races of asynchronous PTX";
  let description = [{
    Runs the hazard analysis (HazardAnalysis.h) on every `pyptx.func` with
    a body and reports each finding as a warning at the instruction where
    it shows: `<kind>: <what, naming the earlier instruction by its line,
    and the fix>`. Kinds: wgmma-pending, async-proxy, async-copy-pending,
    tcgen05-pending, divergent-barrier, uninitialized. The IR is unchanged.
  }];
}

#endif // PYPTX_DIALECT_PTX_ANALYSIS_PASSES_TD
