// A plugin that cannot serve any host: sy_plugin_query returns null.
#include "switchyard/plugin.h"

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t) { return nullptr; }
