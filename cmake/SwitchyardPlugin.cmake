# sy_add_plugin(NAME SOURCES sources... [LIBRARIES libs...] [INSTALL])
# INSTALL: a bundled plugin, installed by `cmake --install` (SwitchyardInstall.cmake reads
# the global property SY_INSTALLED_PLUGINS); test plugins leave it out.
# Builds a backend plugin as a MODULE library named libswitchyard_<NAME>.so with hidden
# visibility and a version script that exports only sy_plugin_query. In the build tree
# plugins land in <build>/lib/switchyard/plugins, the layout of an installed tree, which
# the CLI searches relative to its own bin/ folder.
set(SY_PLUGIN_OUTPUT_DIR ${CMAKE_BINARY_DIR}/lib/switchyard/plugins)
function(sy_add_plugin name)
  cmake_parse_arguments(ARG "INSTALL" "" "SOURCES;LIBRARIES" ${ARGN})
  set(target switchyard_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Switchyard::sdk ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${SY_PLUGIN_OUTPUT_DIR})
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/plugin_exports.map)
  if(NOT SY_SANITIZE)
    # A plugin must be self-contained; sanitizer runtimes come from the host executable.
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  sy_set_warnings(${target})
  if(ARG_INSTALL)
    set_property(GLOBAL APPEND PROPERTY SY_INSTALLED_PLUGINS ${target})
  endif()
endfunction()
