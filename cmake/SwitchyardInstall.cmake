# `cmake --install <build> --prefix P` lays out the SDK and the runtime:
#
#   P/bin/switchyard                          the CLI
#   P/include/switchyard/*.h                  the SDK's headers (sdk/include/switchyard/)
#                                             and the host API's (core/include/switchyard/)
#   P/lib/libswitchyard_plugin_kit.a          the SDK's C++ plugin kit (static)
#   P/lib/libswitchyard_core.a                the runtime (static)
#   P/lib/switchyard/plugins/*.so             the bundled plugins
#   P/lib/cmake/Switchyard/                   find_package(Switchyard CONFIG): the targets
#                                             Switchyard::sdk and Switchyard::runtime, and
#                                             switchyard_add_plugin() for vendors
#
# Test plugins (tests/plugins), test and benchmark programs are never installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The plugin folder relative to the prefix; the host searches <exe>/../lib/switchyard/
# plugins, so it is lib/ whatever the platform's libdir (lib64, lib/<triplet>) is.
set(SY_INSTALL_PLUGIN_DIR lib/switchyard/plugins)
set(SY_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Switchyard)

# Headers: the SDK's and the host API's share include/switchyard/.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/switchyard
                  ${PROJECT_SOURCE_DIR}/core/include/switchyard
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

# Exported targets: Switchyard::sdk (the C ABI and plugin_cpp.h, headers only),
# Switchyard::plugin_kit (the SDK's C++20 kit: vocabulary types, decoded nodes and
# partitions) for plugin authors, and Switchyard::runtime (the core library, which uses
# the kit's vocabulary types) for host applications. The core is a static
# library, so its private dependencies (Boost.JSON, Boost.Filesystem, libdl) appear as
# link-only dependencies; SwitchyardConfig.cmake finds Boost for them.
set_target_properties(switchyard_sdk PROPERTIES EXPORT_NAME sdk)
set_target_properties(switchyard_plugin_kit PROPERTIES EXPORT_NAME plugin_kit)
set_target_properties(switchyard_core PROPERTIES EXPORT_NAME runtime)
install(TARGETS switchyard_sdk switchyard_plugin_kit switchyard_core
        EXPORT SwitchyardTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT SwitchyardTargets
        NAMESPACE Switchyard::
        FILE SwitchyardTargets.cmake
        DESTINATION ${SY_INSTALL_CMAKE_DIR})

# The bundled plugins this configuration builds: each plugins/<name>/CMakeLists.txt
# declares its own with sy_add_plugin(... INSTALL), so no backend is named here; test
# plugins (switchyard_test_*) do not declare it.
get_property(_sy_installed_plugins GLOBAL PROPERTY SY_INSTALLED_PLUGINS)
foreach(target IN LISTS _sy_installed_plugins)
  install(TARGETS ${target} LIBRARY DESTINATION ${SY_INSTALL_PLUGIN_DIR})
endforeach()

# The host finds its plugin probe at <exe>/../libexec/switchyard (plugin_probe.h).
install(TARGETS switchyard-plugin-probe switchyard-plugin-worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/switchyard)

if(SY_BUILD_TOOLS)
  # The CLI finds the plugins above through its own location (<exe>/../lib/...).
  install(TARGETS switchyard RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The package: config, version, the vendors' switchyard_add_plugin() and its linker
# version script.
set(SY_BOOST_VERSION ${Boost_VERSION_MAJOR}.${Boost_VERSION_MINOR}.${Boost_VERSION_PATCH})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/package/SwitchyardConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/SwitchyardConfig.cmake
  INSTALL_DESTINATION ${SY_INSTALL_CMAKE_DIR}
  PATH_VARS SY_INSTALL_PLUGIN_DIR)
# 0.x releases: only the same minor version promises a compatible host API.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/package/SwitchyardConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/SwitchyardConfig.cmake
              ${PROJECT_BINARY_DIR}/package/SwitchyardConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/package/SwitchyardPlugin.cmake
              ${PROJECT_SOURCE_DIR}/cmake/plugin_exports.map
        DESTINATION ${SY_INSTALL_CMAKE_DIR})
