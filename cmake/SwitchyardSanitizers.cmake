# SY_SANITIZE=address,undefined builds everything with those sanitizers. UBSan is made
# fatal so that a finding fails the test instead of scrolling past in the log.
if(SY_SANITIZE)
  set(_sy_san_flags -fsanitize=${SY_SANITIZE} -fno-omit-frame-pointer)
  if(SY_SANITIZE MATCHES "undefined")
    list(APPEND _sy_san_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${_sy_san_flags})
  add_link_options(-fsanitize=${SY_SANITIZE})
endif()

# Fuzz builds instrument all of our code for coverage; only the fuzz targets link libFuzzer.
if(SY_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
