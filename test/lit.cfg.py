# lit configuration for the pyptx test suites.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "pyptx"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".ptx", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "corpus",
                   "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pyptx_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%pyptx_src_root", config.pyptx_src_root))
config.substitutions.append(("%pyptx_tools_dir", config.pyptx_tools_dir))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()

# `not` at the start of a pipeline and split-file are run by name: LLVM's
# default substitutions only cover FileCheck, `| not` and `| count`.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.pyptx_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["pyptx-opt", "pyptx-translate", "pyptx-tblgen"], tool_dirs)

# ptxas, where found, assembles exported PTX inside tests that ask for it
# with `REQUIRES: ptxas`.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
