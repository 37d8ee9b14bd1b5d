# KONFORM_CUDA: whether the `cuda` backend (impl/cuda, libtl_cuda.so) is built.
#   AUTO (default): when nvcc is found (PATH, CUDACXX, CMAKE_CUDA_COMPILER, or
#                   /usr/local/cuda/bin/nvcc, which is not on PATH by default)
#   ON:             required; configure fails without nvcc
#   OFF:            never
# Sets KONFORM_HAVE_CUDA. Building needs no GPU; running does (docs/cuda.md).
set(KONFORM_CUDA AUTO CACHE STRING "Build the cuda backend: AUTO (when nvcc is found), ON (required) or OFF")
set_property(CACHE KONFORM_CUDA PROPERTY STRINGS AUTO ON OFF)
set(KONFORM_CUDA_DEFAULT_NVCC /usr/local/cuda/bin/nvcc CACHE FILEPATH "nvcc tried when none is on PATH")
set(KONFORM_HAVE_CUDA OFF)

string(TOUPPER "${KONFORM_CUDA}" _konform_cuda_mode)
if(_konform_cuda_mode STREQUAL "AUTO")
  set(_konform_cuda_required OFF)
elseif(_konform_cuda_mode MATCHES "^(ON|YES|TRUE|1|Y)$")
  set(_konform_cuda_required ON)
elseif(NOT _konform_cuda_mode MATCHES "^(OFF|NO|FALSE|0|N|IGNORE)$")
  message(FATAL_ERROR "KONFORM_CUDA='${KONFORM_CUDA}': expected AUTO, ON or OFF")
endif()

if(NOT _konform_cuda_mode MATCHES "^(OFF|NO|FALSE|0|N|IGNORE)$")
  # check_language searches PATH (or CUDACXX) only: point it at the usual
  # install when neither names one. A compiler given outright must exist, or
  # enable_language would stop the whole configure even in AUTO mode.
  if(DEFINED CMAKE_CUDA_COMPILER AND CMAKE_CUDA_COMPILER AND NOT EXISTS "${CMAKE_CUDA_COMPILER}")
    set(_konform_cuda_missing "CMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER} does not exist")
  else()
    if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
      find_program(_konform_nvcc_on_path nvcc NO_CACHE)
      if(NOT _konform_nvcc_on_path AND EXISTS "${KONFORM_CUDA_DEFAULT_NVCC}")
        set(ENV{CUDACXX} "${KONFORM_CUDA_DEFAULT_NVCC}")
      endif()
    endif()
    # "native" needs a GPU at configure time; CUDA 13 has nothing below sm_75.
    # 90 carries PTX too, so newer GPUs can JIT it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      enable_language(CUDA)
      set(KONFORM_HAVE_CUDA ON)
    else()
      set(_konform_cuda_missing "no nvcc on PATH, in CUDACXX or at ${KONFORM_CUDA_DEFAULT_NVCC}")
    endif()
  endif()
  if(NOT KONFORM_HAVE_CUDA)
    if(_konform_cuda_required)
      message(FATAL_ERROR "KONFORM_CUDA=ON but CUDA cannot be enabled: ${_konform_cuda_missing}")
    endif()
    message(STATUS "konform: the cuda backend is not built (${_konform_cuda_missing}); -DKONFORM_CUDA=OFF silences this")
  endif()
endif()

if(KONFORM_HAVE_CUDA)
  if(CCACHE_PROGRAM)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  endif()
  message(STATUS "konform: the cuda backend is built with ${CMAKE_CUDA_COMPILER} "
                 "(${CMAKE_CUDA_COMPILER_VERSION}) for ${CMAKE_CUDA_ARCHITECTURES}")
endif()
