/*
 * Switchyard plugin ABI, version 1.
 *
 * The only header a backend vendor needs: pure C, standalone (only <stdint.h> and
 * <stddef.h>). A plugin is a shared object exporting exactly one symbol,
 *
 *     const sy_plugin_api* sy_plugin_query(uint32_t host_max_abi);
 *
 * which returns the plugin's function table, or NULL when the plugin cannot serve a
 * host that speaks at most `host_max_abi`.
 *
 * Versioning rules (docs/plugin-abi.md):
 *  - Every struct that crosses the boundary starts with `struct_size` (its sizeof as the
 *    writer was compiled) and `abi_version`. Structs only grow at the end; a reader looks
 *    at a member only when `struct_size` covers it. Released layouts are frozen by the
 *    static assertions at the end of this file.
 *  - The host accepts a plugin whose table says SY_PLUGIN_ABI_MIN_VERSION <= abi_version
 *    <= the host's SY_PLUGIN_ABI_VERSION; others are refused with a reason.
 *
 * Ownership and lifetime, in one place (each function repeats what applies to it):
 *  - Strings and arrays the host passes in are borrowed for the duration of the call
 *    only, unless a function says otherwise. A plugin that needs them later copies them.
 *  - Strings in the sy_plugin_info a plugin returns live as long as the library stays
 *    loaded (sy_plugin_query runs before any context exists; static storage is the
 *    usual choice). Strings in sy_device_info (and context_status's) live until
 *    `shutdown` of the context they came from.
 *  - sy_error objects are created by the plugin and destroyed by the host with
 *    `error_destroy`; the message lives until then.
 *  - Handles (sy_context, sy_buffer, sy_executable) are created and destroyed by the
 *    plugin, at the host's request. The host destroys executables and buffers before
 *    calling `shutdown`, and calls `shutdown` before unloading the library.
 *
 * Threading: `sy_plugin_query`, `initialize` and `shutdown` are called from one thread at
 * a time. Every other function may be called concurrently from several threads, except
 * that one sy_executable is never executed from two threads at once and a buffer is
 * never freed while another call uses it.
 *
 * Errors: functions return NULL for success or an sy_error* describing the failure. No
 * C++ exception, longjmp or abort may cross this boundary.
 */
#ifndef SWITCHYARD_PLUGIN_H_
#define SWITCHYARD_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SY_PLUGIN_ABI_VERSION 1u     /* the version this header describes */
#define SY_PLUGIN_ABI_MIN_VERSION 1u /* the oldest version a current host accepts */

#if defined(_WIN32)
#define SY_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SY_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------- scalar enums ---- */

/* Element types. Values are part of the ABI. */
typedef enum sy_dtype {
  SY_DTYPE_F32 = 0,
  SY_DTYPE_F16 = 1,
  SY_DTYPE_BF16 = 2,
  SY_DTYPE_F64 = 3,
  SY_DTYPE_I8 = 4,
  SY_DTYPE_U8 = 5,
  SY_DTYPE_I32 = 6,
  SY_DTYPE_I64 = 7,
  SY_DTYPE_BOOL = 8, /* one byte, 0 or 1 */
  /* Appended in SDK 1.x for ONNX's INT16, UINT16 and UINT32 (docs/plugin-abi.md). A
     plugin that does not know a code declines the node (plugin_cpp.h does). */
  SY_DTYPE_I16 = 9,
  SY_DTYPE_U16 = 10,
  SY_DTYPE_U32 = 11
} sy_dtype;

/* Error codes, as core's StatusCode. */
typedef enum sy_error_code {
  SY_ERROR_INVALID_ARGUMENT = 1, /* the host passed something malformed */
  SY_ERROR_NOT_FOUND = 3,
  SY_ERROR_UNSUPPORTED = 5,        /* well-formed but not implemented by this plugin */
  SY_ERROR_RESOURCE_EXHAUSTED = 6, /* out of device memory, or a limit */
  SY_ERROR_INTERNAL = 7,           /* a bug or a device failure */
  SY_ERROR_DATA = 8                /* run-time data error: index out of range, int div by 0 */
} sy_error_code;

typedef enum sy_device_kind {
  SY_DEVICE_CPU = 0,
  SY_DEVICE_DISCRETE_GPU = 1,
  SY_DEVICE_INTEGRATED_GPU = 2,
  SY_DEVICE_ACCELERATOR = 3
} sy_device_kind;

