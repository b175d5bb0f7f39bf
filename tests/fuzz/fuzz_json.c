/* JSON input of the REST APIs: arbitrary bytes through the body decoder the
 * routes use (api/jin.c via a test request) and the fetcher's FetchRequest
 * decoder (llfs/req.c). Whatever the input: no crash, no leak, and either a
 * decoded request within the limits or an answer naming a field. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/jin.h"
#include "api/req_test.h"
#include "api/srv.h"
#include "common/mem.h"
#include "llfs/req.h"

static const struct llfs_limits lim = {
  .connect_timeout_ms = 5000, .timeout_ms = 30000, .max_body = 1 << 20,
  .max_decoded = 4 << 20, .max_url_len = 2048,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *body = malloc(size + 1);
  if(!body)
    return 0;
  memcpy(body, data, size);
  body[size] = '\0';
  struct api_req *rq = api_req_test_new("POST", "/internal/v1/fetch", body);
  free(body);
  if(!rq)
    return 0;
  api_req_test_set_header(rq, "Content-Type", "application/json");
  json_t *j = jin_body(rq);
  if(j) {
    struct llfs_req r;
    struct llfs_req_err e;
    if(llfs_req_decode(j, &lim, &r, &e) == 0) {
      if(!r.url || r.nheaders > LLFS_MAX_HEADERS || r.timeout_ms > lim.timeout_ms ||
         r.max_body > lim.max_body || strlen(r.url) > lim.max_url_len ||
         r.hold_us > (uint64_t)LLFS_MAX_HOLD_US)
        abort();
      llfs_req_clear(&r);
    } else if(!e.e.field[0] || (e.status != 400 && e.status != 422)) {
      abort();
    }
    json_decref(j);
  } else if(api_req_test_status(rq) < 400) {
    abort();  /* a refused body must have been answered */
  }
  api_req_test_free(&rq);
  return 0;
}
