/* File: bindings/c/include/dynarock/dynarock.h
 *
 * Dynarock's C ABI: DynamoDB inside your process, callable from C and from any
 * language with a C foreign-function interface (Python's ctypes, Rust, Go, ...).
 *
 * Requests and responses are DynamoDB's own JSON, exactly what an AWS SDK puts
 * on the wire for the operation (the body of a POST with X-Amz-Target
 * "DynamoDB_20120810.<Operation>"); errors carry DynamoDB's error type
 * ("ValidationException", "ConditionalCheckFailedException", ...), its message
 * and the HTTP status DynamoDB would answer with.
 *
 *   dynarock_db* db = NULL;
 *   dynarock_error* err = NULL;
 *   if (dynarock_open("./data", NULL, &db, &err) != DYNAROCK_OK) { ... }
 *   char* out = NULL;
 *   if (dynarock_execute(db, "ListTables", "{}", &out, &err) == DYNAROCK_OK) {
 *     puts(out);              // {"TableNames":[...]}
 *     dynarock_free(out);
 *   } else {
 *     fprintf(stderr, "%s: %s\n", dynarock_error_type(err), dynarock_error_message(err));
 *     dynarock_error_free(err);
 *   }
 *   dynarock_close(db);
 *
 * Conventions:
 *   - Every call that can fail returns a dynarock_code. On failure, when `error`
 *     is not NULL, *error receives an error the caller frees with
 *     dynarock_error_free. On success *error is left untouched.
 *   - Every string returned through an out parameter is NUL-terminated UTF-8,
 *     owned by the caller and freed with dynarock_free.
 *   - NULL pointers, invalid JSON, unknown operations and handles already closed
 *     are reported as errors (DYNAROCK_INVALID_ARGUMENT, or a DynamoDB error
 *     type for the request itself); no call aborts the process and no C++
 *     exception crosses this boundary.
 *
 * Threads: every function may be called from any thread. One database handle
 * may be used by many threads at once; closing it while calls on it are in
 * flight is safe (the database closes when the last of them returns), and calls
 * after dynarock_close fail with DYNAROCK_CLOSED.
 *
 * One process may open a data directory once; a second process (or a second
 * open in this process) gets DYNAROCK_ERROR with the message "... is in use by
 * another process".
 */

#ifndef DYNAROCK_DYNAROCK_H_
#define DYNAROCK_DYNAROCK_H_

#include <stddef.h>
#include <stdint.h>

#include "dynarock/version.h"

#if defined(_WIN32)
#define DYNAROCK_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define DYNAROCK_EXPORT __attribute__((visibility("default")))
#else
#define DYNAROCK_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dynarock_code {
  DYNAROCK_OK = 0,
  /* The request failed as DynamoDB would fail it: the error's type says how. */
  DYNAROCK_ERROR = 1,
  /* A NULL pointer, or options that are not a JSON object of known members. */
  DYNAROCK_INVALID_ARGUMENT = 2,
  /* The handle was closed. */
  DYNAROCK_CLOSED = 3
} dynarock_code;

typedef struct dynarock_db dynarock_db;
typedef struct dynarock_server dynarock_server;
typedef struct dynarock_error dynarock_error;

/* The library's version, "MAJOR.MINOR.PATCH" (DYNAROCK_VERSION_STRING of the
 * headers it was built with; compare to detect a mismatched library). */
DYNAROCK_EXPORT const char* dynarock_version(void);

/* ---------------------------------------------------------------- errors */

/* DynamoDB's error type without its namespace, e.g. "ResourceNotFoundException";
 * "InvalidArgument" or "ClosedHandle" for this ABI's own errors. */
DYNAROCK_EXPORT const char* dynarock_error_type(const dynarock_error* error);
/* The message, as DynamoDB words it. */
DYNAROCK_EXPORT const char* dynarock_error_message(const dynarock_error* error);
/* The HTTP status DynamoDB answers this error with (400, 500, ...). */
DYNAROCK_EXPORT int dynarock_error_http_status(const dynarock_error* error);
/* The error as DynamoDB's JSON error body: {"__type":"...#Type","message":"..."}
 * plus any payload (CancellationReasons, Item); owned by the error. */
