# CMake toolchain file for Debian's aarch64 cross compiler (gcc-aarch64-linux-gnu).
#   cmake -DCMAKE_TOOLCHAIN_FILE=toolchain-aarch64.cmake -DCMAKE_PREFIX_PATH=<sdk> .
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# cpuinfo, pthreadpool and XNNPACK for arm64 come from the sysroot tools/setup.sh extracts.
set(EDGEQ_ARM64_SYSROOT "/opt/edgeq/arm64-sysroot" CACHE PATH "arm64 libraries not multiarch-installable")
set(CMAKE_LIBRARY_PATH "${EDGEQ_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu;/usr/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,-rpath-link,${EDGEQ_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,/usr/lib/aarch64-linux-gnu")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
