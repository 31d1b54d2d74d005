# sy_set_warnings(target): the project's warning flags, applied per target so that
# third-party code pulled in by find_package is not affected.
function(sy_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                             -Wnon-virtual-dtor -Wimplicit-fallthrough
                                             -Wno-missing-field-initializers)
  endif()
endfunction()