/* sy_device_info.flags */
#define SY_DEVICE_FLAG_HOST_MEMORY 0x1u /* buffers are host memory: buffer_host_pointer works */
#define SY_DEVICE_FLAG_REFERENCE 0x2u   /* a reference device: never chosen unless asked for */
#define SY_DEVICE_FLAG_F16 0x4u         /* computes f16 natively */
#define SY_DEVICE_FLAG_F64 0x8u         /* computes f64 natively */
/* Appended after the first release. The device runs every op of the catalogue on every
 * dtype the op allows: the host places there any node no device of the order takes
 * (docs/scheduling.md, "Fallback"). The CPU plugin's device "cpu" declares it; when
 * several devices do, the first loaded is the fallback. A host of the first release
 * ignores the flag (it fell back to the plugin named "cpu"). */
#define SY_DEVICE_FLAG_FALLBACK 0x10u
/* Appended after the first release. The device's `reshape` kernel accepts its output
 * bound to the very buffer handle its input is bound to, and then does nothing (the bytes
 * already are the output's). The host then gives a reshape's output its input's memory
 * where its memory plan allows (docs/plugin-abi.md, "Reshapes in place"), and the copy a
 * reshape would make is saved. A plugin that does not declare it always gets two buffers
 * that do not overlap. */
#define SY_DEVICE_FLAG_RESHAPE_IN_PLACE 0x20u
/* Appended after the first release. The device's executables run at other sizes: for a
 * graph with run-time sizes the host may run an executable prepared for one set of sizes
 * at another through `execute_resized`, instead of preparing the partition again
 * (docs/plugin-abi.md, "Executables that run at other sizes"). Read only together with a
 * non-NULL execute_resized. A plugin that does not declare it is prepared once per set of
 * sizes and never sees a size change. */
#define SY_DEVICE_FLAG_RESIZABLE 0x40u
/* Appended after the first release. The device's `cache_write` kernel accepts its output
 * bound to the very buffer handle its `cache` input is bound to, and then writes only the
 * update's entries: a session keeps a decoder's key and value cache in one buffer across
 * runs and appends to it in place (docs/decoding.md). Without it the host gives the output
 * a buffer of its own and copies it back after each run. */
#define SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE 0x80u

typedef enum sy_attr_kind {
  SY_ATTR_INT = 0,
  SY_ATTR_FLOAT = 1,
  SY_ATTR_STRING = 2,
  SY_ATTR_INTS = 3,
  SY_ATTR_FLOATS = 4,
  SY_ATTR_STRINGS = 5
} sy_attr_kind;

/* ------------------------------------------------------------- opaque handles ---- */

typedef struct sy_error sy_error;           /* plugin-owned; destroyed by error_destroy */
typedef struct sy_context sy_context;       /* one initialised plugin instance */
typedef struct sy_buffer sy_buffer;         /* device memory */
typedef struct sy_executable sy_executable; /* a prepared partition */

/* ---------------------------------------------------------- descriptive structs ---- */

typedef struct sy_plugin_info {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name;        /* lower-case identifier used in backend hints: "cpu", "cuda" */
  const char* version;     /* the plugin's own version, free form: "1.2.0" */
  const char* vendor;      /* "Switchyard", "Acme Corp" */
  const char* description; /* one line */
} sy_plugin_info;

/* Filled by the plugin in device_info; the host sets struct_size and abi_version first,
 * and the plugin writes only the members that both sides know. */
typedef struct sy_device_info {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name; /* "cpu", "NVIDIA H200", ... */
  const char* vendor;
  uint32_t kind;         /* sy_device_kind */
  uint32_t flags;        /* SY_DEVICE_FLAG_* */
  uint64_t memory_bytes; /* memory the device offers for buffers; 0 = unknown */
  /* Appended after the first release (read only when struct_size covers it): how the
   * device computes, free form, for people: the kernels or libraries chosen and the
   * instruction set they were chosen for ("matmul/conv: oneDNN 2.6 (avx512_core_amx)").
   * NULL or "" when the plugin says nothing. Lives as long as the context. */
  const char* details;
} sy_device_info;

/* A tensor's type: dtype, rank and dims (row-major, contiguous). */
typedef struct sy_tensor_type {
  uint32_t dtype; /* sy_dtype */
  uint32_t rank;
  const int64_t* dims; /* rank entries; may be NULL when rank is 0 */
} sy_tensor_type;

