//===- Passes.cpp - pyptx analysis passes ---------------------------------===//

#include "pyptx/Dialect/PTX/Analysis/Passes.h"

#include "pyptx/Dialect/PTX/Analysis/HazardAnalysis.h"
#include "pyptx/Dialect/PTX/Analysis/ParamEffects.h"
#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

namespace pyptx {
#define GEN_PASS_DEF_PARAMEFFECTSPASS
#define GEN_PASS_DEF_CHECKHAZARDSPASS
#include "pyptx/Dialect/PTX/Analysis/Passes.h.inc"
} // namespace pyptx

using namespace mlir;
using namespace pyptx;

namespace {

struct ParamEffectsPass
    : public pyptx::impl::ParamEffectsPassBase<ParamEffectsPass> {
  void runOnOperation() override {
    getOperation()->walk([](FuncOp func) {
      if (func.isDeclaration())
        return;
      ParamEffects effects(func);
      InFlightDiagnostic remark = func.emitRemark()
                                  << "'" << func.getSymName() << "' writes ";
      if (effects.getWritten().empty())
        remark << "nothing";
      else
        remark << "through "
               << llvm::join(llvm::map_range(effects.getWritten(),
                                             [](StringAttr name) {
                                               return name.getValue();
                                             }),
                             ", ");
      if (!effects.isComplete())
        remark.attachNote(effects.getUnattributedWrite()->getLoc())
            << "every pointer parameter: " << effects.getReason();
    });
    markAllAnalysesPreserved();
  }
};

struct CheckHazardsPass
    : public pyptx::impl::CheckHazardsPassBase<CheckHazardsPass> {
  void runOnOperation() override {
    for (const Hazard &hazard : findHazards(getOperation()))
      hazard.at->emitWarning() << hazard.kind << ": " << hazard.message;
    markAllAnalysesPreserved();
  }
};

} // namespace
