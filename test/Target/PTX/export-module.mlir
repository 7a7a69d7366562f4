// RUN: pyptx-translate --export-ptx --split-input-file %s | FileCheck %s --strict-whitespace --match-full-lines

// The module header (.version, .target with its options, .address_size) and
// the module-level directives .pragma and .alias. Top-level items are
// separated by one blank line; bodies are indented with tabs.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // CHECK-EMPTY:
  // CHECK-NEXT:.pragma "nounroll";
  pyptx.pragma ["nounroll"]
  // CHECK-EMPTY:
  // CHECK-LABEL:.func impl()
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @impl() {
    pyptx.inst ret
  }
  // CHECK-EMPTY:
  // CHECK-LABEL:.func impl_alias();
  pyptx.func func @impl_alias()
  // CHECK-EMPTY:
  // CHECK-NEXT:.alias impl_alias, impl;
  pyptx.alias @impl_alias = @impl
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry k()
  // CHECK-NEXT:{
  // CHECK-NEXT:	call.uni (), impl_alias, ();
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @k() {
    pyptx.inst call.uni ((), @impl_alias, ())
    pyptx.inst ret
  }
}

// -----

// Target options follow the architecture; without address_size there is no
// .address_size line.

// CHECK-LABEL:.version 7.8
// CHECK-NEXT:.target sm_80, texmode_independent
pyptx.module version 7.8 target sm_80, texmode_independent {
  // CHECK-EMPTY:
  // CHECK-LABEL:.entry k()
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func entry @k() {
    pyptx.inst ret
  }
}

// -----

// An empty module is just its header.

// CHECK-LABEL:.version 9.0
// CHECK-NEXT:.target sm_100a, texmode_unified
// CHECK-NEXT:.address_size 64
pyptx.module version 9.0 target sm_100a, texmode_unified address_size 64 {
}

// CHECK-NOT:{{.+}}
