// RUN: pyptx-opt %s -pyptx-param-effects --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// The ParamEffects analysis (include/pyptx/Dialect/PTX/Analysis/
// ParamEffects.h): the parameters each function may write memory through,
// reported by -pyptx-param-effects as a remark at the function.

pyptx.module version 8.7 target sm_90a address_size 64 {

  // A load through x, a store through y (cvta.to.global and an offset
  // between): y only. n is used in the address but holds no pointer.
  // CHECK-LABEL: remark: 'copy' writes through y{{$}}
  pyptx.func entry @copy(param u64 @x, param u64 @y, param u32 @n) {
    %rd0, %rd1, %rd2 = pyptx.reg b64 "%rd"<3>
    %r0 = pyptx.reg b32 "%r0"
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@x]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@y]) : b64
    pyptx.inst ld.param.u32 (%r0, [@n]) : b32
    pyptx.inst cvta.to.global.u64 (%rd1, %rd1) : b64, b64
    pyptx.inst mul.wide.u32 (%rd2, %r0, 4) : b64, b32
    pyptx.inst add.s64 (%rd1, %rd1, %rd2) : b64, b64, b64
    pyptx.inst ld.global.f32 (%f0, [%rd0]) : f32, b64
    pyptx.inst st.global.f32 ([%rd1 + 4], %f0) : b64, f32
    pyptx.inst ret
  }

  // Reads only, and writes to shared memory (by name and through a generic
  // address made from a shared variable): nothing.
  // CHECK-LABEL: remark: 'reads' writes nothing{{$}}
  pyptx.var shared align 4 b32 @buf[32]
  pyptx.func entry @reads(param u64 @x) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0 = pyptx.reg b32 "%r0"
    pyptx.inst ld.param.u64 (%rd0, [@x]) : b64
    pyptx.inst ld.global.u32 (%r0, [%rd0]) : b32, b64
    pyptx.inst st.shared.u32 ([@buf], %r0) : b32
    pyptx.inst mov.u64 (%rd1, @buf) : b64
    pyptx.inst cvta.shared.u64 (%rd1, %rd1) : b64, b64
    pyptx.inst st.u32 ([%rd1 + 8], %r0) : b64, b32
    pyptx.inst ret
  }

  // atom and red write through their address; atom's result is data.
  // CHECK-LABEL: remark: 'atomics' writes through counts, sums{{$}}
  pyptx.func entry @atomics(param u64 @counts, param u64 @sums, param u64 @x) {
    %rd0, %rd1, %rd2 = pyptx.reg b64 "%rd"<3>
    %r0 = pyptx.reg b32 "%r0"
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@counts]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@sums]) : b64
    pyptx.inst ld.param.u64 (%rd2, [@x]) : b64
    pyptx.inst ld.global.f32 (%f0, [%rd2]) : f32, b64
    pyptx.inst atom.global.add.u32 (%r0, [%rd0], 1) : b32, b64
    pyptx.inst red.global.add.f32 ([%rd1], %f0) : b64, f32
    pyptx.inst ret
  }

  // A gather and scatter: y[idx[i]] = x[i]. The index is loaded (32 bits:
  // data, not a pointer), so the store is y's alone, not idx's.
  // CHECK-LABEL: remark: 'scatter' writes through y{{$}}
  pyptx.func entry @scatter(param u64 @x, param u64 @idx, param u64 @y) {
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    %r0 = pyptx.reg b32 "%r0"
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@x]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@idx]) : b64
    pyptx.inst ld.param.u64 (%rd2, [@y]) : b64
    pyptx.inst ld.global.f32 (%f0, [%rd0]) : f32, b64
    pyptx.inst ld.global.u32 (%r0, [%rd1]) : b32, b64
    pyptx.inst mad.wide.u32 (%rd3, %r0, 4, %rd2) : b64, b32, b64
    pyptx.inst st.global.f32 ([%rd3], %f0) : b64, f32
    pyptx.inst ret
  }

  // TMA: a load of X's tensor map reads; a store through Y's writes the
  // tensor the map describes, so Y_tmap1 (the descriptor parameter, whose
  // address `mov` takes) is reported, not the coordinates' origins.
  // CHECK-LABEL: remark: 'tma' writes through Y_tmap1{{$}}
  pyptx.func entry @tma(param u64 @X, param u64 @Y, param align 64 b8 @X_tmap0[128], param align 64 b8 @Y_tmap1[128], param u32 @row) {
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    pyptx.inst mov.u64 (%rd0, @X_tmap0) : b64
    pyptx.inst cvta.param.u64 (%rd1, %rd0) : b64, b64
    pyptx.inst mov.u64 (%rd2, @Y_tmap1) : b64
    pyptx.inst cvta.param.u64 (%rd3, %rd2) : b64, b64
    pyptx.inst ld.param.u32 (%r0, [@row]) : b32
    pyptx.inst mov.u32 (%r1, @buf) : b32
    pyptx.inst mov.u32 (%r2, 0) : b32
    pyptx.inst "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" ([%r1], [%rd1, {%r2, %r0}], [%r1]) : b32, b64, b32, b32, b32
    pyptx.inst "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" ([%rd3, {%r2, %r0}], [%r1]) : b64, b32, b32, b32
    pyptx.inst ret
  }

  // Bulk copies: to global memory writes (out), to shared memory does not
  // (in); a bulk reduction writes (acc).
  // CHECK-LABEL: remark: 'bulk' writes through out, acc{{$}}
  pyptx.func entry @bulk(param u64 @in, param u64 @out, param u64 @acc) {
    %rd0, %rd1, %rd2 = pyptx.reg b64 "%rd"<3>
    %r0 = pyptx.reg b32 "%r0"
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@out]) : b64
    pyptx.inst ld.param.u64 (%rd2, [@acc]) : b64
    pyptx.inst mov.u32 (%r0, @buf) : b32
    pyptx.inst "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ([%r0], [%rd0], 128, [%r0]) : b32, b64, b32
    pyptx.inst "cp.async.bulk.global.shared::cta.bulk_group" ([%rd1], [%r0], 128) : b64, b32
    pyptx.inst "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32" ([%rd2], [%r0], 128) : b64, b32
    pyptx.inst ret
  }

  // A bulk prefetch only reads; copying a tensor map from shared memory
  // to global memory (tensormap.cp_fenceproxy) writes.
  // CHECK-LABEL: remark: 'maps' writes through maps{{$}}
  pyptx.func entry @maps(param u64 @src, param u64 @maps) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0 = pyptx.reg b32 "%r0"
    pyptx.inst ld.param.u64 (%rd0, [@src]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@maps]) : b64
    pyptx.inst mov.u32 (%r0, @buf) : b32
    pyptx.inst "cp.async.bulk.prefetch.L2.global" ([%rd0], 128) : b64
    pyptx.inst "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned" ([%rd1], [%r0], 128) : b64, b32
    pyptx.inst ret
  }

  // multimem.st and tensormap.replace write through their address;
  // st.async writes another CTA's shared memory, no parameter's.
  // CHECK-LABEL: remark: 'misc' writes through mc, maps{{$}}
  pyptx.func entry @misc(param u64 @mc, param u64 @maps, param u64 @src) {
    %rd0, %rd1, %rd2 = pyptx.reg b64 "%rd"<3>
    %r0 = pyptx.reg b32 "%r0"
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@mc]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@maps]) : b64
    pyptx.inst ld.param.u64 (%rd2, [@src]) : b64
    pyptx.inst ld.global.f32 (%f0, [%rd2]) : f32, b64
    pyptx.inst multimem.st.relaxed.sys.global.f32 ([%rd0], %f0) : b64, f32
    pyptx.inst "tensormap.replace.tile.global_address.global.b1024.b64" ([%rd1], %rd2) : b64, b64
    pyptx.inst "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32" ([%r0], %r0, [%r0]) : b32, b32, b32
    pyptx.inst ret
  }

  // PTX registers are mutable: %rd0 holds x, then y, so a store through it
  // may write either (the analysis is flow-insensitive).
  // CHECK-LABEL: remark: 'reuse' writes through x, y{{$}}
  pyptx.func entry @reuse(param u64 @x, param u64 @y) {
    %rd0 = pyptx.reg b64 "%rd0"
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@x]) : b64
    pyptx.inst ld.global.f32 (%f0, [%rd0]) : f32, b64
    pyptx.inst ld.param.u64 (%rd0, [@y]) : b64
    pyptx.inst st.global.f32 ([%rd0], %f0) : b64, f32
    pyptx.inst ret
  }

  // A pointer read from memory may point anywhere: every pointer
  // parameter (not n) counts as written, and a note says why.
  // CHECK-LABEL: remark: 'indirect' writes through table, x{{$}}
  // CHECK: note: every pointer parameter: 'st.global.f32' writes through a pointer loaded from memory
  pyptx.func entry @indirect(param u64 @table, param u64 @x, param u32 @n) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@table]) : b64
    pyptx.inst ld.global.u64 (%rd1, [%rd0]) : b64, b64
    pyptx.inst st.global.f32 ([%rd1], %f0) : b64, f32
    pyptx.inst ret
  }

  // A pointer spilled to local memory and read back is a loaded pointer too.
  // CHECK-LABEL: remark: 'spill' writes through x{{$}}
  // CHECK: note: every pointer parameter: 'st.global.f32' writes through a pointer loaded from memory
  pyptx.var local align 8 b64 @slot
  pyptx.func entry @spill(param u64 @x) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0 = pyptx.reg f32 "%f0"
    pyptx.inst ld.param.u64 (%rd0, [@x]) : b64
    pyptx.inst st.local.u64 ([@slot], %rd0) : b64
    pyptx.inst ld.local.u64 (%rd1, [@slot]) : b64
    pyptx.inst st.global.f32 ([%rd1], %f0) : b64, f32
    pyptx.inst ret
  }

  // An address no pointer parameter reaches (a constant, a 32-bit
  // parameter): every pointer parameter.
  // CHECK-LABEL: remark: 'absolute' writes through x{{$}}
  // CHECK: note: every pointer parameter: 'st.global.u32' writes through an address that no pointer parameter or variable reaches
  pyptx.func entry @absolute(param u64 @x, param u32 @n) {
    %rd0 = pyptx.reg b64 "%rd0"
    %r0 = pyptx.reg b32 "%r0"
    pyptx.inst ld.param.u32 (%r0, [@n]) : b32
    pyptx.inst cvt.u64.u32 (%rd0, %r0) : b64, b32
    pyptx.inst st.global.u32 ([%rd0], %r0) : b64, b32
    pyptx.inst ret
  }

  // The analysis does not follow calls: every pointer parameter.
  // CHECK-LABEL: remark: 'helper' writes nothing{{$}}
  // CHECK-LABEL: remark: 'calls' writes through x, y{{$}}
  // CHECK: note: every pointer parameter: 'call.uni' calls a function, which the analysis does not follow
  pyptx.func func @helper(reg b64 @"%p") {
  ^bb0(%p: !pyptx.reg<b64>):
    pyptx.inst ret
  }
  pyptx.func entry @calls(param u64 @x, param u64 @y) {
    %rd0 = pyptx.reg b64 "%rd0"
    pyptx.inst ld.param.u64 (%rd0, [@x]) : b64
    pyptx.inst call.uni (@helper, (%rd0)) : b64
    pyptx.inst ret
  }

  // A device function's register parameters are its parameters too.
  // CHECK-LABEL: remark: 'store_at' writes through %dst{{$}}
  pyptx.func func @store_at(reg b64 @"%dst", reg f32 @"%v") {
  ^bb0(%dst: !pyptx.reg<b64>, %v: !pyptx.reg<f32>):
    pyptx.inst st.global.f32 ([%dst], %v) : b64, f32
    pyptx.inst ret
  }
}

// Under .address_size 32 a pointer is 32 bits wide.
pyptx.module version 8.7 target sm_90a address_size 32 {
  // CHECK-LABEL: remark: 'narrow' writes through y{{$}}
  pyptx.func entry @narrow(param u32 @x, param u32 @y) {
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    pyptx.inst ld.param.u32 (%r0, [@x]) : b32
    pyptx.inst ld.param.u32 (%r1, [@y]) : b32
    pyptx.inst ld.global.u32 (%r2, [%r0]) : b32, b32
    pyptx.inst st.global.u32 ([%r1], %r2) : b32, b32
    pyptx.inst ret
  }
}
