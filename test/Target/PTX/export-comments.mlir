// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines
// RUN: pyptx-opt %s | pyptx-opt | FileCheck %s --check-prefix=IR

// pyptx.comment (what the Python builder's Module.comment makes) prints a
// `//` line at its place: at module level, in a body, in a nested block.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
// CHECK-EMPTY:
// CHECK-NEXT:// made by pyptx
// IR: pyptx.comment "made by pyptx"
// IR: pyptx.comment "BEGIN tile(64, 64)"
// IR: pyptx.comment ""
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.comment "made by pyptx"
  // CHECK-EMPTY:
  // CHECK-NEXT:.visible .entry k()
  // CHECK-NEXT:{
  // CHECK-NEXT:	// BEGIN tile(64, 64)
  // CHECK-NEXT:	membar.gl;
  // CHECK-NEXT:	{
  // CHECK-NEXT:		//
  // CHECK-NEXT:		membar.cta;
  // CHECK-NEXT:	}
  // CHECK-NEXT:	// END tile
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @k() {
    pyptx.comment "BEGIN tile(64, 64)"
    pyptx.inst membar.gl
    pyptx.scope {
      pyptx.comment ""
      pyptx.inst membar.cta
    }
    pyptx.comment "END tile"
    pyptx.inst ret
  }
}
