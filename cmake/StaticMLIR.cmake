# Debian's static MLIR archives declare a link dependency on the LLVM dylib
# (libLLVM.so), and LLVMSupport on libz3. Rewrite those interfaces so our
# tools and extension link MLIR and LLVMSupport statically and need no
# libLLVM/libMLIR at run time (DESIGN.md, principle 6).
find_package(zstd QUIET)
if(NOT TARGET zstd::libzstd_shared)
  find_library(PYPTX_ZSTD_LIB zstd REQUIRED)
  add_library(zstd::libzstd_shared UNKNOWN IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES
    IMPORTED_LOCATION "${PYPTX_ZSTD_LIB}")
endif()

get_directory_property(_pyptx_imported IMPORTED_TARGETS)
foreach(_target IN LISTS _pyptx_imported)
  if(NOT _target MATCHES "^(MLIR|LLVM)")
    continue()
  endif()
  get_target_property(_libs ${_target} INTERFACE_LINK_LIBRARIES)
  if(NOT _libs)
    continue()
  endif()
  list(TRANSFORM _libs REPLACE "^LLVM$" "LLVMSupport;LLVMRemarks")
  list(TRANSFORM _libs REPLACE "^\\$<LINK_ONLY:LLVM>$" "LLVMSupport;LLVMRemarks")
  list(FILTER _libs EXCLUDE REGEX "libz3")
  set_target_properties(${_target} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
endforeach()
