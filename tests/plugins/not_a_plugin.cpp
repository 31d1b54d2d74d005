// A valid shared library that is not a Switchyard plugin: no sy_plugin_query.
extern "C" __attribute__((visibility("default"))) int sy_test_not_a_plugin_answer() { return 42; }
