# PYPTX_GLIBC_SYSROOT=DIR: link every binary against the older glibc of the
# root file system DIR (its libc6-dev: scripts/build-wheels.sh makes one from
# Debian 11, glibc 2.31), so that the wheel loads where glibc is that old
# (manylinux). Compiling still uses this machine's headers. The -L and -B
# paths come first, since gcc searches its own library folders (this
# machine's libc.so) before the sysroot's. libstdc++ is linked statically
# (its symbols hidden); libgcc_s stays shared: the static unwinder of gcc 12
# calls _dl_find_object (glibc 2.35), the old shared one does not. And
# cmake/glibc_compat.c defines the few newer glibc symbols that the static
# LLVM/MLIR and libstdc++ archives call (docs/design.md, "Packaging").
set(PYPTX_GLIBC_SYSROOT "" CACHE PATH
    "Root file system whose glibc the binaries link against (manylinux)")
if(PYPTX_GLIBC_SYSROOT)
  set(_pyptx_libc_dir "${PYPTX_GLIBC_SYSROOT}/usr/lib/x86_64-linux-gnu")
  if(NOT EXISTS "${_pyptx_libc_dir}/libc_nonshared.a")
    message(FATAL_ERROR "PYPTX_GLIBC_SYSROOT=${PYPTX_GLIBC_SYSROOT} has no "
      "libc6-dev (${_pyptx_libc_dir}/libc_nonshared.a)")
  endif()
  # Compiled here, at configure time, so that it can go last on every link
  # line (after the static archives that call what it defines).
  set(_pyptx_compat_c "${CMAKE_CURRENT_LIST_DIR}/glibc_compat.c")
  set(_pyptx_compat_o "${CMAKE_BINARY_DIR}/glibc_compat.o")
  execute_process(
    COMMAND ${CMAKE_C_COMPILER} -O2 -fPIC -Wall -Werror -c ${_pyptx_compat_c}
            -o ${_pyptx_compat_o}
    RESULT_VARIABLE _pyptx_compat_rc ERROR_VARIABLE _pyptx_compat_err)
  if(NOT _pyptx_compat_rc EQUAL 0)
    message(FATAL_ERROR "compiling ${_pyptx_compat_c} failed: ${_pyptx_compat_err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_pyptx_compat_c})
  string(APPEND CMAKE_CXX_STANDARD_LIBRARIES " ${_pyptx_compat_o} -lpthread -ldl")
  foreach(_kind EXE SHARED MODULE)
    string(APPEND CMAKE_${_kind}_LINKER_FLAGS
      " --sysroot=${PYPTX_GLIBC_SYSROOT} -B${_pyptx_libc_dir}/"
      " -L${_pyptx_libc_dir} -L${PYPTX_GLIBC_SYSROOT}/lib/x86_64-linux-gnu"
      " -static-libstdc++ -Wl,--exclude-libs,ALL")
  endforeach()
  # This machine's libgcc_s.so.1 (linked against, not shipped) calls
  # _dl_find_object; the one an executable meets at run time is that of the
  # older system, which does not.
  string(APPEND CMAKE_EXE_LINKER_FLAGS " -Wl,--allow-shlib-undefined")
  message(STATUS "Linking against the glibc of ${PYPTX_GLIBC_SYSROOT}")
endif()