/* One attribute of a node; only the member that `kind` names is meaningful. */
typedef struct sy_attr {
  const char* name;
  uint32_t kind;  /* sy_attr_kind */
  uint32_t count; /* number of entries for list kinds */
  int64_t i;
  double f;
  const char* s;
  const int64_t* ints;
  const double* floats;
  const char* const* strings;
} sy_attr;

/* A node as the support query and partitions describe it. Its attributes are
 * normalised by the host: every attribute of the op's schema that has a default is
 * present, with its schema kind (docs/ops.md). */
typedef struct sy_node {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* op;   /* catalogue name: "matmul" */
  const char* name; /* label for messages; "" when the model gives none */
  uint32_t num_inputs;
  uint32_t num_outputs;
  const sy_tensor_type* inputs;  /* num_inputs entries */
  const sy_tensor_type* outputs; /* num_outputs entries */
  uint32_t num_attrs;
  uint32_t reserved; /* 0 */
  const sy_attr* attrs;
  /* In partitions only (NULL in support queries): the partition-local value index of
   * each input and output, into sy_partition.values. */
  const uint32_t* input_values;
  const uint32_t* output_values;
} sy_node;

/* A subgraph to prepare: nodes in a valid execution order over a local value table. */
typedef struct sy_partition {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t num_values;
  uint32_t num_nodes;
  const sy_tensor_type* values; /* num_values entries */
  const sy_node* nodes;         /* num_nodes entries, in execution order */
  /* Values bound by the host at execute time, in this order: first the partition's
   * inputs (which include its constants), then its outputs. Every other value is an
   * intermediate the plugin keeps to itself. */
  uint32_t num_inputs;
  uint32_t num_outputs;
  const uint32_t* inputs;
  const uint32_t* outputs;
  /* Appended after the first release (read only when struct_size covers it, and may be
   * NULL): num_inputs entries, one per entry of `inputs`: the host bytes of that value when
   * it is a constant of the model (weights), else NULL. Valid during prepare only; a
   * plugin that wants them later (reordered into a kernel's layout, say) copies them. At
   * execute the buffer bound for that input holds the same bytes, so a plugin may also
   * ignore this. */
  const void* const* constant_data;
  /* Appended after constant_data (read only when struct_size covers it, and may be NULL:
   * then every output counts as read outside). num_outputs entries, one per entry of
   * `outputs`: nonzero when nothing outside this partition reads that value (not a graph
   * output, no other partition or copy reads it); the host binds it only because its
   * memory plan covers every value. The plugin may store such a value in any layout of the
   * same byte size. */
  const uint8_t* outputs_internal;
} sy_partition;

/* The size of the first release's sy_partition: what a plugin must accept. */
#define SY_PARTITION_V1_SIZE offsetof(sy_partition, constant_data)

/* What the host tells a plugin at initialisation. */
typedef struct sy_init_options {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t num_threads; /* for CPU-side work; 0 = the plugin's default */
  uint32_t flags;       /* SY_INIT_FLAG_*; 0 from a host of the first release */
} sy_init_options;

/* sy_init_options.flags. CANONICAL_NODES: every node this host sends is canonical
 * (docs/plugin-abi.md, "Canonical nodes": validated, defaults filled, attributes resolved
 * against the shapes, output types inferred). A plugin that relies on it (all bundled
 * plugins do) refuses to initialise without it, rather than misread a host of the first
 * release, which sent attributes as the model wrote them. */
#define SY_INIT_FLAG_CANONICAL_NODES 0x1u

/* When one node of a partition ran, in nanoseconds from the start of the
 * execute_profiled call that ran it, on the plugin's clock (a host clock, or a device's
 * events). {0, 0}: not measured. */
typedef struct sy_node_time {
  uint64_t start_ns;
  uint64_t end_ns;
} sy_node_time;

/* ----------------------------------------------------------- the function table ---- */

