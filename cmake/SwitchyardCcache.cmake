# Compiles through ccache when it is installed (SY_CCACHE, on by default), with the
# source tree as its base directory, so that two build trees at the same depth below the
# sources share compiled objects: tools/test.sh builds build/release, then `pip install .`
# builds the Python package in build/<wheel tag> (pyproject.toml), and the second build
# finds the first one's objects instead of compiling the project again.
if(SY_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(SY_CCACHE_PROGRAM ccache)
  if(SY_CCACHE_PROGRAM)
    set(_sy_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
                     ${SY_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${_sy_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_sy_launcher})
    message(STATUS "Compiling through ${SY_CCACHE_PROGRAM}")
  endif()
endif()
