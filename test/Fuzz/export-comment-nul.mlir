// RUN: pyptx-translate --export-ptx %s -o %t.ptx
// RUN: pyptx-translate --import-ptx %t.ptx | pyptx-translate --export-ptx | cmp %t.ptx -
//
// Builder fuzzer find: the exporter took a NUL byte as "nothing written
// yet", so after a comment that ends in one it wrote the function's `}` on
// the comment's line, where the importer never saw it. A NUL is a
// character like any other now.

pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    pyptx.comment "ends in a NUL\00"
  }
}