typedef struct sy_plugin_api {
  uint32_t struct_size;
  uint32_t abi_version; /* the SY_PLUGIN_ABI_VERSION the plugin was built with */

  /* Static identity; lives as long as the library is loaded. */
  const sy_plugin_info* info;

  /* --- errors --- */
  /* The message of `error`, UTF-8, owned by the error. */
  const char* (*error_message)(const sy_error* error);
  uint32_t (*error_code)(const sy_error* error); /* sy_error_code */
  void (*error_destroy)(sy_error* error);

  /* --- lifecycle --- */
  /* Creates a context: finds devices, loads runtimes. A plugin whose runtime is absent
   * (no driver, no GPU) succeeds with zero devices and explains why in
   * `context_status`; it fails only when it cannot work at all. `options` is borrowed. */
  sy_error* (*initialize)(const sy_init_options* options, sy_context** out_context);
  /* Destroys the context; every buffer and executable of it must be gone already. */
  void (*shutdown)(sy_context* context);
  /* Why the context has no devices (or "" when it has some); owned by the context. */
  const char* (*context_status)(const sy_context* context);

  /* --- devices --- */
  uint32_t (*device_count)(const sy_context* context);
  /* Fills `info` (host-owned; the host sets struct_size and abi_version). */
  sy_error* (*device_info)(const sy_context* context, uint32_t device, sy_device_info* info);

  /* --- support query --- */
  /* Sets *supported to 1 when `device` can run `node` as described, else 0 and writes a
   * short reason (NUL-terminated, truncated to reason_capacity) into `reason`. `node`
   * is borrowed. Returns an error only for malformed arguments. */
  sy_error* (*supports_node)(const sy_context* context, uint32_t device, const sy_node* node,
                             uint32_t* supported, char* reason, size_t reason_capacity);

  /* --- buffers --- */
  /* Allocates `bytes` (0 is allowed) on `device`. Owned by the caller until
   * buffer_free. */
  sy_error* (*buffer_alloc)(sy_context* context, uint32_t device, uint64_t bytes,
                            sy_buffer** out_buffer);
  void (*buffer_free)(sy_buffer* buffer);
  /* The buffer's bytes as host memory, or NULL when not host addressable. Valid until
   * buffer_free. */
  void* (*buffer_host_pointer)(sy_buffer* buffer);
  /* Copies between host memory and a buffer. Ranges must lie inside the buffer. */
  sy_error* (*copy_host_to_device)(sy_buffer* dst, uint64_t dst_offset, const void* src,
                                   uint64_t bytes);
  sy_error* (*copy_device_to_host)(const sy_buffer* src, uint64_t src_offset, void* dst,
                                   uint64_t bytes);
  /* Between two buffers of this plugin (any of its devices). May be NULL: the host then
   * goes through host memory. */
  sy_error* (*copy_device_to_device)(sy_buffer* dst, uint64_t dst_offset, const sy_buffer* src,
                                     uint64_t src_offset, uint64_t bytes);

  /* --- partitions --- */
  /* Prepares `partition` for `device` once (kernel selection, compilation, workspace).
   * `partition` is borrowed; the executable copies what it needs. */
  sy_error* (*prepare)(sy_context* context, uint32_t device, const sy_partition* partition,
                       sy_executable** out_executable);
  /* Runs it. `buffers` has num_inputs + num_outputs entries in the order of
   * sy_partition's inputs then outputs, each sized for its value. Returns when outputs
   * are complete (synchronous in ABI v1). */
  sy_error* (*execute)(sy_executable* executable, uint32_t num_buffers, sy_buffer* const* buffers);
  void (*release)(sy_executable* executable);

  /* --- appended in ABI 1 (present when struct_size covers it; may be NULL) --- */
  /* A buffer aliasing bytes [offset, offset + bytes) of `parent`, usable wherever a
   * buffer of that size is: in copies and as a bound value of execute. The host plans
   * its memory as one arena per device and binds views of it; it aligns `offset` to
   * 256 bytes. The view is freed with buffer_free, does not own the memory and must be
   * freed before its parent. NULL: the host allocates each planned value separately. */
  sy_error* (*buffer_view)(sy_buffer* parent, uint64_t offset, uint64_t bytes,
                           sy_buffer** out_view);
  /* A buffer over host memory the caller owns, [host, host + bytes), for a device that
   * can use host memory in place (SY_DEVICE_FLAG_HOST_MEMORY). The host binds such
   * buffers only as partition inputs, so the plugin only reads them; the caller keeps
   * the memory valid until buffer_free, and the plugin never frees it. The host uses it
   * to pass graph inputs without copying them (for one run), and a model's read-only
   * weights (for the session's life); `host` is aligned to the element size only. May be
   * NULL, or fail with SY_ERROR_UNSUPPORTED: the host then copies. */
  sy_error* (*buffer_wrap_host)(sy_context* context, uint32_t device, void* host, uint64_t bytes,
                                sy_buffer** out_buffer);

  /* --- appended after the first release (present when struct_size covers it; may be
   * NULL) --- */
  /* execute, also writing when each node of the partition ran: `node_times` has
   * num_node_times entries, one per node of the sy_partition in its order (the host
   * passes the partition's num_nodes). Entries the plugin cannot measure stay {0, 0}.
   * Used only when the host profiles (switchyard run/bench --profile); a plugin without
   * it is shown as one event per partition. docs/profiling.md. */
  sy_error* (*execute_profiled)(sy_executable* executable, uint32_t num_buffers,
                                sy_buffer* const* buffers, sy_node_time* node_times,
                                uint32_t num_node_times);
  /* Runs `executable` at the sizes `partition` gives, for devices that declare
   * SY_DEVICE_FLAG_RESIZABLE. `partition` has the structure of the partition the
   * executable was prepared from: the same values, nodes, ops, operands, bindings, dtypes,
   * ranks, attribute names and kinds and constants; only dims, and attribute values the
   * host resolved against them (a reshape's `shape`, a slice's `ends`), may differ. It is
   * borrowed for the call; the host passes the same partition on every run at those sizes,
   * and may alternate between several sizes on one executable (never from two threads at
   * once). `buffers` are as for execute, sized for `partition`'s values. SY_ERROR_UNSUPPORTED
   * means this executable cannot run those sizes: the host then prepares `partition` and
   * does not offer this executable again; any other error fails the run, as execute's do. */
  sy_error* (*execute_resized)(sy_executable* executable, const sy_partition* partition,
                               uint32_t num_buffers, sy_buffer* const* buffers);
} sy_plugin_api;

