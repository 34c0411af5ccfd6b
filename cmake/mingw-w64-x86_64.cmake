# Cross-build for 64-bit Windows with mingw-w64 (Debian: gcc-mingw-w64-x86-64):
#   cmake -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# Programs run under Wine (wine64).  Packages installed for Windows are
# found under CMAKE_FIND_ROOT_PATH: add their prefix to it (or give
# <Package>_DIR).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(TRACE2_MINGW_TRIPLE x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${TRACE2_MINGW_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${TRACE2_MINGW_TRIPLE}-g++)
set(CMAKE_RC_COMPILER ${TRACE2_MINGW_TRIPLE}-windres)

list(APPEND CMAKE_FIND_ROOT_PATH /usr/${TRACE2_MINGW_TRIPLE})
# Programs from the host; libraries, headers and packages for Windows only.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