DYNAROCK_EXPORT const char* dynarock_error_json(const dynarock_error* error);
DYNAROCK_EXPORT void dynarock_error_free(dynarock_error* error);

/* Frees a string this library returned. NULL is ignored. */
DYNAROCK_EXPORT void dynarock_free(void* p);

/* ---------------------------------------------------------------- databases */

/* Opens (creating when missing) the database in directory `path`; NULL keeps
 * everything in memory. `options_json` is NULL or a JSON object whose members
 * are all optional:
 *   "in_memory": bool             (also implied by a NULL path)
 *   "create_if_missing": bool     (true)
 *   "sync_writes": bool           (false: an acknowledged write survives a
 *                                  process crash; true: also a power cut)
 *   "read_only": bool             (false)
 *   "region": string, "account_id": string   (put into ARNs)
 *   "block_cache_bytes": number   (32 MiB)
 *   "write_buffer_bytes": number  (RocksDB's memtable size; 0 = default)
 *   "memory_budget_bytes": number (block cache and memtables together; 0 = none)
 *   "max_open_files": number      (-1 = unlimited)
 *   "background_jobs": number     (flush and compaction threads, 1-64; 2)
 *   "small_device": bool          (small caches and buffers, fewer threads:
 *                                  docs/embedding.md gives the numbers)
 *   "ttl_sweep_seconds": number   (5; 0 turns expiry off)
 * An unknown member or a value of the wrong type is DYNAROCK_INVALID_ARGUMENT. */
DYNAROCK_EXPORT dynarock_code dynarock_open(const char* path, const char* options_json,
                                            dynarock_db** db, dynarock_error** error);

/* Closes the database (after calls in flight on it return). NULL is ignored;
 * closing twice is harmless. */
DYNAROCK_EXPORT void dynarock_close(dynarock_db* db);

/* Runs one DynamoDB operation. `operation` is the name after
 * "DynamoDB_20120810." ("PutItem", "Query", "TransactWriteItems", ...) or a
 * DynamoDB Streams target ("DynamoDBStreams_20120810.GetRecords");
 * `request_json` is its request body. On success *response_json receives the
 * response body. An unknown operation is DYNAROCK_ERROR with type
 * "UnknownOperationException". */
DYNAROCK_EXPORT dynarock_code dynarock_execute(dynarock_db* db, const char* operation,
                                               const char* request_json, char** response_json,
                                               dynarock_error** error);

/* Fault injection for tests (docs/architecture.md, "Fault injection and the
 * request log"): replaces the database's fault rules with `rules_json`
 * ({"seed":N,"rules":[...]}, the format of `dynarock serve --faults`); NULL or
 * "" removes them. A bad rule set is DYNAROCK_ERROR with type
 * "ValidationException" and changes nothing. When `state_json` is not NULL it
 * receives (free with dynarock_free) the rules with their counters
 * ({"seed":N,"rules":[{...,"matched":M,"fired":F}],...}); pass rules_json NULL
 * and a state_json to read them after clearing, or use the same call with the
 * current rules. Without a connection to drop, a "drop_before_apply" or
 * "drop_after_apply" rule makes dynarock_execute fail with
 * "InternalServerError" (the write applied or not as the rule says). */
DYNAROCK_EXPORT dynarock_code dynarock_set_faults(dynarock_db* db, const char* rules_json,
                                                  char** state_json, dynarock_error** error);

/* The fault rules and their counters, as dynarock_set_faults' state_json,
 * without changing them. */
DYNAROCK_EXPORT dynarock_code dynarock_get_faults(dynarock_db* db, char** state_json,
                                                  dynarock_error** error);

/* Capacity enforcement for tests (docs/architecture.md, "Capacity
 * enforcement"; `dynarock serve --enforce-capacity`): with settings_json
 * {"enforce":true} requests beyond their tables' provisioned throughput (or an
 * on-demand table's maximum) fail with ProvisionedThroughputExceededException
 * or ThrottlingException, batches return what was throttled unprocessed;
 * {"partitionLimits":true} also limits each partition key to 3,000 read and
 * 1,000 write units a second. Off when the database opens. NULL or "" changes
 * nothing. A bad setting is DYNAROCK_ERROR with type "ValidationException"
 * and changes nothing. When `state_json` is not NULL it receives (free with
 * dynarock_free) {"enforce":B,"partitionLimits":B,"burstSeconds":N,
 * "buckets":[{"table","index","kind","partitionKey","units","rate","burst"}]}. */
