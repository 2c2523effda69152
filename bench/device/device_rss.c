/* An embedded app on a small device: opens a database with the small-device
 * options, writes N items (default 10000) of ~100 bytes, then idles, and prints
 * its resident memory (VmRSS, and of it RssAnon, the process's own memory, and
 * RssFile, pages of the shared libraries' files; VmHWM) at each step.
 *
 *   device_rss DATA_DIR [ITEMS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dynarock/dynarock.h"

static long status_kb(const char* field) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  size_t n = strlen(field);
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, field, n) == 0 && line[n] == ':') kb = strtol(line + n + 1, NULL, 10);
  }
  if (f) fclose(f);
  return kb;
}

static void must(dynarock_code c, dynarock_error* err, const char* what) {
  if (c == DYNAROCK_OK) return;
  fprintf(stderr, "%s: %s\n", what, err ? dynarock_error_message(err) : "?");
  exit(1);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: device_rss DATA_DIR [ITEMS]\n");
    return 2;
  }
  int items = argc > 2 ? atoi(argv[2]) : 10000;
  printf("start: rss %ld KiB (anonymous %ld KiB, file-backed %ld KiB)\n", status_kb("VmRSS"),
         status_kb("RssAnon"), status_kb("RssFile"));
  dynarock_db* db = NULL;
  dynarock_error* err = NULL;
  must(dynarock_open(argv[1], "{\"small_device\":true,\"ttl_sweep_seconds\":0}", &db, &err), err,
       "open");
  char* out = NULL;
  must(dynarock_execute(db, "CreateTable",
                        "{\"TableName\":\"readings\",\"BillingMode\":\"PAY_PER_REQUEST\","
                        "\"KeySchema\":[{\"AttributeName\":\"device\",\"KeyType\":\"HASH\"},"
                        "{\"AttributeName\":\"ts\",\"KeyType\":\"RANGE\"}],"
                        "\"AttributeDefinitions\":[{\"AttributeName\":\"device\",\"AttributeType\":\"S\"},"
                        "{\"AttributeName\":\"ts\",\"AttributeType\":\"N\"}]}",
                        &out, &err),
       err, "create");
  dynarock_free(out);
  printf("open: rss %ld KiB\n", status_kb("VmRSS"));
  char req[512];
  for (int i = 0; i < items; ++i) {
    snprintf(req, sizeof req,
             "{\"TableName\":\"readings\",\"Item\":{\"device\":{\"S\":\"sensor-%02d\"},"
             "\"ts\":{\"N\":\"%d\"},\"celsius\":{\"N\":\"%d.%d\"},"
             "\"note\":{\"S\":\"reading %d of a small device's sensor log\"}}}",
             i % 16, 1764028800 + i, 15 + i % 20, i % 10, i);
    must(dynarock_execute(db, "PutItem", req, &out, &err), err, "put");
    dynarock_free(out);
  }
  printf("written %d: rss %ld KiB\n", items, status_kb("VmRSS"));
  must(dynarock_execute(db, "Query",
                        "{\"TableName\":\"readings\",\"KeyConditionExpression\":\"device = :d\","
                        "\"ExpressionAttributeValues\":{\":d\":{\"S\":\"sensor-03\"}},"
                        "\"Select\":\"COUNT\"}",
                        &out, &err),
       err, "query");
  printf("query: %s\n", out);
  dynarock_free(out);
  sleep(2);
  printf("idle: rss %ld KiB (anonymous %ld KiB, file-backed %ld KiB), peak %ld KiB\n",
         status_kb("VmRSS"), status_kb("RssAnon"), status_kb("RssFile"), status_kb("VmHWM"));
  dynarock_close(db);
  return 0;
}
