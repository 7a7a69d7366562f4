//===- NoLLVMPoisoning.h - keep LLVM's allocators unpoisoned ----*- C++ -*-===//
//
// Included first in every file of a sanitizer build (PYPTX_SANITIZE,
// PYPTX_ENABLE_FUZZ). LLVM's BumpPtrAllocator poisons its slabs in ASan
// builds and unpoisons each allocation; the apt LLVM/MLIR libraries are not
// ASan builds, so a slab that our copy of the inline code poisoned is then
// handed out, unpoisoned, by theirs, and ASan reports a false
// use-after-poison in MLIR (BuiltinDialect::initialize). Our code must
// neither poison nor unpoison LLVM's memory, as theirs does not.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/Compiler.h"

#undef __asan_poison_memory_region
#undef __asan_unpoison_memory_region
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
