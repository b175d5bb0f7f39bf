#ifndef WPFS_API_REQ_INT_H
#define WPFS_API_REQ_INT_H
/* Inside the api library only: the request object shared by srv.c (which
 * drives it through MHD) and req.c (what handlers see). */
#include <microhttpd.h>
#include <stdint.h>

#include "api/srv.h"
#include "common/buf.h"

#define API_REQ_MAGIC 0x5a71e3c1u
#define API_MAX_HEADERS 64
#define API_MAX_ARGS 32
#define API_MAX_PARAMS 4

struct api_kv {
  const char *k;
  const char *v;
};

enum api_req_state {
  API_RQ_READING,   /* body still arriving */
  API_RQ_HANDLING,  /* handler owns it; connection suspended if async */
  API_RQ_ANSWERED,  /* response ready, to be queued */
  API_RQ_QUEUED,    /* handed to MHD */
};

struct api_req {
  unsigned magic;
  enum api_req_state st;
  struct api_srv *srv;            /* NULL for test requests */
  struct MHD_Connection *conn;
  bool suspended;
  bool too_large;
  bool over_budget;                /* the process's body budget was spent */
  size_t reserved;                 /* body bytes counted against that budget */
  int route;                       /* index in cfg routes, or -1 */
  char method[8];
  char *path;                      /* owned */
  char id[40];
  char client[64];                 /* who the handler said asked; "" = unknown */
  char work[64];                   /* the id of the work it made; "" = none */
  struct buf body;
  struct api_kv hdr[API_MAX_HEADERS];
  unsigned nhdr;
  struct api_kv arg[API_MAX_ARGS];
  unsigned narg;
  char *param[API_MAX_PARAMS];     /* owned */
  unsigned nparam;
  /* The answer. */
  unsigned status;
  char *resp_ctype;
  char *resp_body;
  size_t resp_len;
  struct api_kv resp_hdr[16];      /* owned strings */
  unsigned nresp_hdr;
  /* Pending work of the handler. */
  void (*on_abort)(void *);
  void *abort_arg;
  uint64_t t_start_us;
  struct api_req *next_ready;      /* on srv's list of answers to queue */
};

void api_req_free(struct api_req *rq);
/* Called by api_reply once the answer is stored. */
void api_srv_answered(struct api_srv *s, struct api_req *rq);

#endif
