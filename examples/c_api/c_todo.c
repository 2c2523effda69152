/* The C ABI (dynarock/dynarock.h) from plain C: DynamoDB's own JSON in and
 * out, DynamoDB's error types. Build with pkg-config:
 *
 *   cc c_todo.c $(pkg-config --cflags --libs dynarock) -o c_todo
 */
#include <stdio.h>
#include <stdlib.h>

#include "dynarock/dynarock.h"

/* Runs one operation; prints the response (or "ok" when `quiet`), or the error,
 * under `label`. */
static int run(dynarock_db* db, const char* label, const char* op, const char* json, int quiet) {
  char* out = NULL;
  dynarock_error* err = NULL;
  if (dynarock_execute(db, op, json, &out, &err) != DYNAROCK_OK) {
    printf("%s: %s: %s\n", label, dynarock_error_type(err), dynarock_error_message(err));
    dynarock_error_free(err);
    return 1;
  }
  printf("%s: %s\n", label, quiet ? "ok" : out);
  dynarock_free(out);
  return 0;
}

int main(void) {
  dynarock_db* db = NULL;
  dynarock_error* err = NULL;
  /* NULL path: in memory. Options are a JSON object (see dynarock.h). */
  if (dynarock_open(NULL, "{\"small_device\":true}", &db, &err) != DYNAROCK_OK) {
    fprintf(stderr, "open: %s\n", dynarock_error_message(err));
    dynarock_error_free(err);
    return 1;
  }
  printf("dynarock %s\n", dynarock_version());
  run(db, "create", "CreateTable",
      "{\"TableName\":\"todos\",\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],"
      "\"AttributeDefinitions\":[{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}]}", 1);
  run(db, "put", "PutItem",
      "{\"TableName\":\"todos\",\"Item\":{\"id\":{\"S\":\"1\"},\"what\":{\"S\":\"buy milk\"}}}", 0);
  /* Only if absent: the second put is refused as DynamoDB refuses it. */
  run(db, "put again", "PutItem",
      "{\"TableName\":\"todos\",\"Item\":{\"id\":{\"S\":\"1\"}},"
      "\"ConditionExpression\":\"attribute_not_exists(id)\"}", 0);
  run(db, "get", "GetItem", "{\"TableName\":\"todos\",\"Key\":{\"id\":{\"S\":\"1\"}}}", 0);
  run(db, "bad request", "GetItem", "{\"TableName\":\"todos\",\"Key\":{}}", 0);
  dynarock_close(db);
  return 0;
}
