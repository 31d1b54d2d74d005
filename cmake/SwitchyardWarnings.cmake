# sy_set_warnings(target): the project's warning flags, applied per target so that
# third-party code pulled in by find_package is not affected.
function(sy_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                             -Wnon-virtual-dtor -Wimplicit-fallthrough
                                             -Wno-missing-field-initializers)
  endif()
  # GCC 12 at -O3 reports "literal" + std::to_string(...) as an overlapping memcpy
  # (-Wrestrict, GCC bug 105329, fixed in GCC 13): a false positive that would fill the
  # README's build output. Off for GCC 12 only.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()
