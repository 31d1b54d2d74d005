# switchyard_add_plugin(<name> SOURCES src... [LIBRARIES lib...] [OUTPUT_DIRECTORY dir])
#
# Builds a Switchyard backend plugin out of tree, against an installed SDK (included by
# SwitchyardConfig.cmake; see docs/writing-a-plugin.md):
#
#   - a MODULE library (loaded with dlopen, never linked) named libswitchyard_<name>.so,
#     by convention (the host tries every *.so in its plugin folders); the CMake target
#     is switchyard_<name>;
#   - linked to Switchyard::sdk (headers only) and LIBRARIES (PRIVATE);
#   - compiled with hidden visibility and linked with a version script so that the only
#     exported symbol is sy_plugin_query (check with nm -D --defined-only);
#   - linked with --no-undefined: a plugin must be self-contained, since the host
#     resolves none of its symbols;
#   - C++17 at least for C++ sources (plugin_cpp.h needs it);
#   - written to OUTPUT_DIRECTORY (default: <build>/lib/switchyard/plugins), a folder to
#     put in SWITCHYARD_PLUGIN_PATH.
#
# Installing it is the caller's choice, e.g.
#   install(TARGETS switchyard_<name> LIBRARY DESTINATION lib/switchyard/plugins)
if(CMAKE_VERSION VERSION_LESS 3.17)
  message(FATAL_ERROR "switchyard_add_plugin needs CMake 3.17 or newer")
endif()

function(switchyard_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "switchyard_add_plugin(${name}): no SOURCES given")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "switchyard_add_plugin(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/lib/switchyard/plugins")
  endif()

  # Next to this file in the installed package.
  set(exports_map "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/plugin_exports.map")
  set(target switchyard_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Switchyard::sdk ${ARG_LIBRARIES})
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(CXX IN_LIST languages)
    target_compile_features(${target} PRIVATE cxx_std_17)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME switchyard_${name}
    SUFFIX ".so"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}"
    LINK_DEPENDS "${exports_map}")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${target} PRIVATE
      "LINKER:--version-script=${exports_map}"
      "LINKER:--no-undefined")
  endif()
endfunction()
