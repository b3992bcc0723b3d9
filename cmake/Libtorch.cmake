# libtorch from the pinned PyPI torch wheel in the project's Python environment.
# The wheel is CUDA-enabled, so find_package(Torch) would demand a CUDA toolkit; we only need
# the CPU libraries and declare imported targets for torch_cpu and c10 ourselves.
set(TORCHIR_PYTHON "$ENV{HOME}/.cache/torchir/venv/bin/python" CACHE FILEPATH "Python with the pinned torch")
if(NOT EXISTS "${TORCHIR_PYTHON}")
  message(FATAL_ERROR "No Python environment at ${TORCHIR_PYTHON}: run scripts/deps.sh")
endif()
execute_process(
  COMMAND "${TORCHIR_PYTHON}" -c "import os, torch; print(os.path.dirname(torch.__file__)); print(int(torch.compiled_with_cxx11_abi())); print(torch.__version__)"
  OUTPUT_VARIABLE _torch_info OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _torch_rc)
if(NOT _torch_rc EQUAL 0)
  message(FATAL_ERROR "torch is not importable with ${TORCHIR_PYTHON}")
endif()
string(REPLACE "\n" ";" _torch_info "${_torch_info}")
list(GET _torch_info 0 TORCH_DIR)
list(GET _torch_info 1 TORCH_CXX11_ABI)
list(GET _torch_info 2 TORCH_VERSION)
message(STATUS "libtorch ${TORCH_VERSION} from ${TORCH_DIR}")

foreach(lib c10 torch_cpu)
  add_library(torch::${lib} SHARED IMPORTED)
  set_target_properties(torch::${lib} PROPERTIES
    IMPORTED_LOCATION "${TORCH_DIR}/lib/lib${lib}.so"
    INTERFACE_INCLUDE_DIRECTORIES "${TORCH_DIR}/include;${TORCH_DIR}/include/torch/csrc/api/include"
    INTERFACE_COMPILE_DEFINITIONS "_GLIBCXX_USE_CXX11_ABI=${TORCH_CXX11_ABI}")
endforeach()
set_target_properties(torch::torch_cpu PROPERTIES INTERFACE_LINK_LIBRARIES torch::c10)
# Our binaries find the wheel's libraries where they are.
set(CMAKE_BUILD_RPATH "${TORCH_DIR}/lib")
set(CMAKE_INSTALL_RPATH "${TORCH_DIR}/lib")