/* The one exported symbol. Returns NULL when the plugin cannot serve this host. */
typedef const sy_plugin_api* (*sy_plugin_query_fn)(uint32_t host_max_abi);
#define SY_PLUGIN_QUERY_SYMBOL "sy_plugin_query"

#ifdef __cplusplus
} /* extern "C" */
#endif

/* Released layouts are frozen: on 64-bit targets these sizes and offsets never change.
 * A new member goes at the end of its struct, with a new assertion here. */
#if defined(__cplusplus)
#define SY_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SY_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#if UINTPTR_MAX == 0xffffffffffffffffu
SY_STATIC_ASSERT(offsetof(sy_plugin_info, name) == 8, "sy_plugin_info layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_info, description) == 32, "sy_plugin_info layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_device_info, details) == 40, "sy_device_info v1 layout is frozen");
SY_STATIC_ASSERT(sizeof(sy_device_info) == 48, "sy_device_info layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_device_info, memory_bytes) == 32, "sy_device_info layout is frozen");
SY_STATIC_ASSERT(sizeof(sy_tensor_type) == 16, "sy_tensor_type is frozen (no size field)");
SY_STATIC_ASSERT(sizeof(sy_attr) == 64, "sy_attr is frozen (no size field)");
SY_STATIC_ASSERT(sizeof(sy_node) == 80, "sy_node v1 layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_node, output_values) == 72, "sy_node layout is frozen");
SY_STATIC_ASSERT(SY_PARTITION_V1_SIZE == 56, "sy_partition v1 layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_partition, outputs_internal) == 64, "sy_partition layout is frozen");
SY_STATIC_ASSERT(sizeof(sy_partition) == 72, "sy_partition layout is frozen");
SY_STATIC_ASSERT(sizeof(sy_init_options) == 16, "sy_init_options v1 layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_api, info) == 8, "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_api, release) == 8 + 8 * 18, "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_api, buffer_view) == 8 + 8 * 19,
                 "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_api, buffer_wrap_host) == 8 + 8 * 20,
                 "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_api, execute_profiled) == 8 + 8 * 21,
                 "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(offsetof(sy_plugin_api, execute_resized) == 8 + 8 * 22,
                 "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(sizeof(sy_plugin_api) == 8 + 8 * 23, "sy_plugin_api layout is frozen");
SY_STATIC_ASSERT(sizeof(sy_node_time) == 16, "sy_node_time layout is frozen");
#endif
#undef SY_STATIC_ASSERT

#endif /* SWITCHYARD_PLUGIN_H_ */
