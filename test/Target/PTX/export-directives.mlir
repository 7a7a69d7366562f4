// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines

// Performance and ABI directives, one per line between the parameter list
// and the body (or the ';' of a declaration), in the order given. A .pragma
// directive ends with ';'.

// CHECK-LABEL:.version 9.0
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 9.0 target sm_90a address_size 64 {
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry maxntid_3d(
  // CHECK-NEXT:	.param .u64 a
  // CHECK-NEXT:)
  // CHECK-NEXT:.maxntid 128, 2, 1
  // CHECK-NEXT:.minnctapersm 4
  // CHECK-NEXT:.maxnreg 64
  // CHECK-NEXT:.pragma "nounroll";
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @maxntid_3d(param u64 @a) maxntid(128, 2, 1)
      minnctapersm(4) maxnreg(64) pragma("nounroll") {
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.entry maxntid_1d()
  // CHECK-NEXT:.maxntid 256
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func entry @maxntid_1d() maxntid(256) {
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.entry reqntid_cluster()
  // CHECK-NEXT:.reqntid 64, 1, 1
  // CHECK-NEXT:.reqnctapercluster 2, 1, 1
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func entry @reqntid_cluster() reqntid(64, 1, 1)
      reqnctapercluster(2, 1, 1) {
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.entry explicit_cluster()
  // CHECK-NEXT:.explicitcluster
  // CHECK-NEXT:.maxclusterrank 8
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func entry @explicit_cluster() explicitcluster maxclusterrank(8) {
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.entry blocks_are_clusters()
  // CHECK-NEXT:.reqntid 128
  // CHECK-NEXT:.reqnctapercluster 4
  // CHECK-NEXT:.blocksareclusters
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func entry @blocks_are_clusters() reqntid(128)
      reqnctapercluster(4) blocksareclusters {
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.func no_return()
  // CHECK-NEXT:.noreturn
  // CHECK-NEXT:{
  // CHECK-NEXT:	trap;
  // CHECK-NEXT:}
  pyptx.func func @no_return() noreturn {
    pyptx.inst trap
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.func abi(
  // CHECK-NEXT:	.param .b32 x
  // CHECK-NEXT:)
  // CHECK-NEXT:.abi_preserve 4
  // CHECK-NEXT:.abi_preserve_control 2
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @abi(param b32 @x) abi_preserve(4) abi_preserve_control(2) {
    pyptx.inst ret
  }

  // Directives on a declaration.
  // CHECK-EMPTY:
  // CHECK-LABEL:.extern .func ext_abi()
  // CHECK-NEXT:.noreturn
  // CHECK-NEXT:.abi_preserve 0;
  pyptx.func extern func @ext_abi() noreturn abi_preserve(0)
}

// CHECK-NOT:{{.+}}
