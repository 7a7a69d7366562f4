// RUN: pyptx-opt %s | pyptx-opt | FileCheck %s
// RUN: pyptx-opt %s --mlir-print-op-generic | pyptx-opt | FileCheck %s
// RUN: pyptx-opt %s --emit-bytecode | pyptx-opt | FileCheck %s
// RUN: pyptx-opt %s -o %t.1.mlir && pyptx-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir

// Every op of the pyptx dialect, in its custom form. Each RUN line prints the
// file, parses the printed form back (custom, generic or bytecode) and checks
// the custom form printed the second time, so the CHECK lines below hold the
// exact printed text of each op.

//===----------------------------------------------------------------------===//
// pyptx.module, pyptx.file, module-level pyptx.pragma and pyptx.var
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pyptx.module version 8.7 target sm_90a, debug address_size 64 {
pyptx.module version 8.7 target sm_90a, debug address_size 64 {
  // CHECK-NEXT: pyptx.file 1 "kernel.cu"{{$}}
  // CHECK-NEXT: pyptx.file 2 "/usr/include/inc.h" timestamp 1700000000 size 4096{{$}}
  // CHECK-NEXT: pyptx.pragma ["nounroll"]{{$}}
  pyptx.file 1 "kernel.cu"
  pyptx.file 2 "/usr/include/inc.h" timestamp 1700000000 size 4096
  pyptx.pragma ["nounroll"]

  // Variables: linkage, alignment, vectors, arrays, unsized arrays and
  // initializers.
  // CHECK-NEXT: pyptx.var visible global align 4 b32 @table[4] = {1, 2, 3, 4}{{$}}
  // CHECK-NEXT: pyptx.var extern shared align 16 b8 @dsmem[]{{$}}
  // CHECK-NEXT: pyptx.var weak global u32 @weak_var{{$}}
  // CHECK-NEXT: pyptx.var common global u64 @common_var{{$}}
  // CHECK-NEXT: pyptx.var const v4.f32 @cvec = {f32(0x3F800000), f32(0x40000000), f32(0x40400000), f32(0x40800000)}{{$}}
  // CHECK-NEXT: pyptx.var const align 8 v2.u32 @cpairs[2] = {{[{][{]}}1, 2}, {3, 4}}{{$}}
  // CHECK-NEXT: pyptx.var global s32 @matrix[2][3] = {{[{][{]}}1, 2, 3}, {-4, 5, 6}}{{$}}
  // CHECK-NEXT: pyptx.var visible const b8 @cube[2][2][2]{{$}}
  // CHECK-NEXT: pyptx.var global u64 @gptr = generic(@table){{$}}
  // CHECK-NEXT: pyptx.var global u64 @gptrs[] = {generic(@table), generic(@table) + 4}{{$}}
  // CHECK-NEXT: pyptx.var global u8 @masked[2] = {mask(hex(0xff), @table), mask(hex(0xff00), @table + 4)}{{$}}
  // CHECK-NEXT: pyptx.var global u64 @offset = @table + 8{{$}}
  // CHECK-NEXT: pyptx.var global f64 @dbl = f64(0x3FF0000000000000, upper_prefix){{$}}
  // CHECK-NEXT: pyptx.var global b32 @imms[] = {hex(0x1f, U), HEX(0xab), oct(8), bin(5), dec(7, U), -1}{{$}}
  pyptx.var visible global align 4 b32 @table[4] = {1, 2, 3, 4}
  pyptx.var extern shared align 16 b8 @dsmem[]
  pyptx.var weak global u32 @weak_var
  pyptx.var common global u64 @common_var
  pyptx.var const v4.f32 @cvec = {f32(0x3F800000), f32(0x40000000),
                                  f32(0x40400000), f32(0x40800000)}
  pyptx.var const align 8 v2.u32 @cpairs[2] = {{1, 2}, {3, 4}}
  pyptx.var global s32 @matrix[2][3] = {{1, 2, 3}, {-4, 5, 6}}
  pyptx.var visible const b8 @cube[2][2][2]
  pyptx.var global u64 @gptr = generic(@table)
  pyptx.var global u64 @gptrs[] = {generic(@table), generic(@table) + 4}
  pyptx.var global u8 @masked[2] = {mask(hex(0xFF), @table),
                                    mask(hex(0xFF00), @table + 4)}
  pyptx.var global u64 @offset = @table + 8
  pyptx.var global f64 @dbl = f64(0x3FF0000000000000, upper_prefix)
  pyptx.var global b32 @imms[] = {hex(0x1F, U), HEX(0xAB), oct(8), bin(5),
                                  dec(7, U), -1}

  //===--------------------------------------------------------------------===//
  // pyptx.func: kinds, linkages, parameters, declarations
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @empty_kernel() {
  // CHECK-NEXT:  }
  pyptx.func entry @empty_kernel() {
  }

  // CHECK-LABEL: pyptx.func visible entry @kernel_params(param u64 @a, param align 16 b8 @bytes[16], param u64 ptr global align 16 @p, param u64 ptr @q, param u64 ptr shared @r, param u64 ptr const @c, param u64 ptr local align 4 @l, param b32 @arr[4]) {
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func visible entry @kernel_params(
      param u64 @a, param align 16 b8 @bytes[16],
      param u64 ptr global align 16 @p, param u64 ptr @q,
      param u64 ptr shared @r, param u64 ptr const @c,
      param u64 ptr local align 4 @l, param b32 @arr[4]) {
    pyptx.inst ret
  }

  // A declaration has no body.
  // CHECK-LABEL: pyptx.func extern func @ext_decl(param b32 @x){{$}}
  pyptx.func extern func @ext_decl(param b32 @x)

  // CHECK-LABEL: pyptx.func extern entry @ext_kernel(param u64 @a){{$}}
  pyptx.func extern entry @ext_kernel(param u64 @a)

  // CHECK-LABEL: pyptx.func weak func @weak_def() {
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func weak func @weak_def() {
    pyptx.inst ret
  }

  // CHECK-LABEL: pyptx.func func @decl_with_ret(param b32 @x, param align 8 b8 @s[16]) -> (param b32 @y){{$}}
  pyptx.func func @decl_with_ret(param b32 @x, param align 8 b8 @s[16])
      -> (param b32 @y)

  // CHECK-LABEL: pyptx.func func @no_params(){{$}}
  pyptx.func func @no_params()

  // .reg parameters, return parameters first, are the block arguments.
  // CHECK-LABEL: pyptx.func visible func @reg_params(reg b32 @"%a", reg pred @"%pa", reg v2.f32 @"%va") -> (reg b32 @"%ret") {
  // CHECK-NEXT:  ^bb0(%ret: !pyptx.reg<b32>, %a: !pyptx.reg<b32>, %pa: !pyptx.pred, %va: !pyptx.reg<v2.f32>):
  // CHECK-NEXT:    pyptx.inst if %pa mov.b32 (%ret, elt(%va, y)) : b32, v2.f32{{$}}
  // CHECK-NEXT:    pyptx.inst add.s32 (%ret, %ret, %a) : b32, b32, b32{{$}}
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func visible func @reg_params(reg b32 @"%a", reg pred @"%pa",
                                      reg v2.f32 @"%va")
      -> (reg b32 @"%ret") {
  ^bb0(%ret: !pyptx.reg<b32>, %a: !pyptx.reg<b32>, %pa: !pyptx.pred,
       %va: !pyptx.reg<v2.f32>):
    pyptx.inst if %pa mov.b32 (%ret, elt(%va, y)) : b32, v2.f32
    pyptx.inst add.s32 (%ret, %ret, %a) : b32, b32, b32
    pyptx.inst ret
  }

  // CHECK-LABEL: pyptx.func func @mixed_params(reg u64 @"%rd", param b32 @x) -> (param b32 @y) attributes {pyptx_test.tag = 1 : i32} {
  // CHECK-NEXT:  ^bb0(%rd: !pyptx.reg<u64>):
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func func @mixed_params(reg u64 @"%rd", param b32 @x)
      -> (param b32 @y) attributes {pyptx_test.tag = 1 : i32} {
  ^bb0(%rd: !pyptx.reg<u64>):
    pyptx.inst ret
  }

  //===--------------------------------------------------------------------===//
  // Function directives
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @entry_directives() maxntid(128, 1, 1) reqntid(64) minnctapersm(2) maxnreg(64) reqnctapercluster(2, 1, 1) explicitcluster maxclusterrank(8) blocksareclusters pragma("nounroll") {
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func entry @entry_directives() maxntid(128, 1, 1) reqntid(64)
      minnctapersm(2) maxnreg(64) reqnctapercluster(2, 1, 1) explicitcluster
      maxclusterrank(8) blocksareclusters pragma("nounroll") {
    pyptx.inst ret
  }

  // CHECK-LABEL: pyptx.func entry @two_pragmas(param u64 @a) maxntid(32) pragma("nounroll") pragma("used_bytes_mask 0xfff", "nounroll"){{$}}
  pyptx.func entry @two_pragmas(param u64 @a) maxntid(32) pragma("nounroll")
      pragma("used_bytes_mask 0xfff", "nounroll")

  // CHECK-LABEL: pyptx.func func @func_directives() noreturn abi_preserve(4) abi_preserve_control(2) {
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func func @func_directives() noreturn abi_preserve(4)
      abi_preserve_control(2) {
    pyptx.inst ret
  }

  //===--------------------------------------------------------------------===//
  // pyptx.reg and pyptx.sreg
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @registers() {
  // CHECK-NEXT:    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>{{$}}
  // CHECK-NEXT:    %a, %b0, %b1, %c = pyptx.reg u64 "%a", "%b"<2>, "%c"{{$}}
  // CHECK-NEXT:    %v = pyptx.reg v4.f32 "%v"{{$}}
  // CHECK-NEXT:    %w0, %w1 = pyptx.reg v2.b64 "%w"<2>{{$}}
  // CHECK-NEXT:    %h = pyptx.reg v8.f16x2 "%h"{{$}}
  // CHECK-NEXT:    %p, %q = pyptx.reg pred "%p", "%q"{{$}}
  // CHECK-NEXT:    %pr0, %pr1, %pr2, %pr3 = pyptx.reg pred "%pr"<4>{{$}}
  // CHECK-NEXT:    pyptx.reg b16 "%none"<0>{{$}}
  // CHECK-NEXT:    %tid.x = pyptx.sreg "%tid.x" : u32{{$}}
  // CHECK-NEXT:    %ctaid.y = pyptx.sreg "%ctaid.y" : b32{{$}}
  // CHECK-NEXT:    %clock64 = pyptx.sreg "%clock64" : u64{{$}}
  // CHECK-NEXT:    %laneid = pyptx.sreg "%laneid" : s32{{$}}
  // CHECK-NEXT:    %is_explicit_cluster = pyptx.sreg "%is_explicit_cluster" : pred{{$}}
  // CHECK-NEXT:    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32{{$}}
  // CHECK-NEXT:    pyptx.inst mov.u64 (%a, %clock64) : u64, u64{{$}}
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func entry @registers() {
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %a, %b0, %b1, %c = pyptx.reg u64 "%a", "%b"<2>, "%c"
    %v = pyptx.reg v4.f32 "%v"
    %w0, %w1 = pyptx.reg v2.b64 "%w"<2>
    %h = pyptx.reg v8.f16x2 "%h"
    %p, %q = pyptx.reg pred "%p", "%q"
    %pr0, %pr1, %pr2, %pr3 = pyptx.reg pred "%pr"<4>
    pyptx.reg b16 "%none"<0>
    %tid.x = pyptx.sreg "%tid.x" : u32
    %ctaid.y = pyptx.sreg "%ctaid.y" : b32
    %clock64 = pyptx.sreg "%clock64" : u64
    %laneid = pyptx.sreg "%laneid" : s32
    %is_explicit_cluster = pyptx.sreg "%is_explicit_cluster" : pred
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst mov.u64 (%a, %clock64) : u64, u64
    pyptx.inst ret
  }

  //===--------------------------------------------------------------------===//
  // pyptx.var inside functions and scopes; pyptx.scope; body pragmas; labels
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @scopes() {
  // CHECK-NEXT:    %r0 = pyptx.reg b32 "%r"<1>{{$}}
  // CHECK-NEXT:    pyptx.var shared align 128 b8 @smem[1024]{{$}}
  // CHECK-NEXT:    pyptx.var local align 8 v2.u32 @lvar[4]{{$}}
  // CHECK-NEXT:    pyptx.var param b32 @pv{{$}}
  // CHECK-NEXT:    pyptx.pragma ["nounroll"]{{$}}
  // CHECK-NEXT:    pyptx.pragma ["a", "b"]{{$}}
  // CHECK-NEXT:    pyptx.scope {
  // CHECK-NEXT:      %s0, %s1 = pyptx.reg b32 "%s"<2>{{$}}
  // CHECK-NEXT:      pyptx.var shared b32 @inner{{$}}
  // CHECK-NEXT:      pyptx.inst add.s32 (%s0, %s1, %r0) : b32, b32, b32{{$}}
  // CHECK-NEXT:      pyptx.scope {
  // CHECK-NEXT:        pyptx.pragma ["nounroll"]{{$}}
  // CHECK-NEXT:        pyptx.label @"$L__inner"{{$}}
  // CHECK-NEXT:        pyptx.inst mov.u32 (%s0, 0) : b32{{$}}
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    pyptx.scope attributes {pyptx_test.tag} {
  // CHECK-NEXT:    }
  // CHECK-NEXT:    pyptx.label @"$L__end"{{$}}
  // CHECK-NEXT:    pyptx.label @L1{{$}}
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func entry @scopes() {
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.var shared align 128 b8 @smem[1024]
    pyptx.var local align 8 v2.u32 @lvar[4]
    pyptx.var param b32 @pv
    pyptx.pragma ["nounroll"]
    pyptx.pragma ["a", "b"]
    pyptx.scope {
      %s0, %s1 = pyptx.reg b32 "%s"<2>
      pyptx.var shared b32 @inner
      pyptx.inst add.s32 (%s0, %s1, %r0) : b32, b32, b32
      pyptx.scope {
        pyptx.pragma ["nounroll"]
        pyptx.label @"$L__inner"
        pyptx.inst mov.u32 (%s0, 0) : b32
      }
    }
    pyptx.scope attributes {pyptx_test.tag} {
    }
    pyptx.label @"$L__end"
    pyptx.label @L1
    pyptx.inst ret
  }

  //===--------------------------------------------------------------------===//
  // pyptx.inst: every operand form
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @operands(param u64 @tmap, param u64 @out) {
  // CHECK-NEXT:    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>{{$}}
  // CHECK-NEXT:    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>{{$}}
  // CHECK-NEXT:    %f0, %f1 = pyptx.reg f32 "%f"<2>{{$}}
  // CHECK-NEXT:    %fd0 = pyptx.reg f64 "%fd"<1>{{$}}
  // CHECK-NEXT:    %v = pyptx.reg v4.f32 "%v"{{$}}
  // CHECK-NEXT:    %p, %q = pyptx.reg pred "%p", "%q"{{$}}
  // CHECK-NEXT:    pyptx.var shared align 8 b64 @mbar{{$}}
  pyptx.func entry @operands(param u64 @tmap, param u64 @out) {
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0, %f1 = pyptx.reg f32 "%f"<2>
    %fd0 = pyptx.reg f64 "%fd"<1>
    %v = pyptx.reg v4.f32 "%v"
    %p, %q = pyptx.reg pred "%p", "%q"
    pyptx.var shared align 8 b64 @mbar

    // No operands.
    // CHECK-NEXT:    pyptx.inst exit{{$}}
    pyptx.inst exit
    // Registers.
    // CHECK-NEXT:    pyptx.inst add.s32 (%r0, %r1, %r2) : b32, b32, b32{{$}}
    pyptx.inst add.s32 (%r0, %r1, %r2) : b32, b32, b32
    // Vector components.
    // CHECK-NEXT:    pyptx.inst mov.f32 (elt(%v, x), elt(%v, w)) : v4.f32, v4.f32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f32 (elt(%v, r), elt(%v, a)) : v4.f32, v4.f32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f32 (%f0, elt(%v, y)) : f32, v4.f32{{$}}
    pyptx.inst mov.f32 (elt(%v, x), elt(%v, w)) : v4.f32, v4.f32
    pyptx.inst mov.f32 (elt(%v, r), elt(%v, a)) : v4.f32, v4.f32
    pyptx.inst mov.f32 (%f0, elt(%v, y)) : f32, v4.f32
    // Integers in every radix, with and without the U suffix.
    // CHECK-NEXT:    pyptx.inst add.s32 (%r0, %r1, 42) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst add.s32 (%r0, %r1, -7) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst add.u32 (%r0, %r1, dec(42, U)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, hex(0x1f)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, hex(0xff, U)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, HEX(0x1f)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, HEX(0xabcdef, U)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, oct(8)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, oct(0, U)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, bin(5)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.b32 (%r0, %r1, bin(0, U)) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.b64 (%rd0, 9223372036854775807) : b64{{$}}
    pyptx.inst add.s32 (%r0, %r1, 42) : b32, b32
    pyptx.inst add.s32 (%r0, %r1, -7) : b32, b32
    pyptx.inst add.u32 (%r0, %r1, dec(42, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, hex(0x1F)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, hex(0xff, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, HEX(0x1F)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, HEX(0xABCDEF, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, oct(8)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, oct(0, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, bin(5)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, bin(0, U)) : b32, b32
    pyptx.inst mov.b64 (%rd0, 9223372036854775807) : b64
    // Float immediates, with their spelling flags.
    // CHECK-NEXT:    pyptx.inst mov.f32 (%f0, f32(0x3F800000)) : f32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f32 (%f0, f32(0x3F800000, upper_prefix)) : f32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f32 (%f0, f32(0x3FC00000, lower_digits)) : f32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f32 (%f0, f32(0xBFC00000, upper_prefix, lower_digits)) : f32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f64 (%fd0, f64(0x3FF0000000000000)) : f64{{$}}
    // CHECK-NEXT:    pyptx.inst mov.f64 (%fd0, f64(0xC00921FB54442D18, upper_prefix, lower_digits)) : f64{{$}}
    pyptx.inst mov.f32 (%f0, f32(0x3F800000)) : f32
    pyptx.inst mov.f32 (%f0, f32(0x3F800000, upper_prefix)) : f32
    pyptx.inst mov.f32 (%f0, f32(0x3fc00000, lower_digits)) : f32
    pyptx.inst mov.f32 (%f0, f32(0xBFC00000, lower_digits, upper_prefix)) : f32
    pyptx.inst mov.f64 (%fd0, f64(0x3FF0000000000000)) : f64
    pyptx.inst mov.f64 (%fd0, f64(0xC00921FB54442D18, upper_prefix, lower_digits)) : f64
    // Symbols and symbol expressions.
    // CHECK-NEXT:    pyptx.inst mov.u64 (%rd0, @table) : b64{{$}}
    // CHECK-NEXT:    pyptx.inst mov.u64 (%rd0, @table + 4) : b64{{$}}
    // CHECK-NEXT:    pyptx.inst add.s32 (%r0, %r1, 8 - 4) : b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst mov.u32 (%r0, @WARP_SZ) : b32{{$}}
    pyptx.inst mov.u64 (%rd0, @table) : b64
    pyptx.inst mov.u64 (%rd0, @table + 4) : b64
    pyptx.inst add.s32 (%r0, %r1, 8 - 4) : b32, b32
    pyptx.inst mov.u32 (%r0, @WARP_SZ) : b32
    // Addresses.
    // CHECK-NEXT:    pyptx.inst ld.param.u64 (%rd1, [@out]) : b64{{$}}
    // CHECK-NEXT:    pyptx.inst ld.global.u32 (%r0, [%rd1]) : b32, b64{{$}}
    // CHECK-NEXT:    pyptx.inst ld.global.u32 (%r0, [%rd1 + 16]) : b32, b64{{$}}
    // CHECK-NEXT:    pyptx.inst ld.global.u32 (%r0, [%rd1 + -16]) : b32, b64{{$}}
    // CHECK-NEXT:    pyptx.inst ld.global.u32 (%r0, [@table + 8]) : b32{{$}}
    // CHECK-NEXT:    pyptx.inst ld.local.u32 (%r0, [hex(0x100)]) : b32{{$}}
    pyptx.inst ld.param.u64 (%rd1, [@out]) : b64
    pyptx.inst ld.global.u32 (%r0, [%rd1]) : b32, b64
    pyptx.inst ld.global.u32 (%r0, [%rd1 + 16]) : b32, b64
    pyptx.inst ld.global.u32 (%r0, [%rd1 + -16]) : b32, b64
    pyptx.inst ld.global.u32 (%r0, [@table + 8]) : b32
    pyptx.inst ld.local.u32 (%r0, [hex(0x100)]) : b32
    // A tensor-map address with coordinates; an opcode with `::` prints as a
    // string.
    // CHECK-NEXT:    pyptx.inst mov.u64 (%rd0, @tmap) : b64{{$}}
    // CHECK-NEXT:    pyptx.inst "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" ([@smem_tile], [%rd0, {%r0, %r1}], [@mbar]) : b64, b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64" (_, [@mbar], 16){{$}}
    pyptx.inst mov.u64 (%rd0, @tmap) : b64
    pyptx.inst "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" ([@smem_tile], [%rd0, {%r0, %r1}], [@mbar]) : b64, b32, b32
    pyptx.inst "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64" (_, [@mbar], 16)
    // Vectors.
    // CHECK-NEXT:    pyptx.inst ld.global.v4.f32 ({%f0, %f1, %f0, %f1}, [%rd1 + 16]) : f32, f32, f32, f32, b64{{$}}
    // CHECK-NEXT:    pyptx.inst st.global.v2.f32 ([%rd1], {elt(%v, x), elt(%v, y)}) : b64, v4.f32, v4.f32{{$}}
    pyptx.inst ld.global.v4.f32 ({%f0, %f1, %f0, %f1}, [%rd1 + 16]) : f32, f32, f32, f32, b64
    pyptx.inst st.global.v2.f32 ([%rd1], {elt(%v, x), elt(%v, y)}) : b64, v4.f32, v4.f32
    // Predicate pairs, negation and sinks.
    // CHECK-NEXT:    pyptx.inst setp.lt.s32 (%p | %q, %r0, %r1) : pred, pred, b32, b32{{$}}
    // CHECK-NEXT:    pyptx.inst and.pred (%p, not %q, %p) : pred, pred, pred{{$}}
    // CHECK-NEXT:    pyptx.inst selp.b32 (%r0, %r1, %r2, not %p) : b32, b32, b32, pred{{$}}
    pyptx.inst setp.lt.s32 (%p | %q, %r0, %r1) : pred, pred, b32, b32
    pyptx.inst and.pred (%p, not %q, %p) : pred, pred, pred
    pyptx.inst selp.b32 (%r0, %r1, %r2, not %p) : b32, b32, b32, pred
    // Attributes print before the types.
    // CHECK-NEXT:    pyptx.inst bar.sync (0) attributes {pyptx_test.tag = "x"}{{$}}
    // CHECK-NEXT:    pyptx.inst mov.u32 (%r3, %r2) attributes {pyptx_test.tag} : b32, b32{{$}}
    pyptx.inst bar.sync (0) attributes {pyptx_test.tag = "x"}
    pyptx.inst mov.u32 (%r3, %r2) attributes {pyptx_test.tag} : b32, b32
    // CHECK-NEXT:    pyptx.inst ret{{$}}
    // CHECK-NEXT:  }
    pyptx.inst ret
  }

  // CHECK-LABEL: pyptx.var shared align 128 b8 @smem_tile[4096]{{$}}
  pyptx.var shared align 128 b8 @smem_tile[4096]

  //===--------------------------------------------------------------------===//
  // Guards
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @guards() {
  // CHECK-NEXT:    %r0 = pyptx.reg b32 "%r"<1>{{$}}
  // CHECK-NEXT:    %p = pyptx.reg pred "%p"{{$}}
  // CHECK-NEXT:    pyptx.inst setp.eq.u32 (%p, %r0, 0) : pred, b32{{$}}
  // CHECK-NEXT:    pyptx.inst if %p add.s32 (%r0, %r0, 1) : b32, b32{{$}}
  // CHECK-NEXT:    pyptx.inst if not %p add.s32 (%r0, %r0, 2) : b32, b32{{$}}
  // CHECK-NEXT:    pyptx.inst if %p bra.uni (@"$L__done"){{$}}
  // CHECK-NEXT:    pyptx.inst if not %p "mbarrier.arrive.shared::cta.b64" (_, [@bar_var]){{$}}
  // CHECK-NEXT:    pyptx.inst if %p ret{{$}}
  // CHECK-NEXT:    pyptx.label @"$L__done"{{$}}
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func entry @guards() {
    %r0 = pyptx.reg b32 "%r"<1>
    %p = pyptx.reg pred "%p"
    pyptx.inst setp.eq.u32 (%p, %r0, 0) : pred, b32
    pyptx.inst if %p add.s32 (%r0, %r0, 1) : b32, b32
    pyptx.inst if not %p add.s32 (%r0, %r0, 2) : b32, b32
    pyptx.inst if %p "bra.uni" (@"$L__done")
    pyptx.inst if not %p "mbarrier.arrive.shared::cta.b64" (_, [@bar_var])
    pyptx.inst if %p ret
    pyptx.label @"$L__done"
    pyptx.inst ret
  }

  // CHECK-LABEL: pyptx.var shared align 8 b64 @bar_var{{$}}
  pyptx.var shared align 8 b64 @bar_var

  //===--------------------------------------------------------------------===//
  // Calls, call/branch target lists and call prototypes
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func func @f(param b32 @x) -> (param b32 @y) {
  pyptx.func func @f(param b32 @x) -> (param b32 @y) {
    pyptx.inst ret
  }
  // CHECK-LABEL: pyptx.func func @g(param b32 @x) -> (param b32 @y) {
  pyptx.func func @g(param b32 @x) -> (param b32 @y) {
    pyptx.inst ret
  }

  // CHECK-LABEL: pyptx.func entry @calls(param u32 @n) {
  // CHECK-NEXT:    %r0, %r1 = pyptx.reg b32 "%r"<2>{{$}}
  // CHECK-NEXT:    %rd0 = pyptx.reg b64 "%rd"<1>{{$}}
  // CHECK-NEXT:    pyptx.branchtargets @bt [@"$L__a", @"$L__b"]{{$}}
  // CHECK-NEXT:    pyptx.calltargets @ct [@f, @g]{{$}}
  // CHECK-NEXT:    pyptx.callprototype @proto(param b32 @_) -> (param b32 @_){{$}}
  // CHECK-NEXT:    pyptx.callprototype @proto_noreturn(param align 8 b8 @_[16]) noreturn{{$}}
  // CHECK-NEXT:    pyptx.callprototype @proto_void(){{$}}
  // CHECK-NEXT:    pyptx.inst ld.param.u32 (%r0, [@n]) : b32{{$}}
  // CHECK-NEXT:    pyptx.inst brx.idx (%r0, @bt) : b32{{$}}
  // CHECK-NEXT:    pyptx.label @"$L__a"{{$}}
  // CHECK-NEXT:    pyptx.inst mov.u64 (%rd0, @f) : b64{{$}}
  // CHECK-NEXT:    pyptx.scope {
  // CHECK-NEXT:      pyptx.var param b32 @arg0{{$}}
  // CHECK-NEXT:      pyptx.var param b32 @ret0{{$}}
  // CHECK-NEXT:      pyptx.inst st.param.b32 ([@arg0], %r0) : b32{{$}}
  // CHECK-NEXT:      pyptx.inst call.uni ((@ret0), @f, (@arg0)){{$}}
  // CHECK-NEXT:      pyptx.inst call ((@ret0), %rd0, (@arg0), @ct) : b64{{$}}
  // CHECK-NEXT:      pyptx.inst call ((@ret0), %rd0, (@arg0), @proto) : b64{{$}}
  // CHECK-NEXT:      pyptx.inst ld.param.b32 (%r1, [@ret0]) : b32{{$}}
  // CHECK-NEXT:    }
  // CHECK-NEXT:    pyptx.inst call ((), @no_params, ()){{$}}
  // CHECK-NEXT:    pyptx.inst call.uni ((%r1), @reg_params, (%r0)) : b32, b32{{$}}
  // CHECK-NEXT:    pyptx.label @"$L__b"{{$}}
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:  }
  pyptx.func entry @calls(param u32 @n) {
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %rd0 = pyptx.reg b64 "%rd"<1>
    pyptx.branchtargets @bt [@"$L__a", @"$L__b"]
    pyptx.calltargets @ct [@f, @g]
    pyptx.callprototype @proto(param b32 @_) -> (param b32 @_)
    pyptx.callprototype @proto_noreturn(param align 8 b8 @_[16]) noreturn
    pyptx.callprototype @proto_void()
    pyptx.inst ld.param.u32 (%r0, [@n]) : b32
    pyptx.inst brx.idx (%r0, @bt) : b32
    pyptx.label @"$L__a"
    pyptx.inst mov.u64 (%rd0, @f) : b64
    pyptx.scope {
      pyptx.var param b32 @arg0
      pyptx.var param b32 @ret0
      pyptx.inst st.param.b32 ([@arg0], %r0) : b32
      pyptx.inst "call.uni" ((@ret0), @f, (@arg0))
      pyptx.inst call ((@ret0), %rd0, (@arg0), @ct) : b64
      pyptx.inst call ((@ret0), %rd0, (@arg0), @proto) : b64
      pyptx.inst ld.param.b32 (%r1, [@ret0]) : b32
    }
    pyptx.inst call ((), @no_params, ())
    pyptx.inst call.uni ((%r1), @reg_params, (%r0)) : b32, b32
    pyptx.label @"$L__b"
    pyptx.inst ret
  }

  //===--------------------------------------------------------------------===//
  // pyptx.alias
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func func @h() {
  pyptx.func func @h() {
    pyptx.inst ret
  }
  // CHECK-LABEL: pyptx.func func @h_alias(){{$}}
  // CHECK-NEXT:  pyptx.alias @h_alias = @h{{$}}
  pyptx.func func @h_alias()
  pyptx.alias @h_alias = @h

  //===--------------------------------------------------------------------===//
  // Debug information: pyptx.loc, pyptx.section, pyptx.data
  //===--------------------------------------------------------------------===//

  // CHECK-LABEL: pyptx.func entry @debug_locs() {
  // CHECK-NEXT:    %r0 = pyptx.reg b32 "%r"<1>{{$}}
  // CHECK-NEXT:    %p = pyptx.reg pred "%p"{{$}}
  // CHECK-NEXT:    pyptx.loc 1 5 1{{$}}
  // CHECK-NEXT:    pyptx.inst mov.u32 (%r0, 1) : b32{{$}}
  // CHECK-NEXT:    pyptx.loc 2 20 7{{$}}
  // CHECK-NEXT:    pyptx.loc 1 13 0 function_name @"$L__info_string0" inlined_at [2, 20, 7]{{$}}
  // CHECK-NEXT:    pyptx.inst ret{{$}}
  // CHECK-NEXT:    pyptx.inst ptx_loc 1 6 3 add.u32 (%r0, %r0, 1) : b32, b32{{$}}
  // CHECK-NEXT:    pyptx.inst ptx_loc 1 7 0 if not %p bra.uni (@"$L__exit"){{$}}
  // CHECK-NEXT:    pyptx.label @"$L__exit"{{$}}
  // CHECK-NEXT:  }
  pyptx.func entry @debug_locs() {
    %r0 = pyptx.reg b32 "%r"<1>
    %p = pyptx.reg pred "%p"
    pyptx.loc 1 5 1
    pyptx.inst mov.u32 (%r0, 1) : b32
    pyptx.loc 2 20 7
    pyptx.loc 1 13 0 function_name @"$L__info_string0" inlined_at [2, 20, 7]
    pyptx.inst ret
    pyptx.inst ptx_loc 1 6 3 add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst ptx_loc 1 7 0 if not %p bra.uni (@"$L__exit")
    pyptx.label @"$L__exit"
  }

  // CHECK-LABEL: pyptx.section ".debug_str" {
  // CHECK-NEXT:    pyptx.label @"$L__info_string0"{{$}}
  // CHECK-NEXT:    pyptx.data b8 100, 101, 98, 117, 103, 0{{$}}
  // CHECK-NEXT:  }
  pyptx.section ".debug_str" {
    pyptx.label @"$L__info_string0"
    pyptx.data b8 100, 101, 98, 117, 103, 0
  }

  // CHECK-LABEL: pyptx.section ".debug_info" {
  // CHECK-NEXT:    pyptx.label @"$L__info"{{$}}
  // CHECK-NEXT:    pyptx.data b32 42{{$}}
  // CHECK-NEXT:    pyptx.data b8 1, 2, hex(0xff), HEX(0xab), oct(8), bin(3){{$}}
  // CHECK-NEXT:    pyptx.data b16 dec(7, U), -1{{$}}
  // CHECK-NEXT:    pyptx.data b64 @"$L__info_string0"{{$}}
  // CHECK-NEXT:    pyptx.data b32 @"$L__info" + 8{{$}}
  // CHECK-NEXT:    pyptx.data b64 @f{{$}}
  // CHECK-NEXT:    pyptx.data b32 263 b8 2, 3 b64 @f{{$}}
  // CHECK-NEXT:    pyptx.label @"$L__info_end"{{$}}
  // CHECK-NEXT:    pyptx.data b32 0 attributes {pyptx_test.tag}{{$}}
  // CHECK-NEXT:  }
  pyptx.section ".debug_info" {
    pyptx.label @"$L__info"
    pyptx.data b32 42
    pyptx.data b8 1, 2, hex(0xFF), HEX(0xAB), oct(8), bin(3)
    pyptx.data b16 dec(7, U), -1
    pyptx.data b64 @"$L__info_string0"
    pyptx.data b32 @"$L__info" + 8
    pyptx.data b64 @f
    pyptx.data b32 263 b8 2, 3 b64 @f
    pyptx.label @"$L__info_end"
    pyptx.data b32 0 attributes {pyptx_test.tag}
  }

  // CHECK-LABEL: pyptx.section ".debug_abbrev" {
  // CHECK-NEXT:  }
  // CHECK-NEXT: }
  pyptx.section ".debug_abbrev" {
  }
}

//===----------------------------------------------------------------------===//
// Other module headers
//===----------------------------------------------------------------------===//

// CHECK-LABEL: pyptx.module version 7.8 target sm_80, texmode_independent, map_f64_to_f32 attributes {pyptx_test.tag = 2 : i64} {
// CHECK-NEXT:    pyptx.func entry @k() {
// CHECK-NEXT:    }
// CHECK-NEXT:  }
pyptx.module version 7.8 target sm_80, texmode_independent, map_f64_to_f32
    attributes {pyptx_test.tag = 2} {
  pyptx.func entry @k() {
  }
}

// CHECK-LABEL: pyptx.module version 9.0 target sm_100a address_size 32 {
// CHECK-NEXT:  }
pyptx.module version 9.0 target sm_100a address_size 32 {
}

// CHECK-LABEL: pyptx.module version 6.0 target compute_70 {
// CHECK-NEXT:  }
pyptx.module version 6.0 target compute_70 {
}
