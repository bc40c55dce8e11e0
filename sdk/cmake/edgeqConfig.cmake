# edgeq's CMake package: find_package(edgeq) gives
#   edgeq::edgeq         libedgeq.a (static; links Debian's cpuinfo, pthreadpool, XNNPACK shared)
#   edgeq::edgeq_shared  libedgeq.so (exports only edgeq_*)
get_filename_component(_edgeq_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
find_package(Threads REQUIRED)
find_library(EDGEQ_XNNPACK_LIBRARY XNNPACK REQUIRED)
find_library(EDGEQ_PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
find_library(EDGEQ_CPUINFO_LIBRARY cpuinfo REQUIRED)

if(NOT TARGET edgeq::edgeq)
  add_library(edgeq::edgeq STATIC IMPORTED)
  set_target_properties(edgeq::edgeq PROPERTIES
    IMPORTED_LOCATION "${_edgeq_prefix}/lib/libedgeq.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_edgeq_prefix}/include"
    IMPORTED_LINK_INTERFACE_LANGUAGES "CXX"
    INTERFACE_LINK_LIBRARIES
      "${EDGEQ_XNNPACK_LIBRARY};${EDGEQ_PTHREADPOOL_LIBRARY};${EDGEQ_CPUINFO_LIBRARY};stdc++;m;Threads::Threads")
endif()
if(NOT TARGET edgeq::edgeq_shared)
  add_library(edgeq::edgeq_shared SHARED IMPORTED)
  set_target_properties(edgeq::edgeq_shared PROPERTIES
    IMPORTED_LOCATION "${_edgeq_prefix}/lib/libedgeq.so"
    IMPORTED_SONAME "libedgeq.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_edgeq_prefix}/include")
endif()
set(edgeq_FOUND TRUE)
