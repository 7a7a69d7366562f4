/* Local definitions of the few glibc symbols newer than the glibc a
 * manylinux wheel links against (cmake/GlibcSysroot.cmake). The static
 * LLVM/MLIR libraries and libstdc++.a were compiled against the build
 * machine's newer glibc headers and call them; linked against an older
 * libc.so, these definitions take their place. Each is hidden: it serves
 * this binary only, never another library of the process.
 *
 *   arc4random        glibc 2.36   libstdc++'s std::random_device
 *   mallinfo2         glibc 2.33   llvm::sys::Process::GetMallocUsage
 *   __libc_single_threaded  2.32   libstdc++'s reference counts (inline)
 *
 * (stat/fstat/lstat, 2.33 as symbols, come from the old libc_nonshared.a;
 * pthread_*, dl*, 2.34 in libc, from the old libpthread and libdl.)
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <sys/random.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* 0: "more than one thread may exist", so libstdc++ always uses atomic
 * reference counts -- correct whatever the program does. */
HIDDEN char __libc_single_threaded = 0;

HIDDEN uint32_t arc4random(void) {
  uint32_t value;
  while (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value) {
  }
  return value;
}

HIDDEN struct mallinfo2 mallinfo2(void) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  struct mallinfo old = mallinfo();
#pragma GCC diagnostic pop
  struct mallinfo2 info = {
      .arena = (unsigned)old.arena,       .ordblks = (unsigned)old.ordblks,
      .smblks = (unsigned)old.smblks,     .hblks = (unsigned)old.hblks,
      .hblkhd = (unsigned)old.hblkhd,     .usmblks = (unsigned)old.usmblks,
      .fsmblks = (unsigned)old.fsmblks,   .uordblks = (unsigned)old.uordblks,
      .fordblks = (unsigned)old.fordblks, .keepcost = (unsigned)old.keepcost,
  };
  return info;
}