DYNAROCK_EXPORT dynarock_code dynarock_set_capacity(dynarock_db* db, const char* settings_json,
                                                    char** state_json, dynarock_error** error);

/* ---------------------------------------------------------------- the graph layer */

/* Runs one graph operation on the database (graph/graph.h), with JSON in and
 * out; docs/embedding.md lists them. Each takes "Table" (default "graph"):
 *   "PutNode"    {"Id":id,"Attributes":{name: AttributeValue}}
 *   "GetNode"    {"Id":id}                 -> {"Node":{"Id","Type","Attributes"}} or {}
 *   "DeleteNode" {"Id":id}                 -> {"Done":bool,"EdgesDeleted":n}
 *   "AddEdge"    {"Source":id,"Type":t,"Target":id,"Properties":{...}}
 *   "RemoveEdge" {"Source":id,"Type":t,"Target":id}
 *   "OutEdges", "InEdges" {"Node":id,"Type":t,"Limit":n,"PageToken":s}
 *                -> {"Edges":[{"Source","Type","Target","Properties"}],"NextPageToken"}
 *   "Traverse"   {"Start":[id],"Steps":[{"Direction":"OUT"|"IN","Types":[t],
 *                 "Key":{"Op","Value","Value2"},"EdgeFilter":{"Expression","Names",
 *                 "Values"},"ValidAt":n,"NodeFilter":{...},"FanOut":n}],
 *                 "Limit":n,"Cursor":s,"MaxVisited":n}
 *                -> {"Results":[id],"Levels":[[id]],"Truncated":bool,"NextCursor":s,
 *                    "Steps":[{"Plan","Frontier","Reached","Requests","ItemsRead",
 *                              "ReadUnits"}]}
 * The graph's table is created on first use. */
DYNAROCK_EXPORT dynarock_code dynarock_graph_execute(dynarock_db* db, const char* operation,
                                                     const char* request_json,
                                                     char** response_json,
                                                     dynarock_error** error);

/* ---------------------------------------------------------------- streams */

/* Called with each DynamoDB Streams record of a table, as the JSON of a
 * GetRecords "Records" element, on a thread of the library's; `record_json` is
 * valid only during the call. Return 0 to go on, non-zero to stop. */
typedef int (*dynarock_stream_callback)(void* context, const char* record_json);

typedef struct dynarock_subscription dynarock_subscription;

/* Delivers every change to `table` (which must have a stream enabled) made from
 * now on, in order per item, until dynarock_unsubscribe. */
DYNAROCK_EXPORT dynarock_code dynarock_subscribe(dynarock_db* db, const char* table,
                                                 dynarock_stream_callback callback,
                                                 void* context,
                                                 dynarock_subscription** subscription,
                                                 dynarock_error** error);
/* Stops delivery and waits for a callback in progress to return. Must not be
 * called from the callback. NULL is ignored. */
DYNAROCK_EXPORT void dynarock_unsubscribe(dynarock_subscription* subscription);

/* ---------------------------------------------------------------- the endpoint */

/* Serves the database over DynamoDB's HTTP protocol on threads inside this
 * process, so that any AWS SDK can use it: `address` is "host:port" (port 0
 * picks a free one; NULL means "127.0.0.1:0"). The bound port goes to *port.
 * The database must stay open while the server runs. */
DYNAROCK_EXPORT dynarock_code dynarock_serve_start(dynarock_db* db, const char* address,
                                                   uint16_t* port, dynarock_server** server,
                                                   dynarock_error** error);
/* Stops the endpoint (finishing requests in flight) and frees it. NULL is ignored. */
DYNAROCK_EXPORT void dynarock_serve_stop(dynarock_server* server);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* DYNAROCK_DYNAROCK_H_ */
