/* What the server refuses before a request's body is read, and what it
 * makes of libmicrohttpd's words about clients: the framing of a request,
 * the process's budget of buffered bodies (api/srv.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/req_int.h"
#include "api/srv_int.h"

/* Request body bytes buffered by every server of the process: one
 * budget, as they share one memory. */
static atomic_size_t srv_buffered;

size_t srv_buffered_bytes(void) { return atomic_load(&srv_buffered); }

struct srv_framing {
  unsigned ncl, nte;
  bool     other_coding;
};

static enum MHD_Result srv_frame_hdr(void *cls, enum MHD_ValueKind kind, const char *k,
                                     const char *v)
{
  struct srv_framing *f = cls;
  (void)kind;
  if(!strcasecmp(k, "Content-Length"))
    f->ncl++;
  else if(!strcasecmp(k, "Transfer-Encoding") && ++f->nte && (!v || strcasecmp(v, "chunked")))
    f->other_coding = true;
  return MHD_YES;
}

/* Where a request ends must not be open to two readings: libmicrohttpd
 * 0.9.75 takes chunked over Content-Length, the first of several
 * Content-Length headers, and reads no body at all under a coding other
 * than chunked, where a proxy in front may read another; whatever it
 * leaves would be parsed as the next request on the connection. Every
 * instance of a header is listed here (MHD's lookup sees the first), and
 * the answer closes the connection. A malformed or negative
 * Content-Length never gets here: MHD answers 400 and closes itself. */
bool srv_framing_bad(struct api_req *rq)
{
  struct srv_framing f = { 0 };
  const char *why = NULL;
  unsigned status = 400;
  MHD_get_connection_values(rq->conn, MHD_HEADER_KIND, srv_frame_hdr, &f);
  if(f.nte && f.ncl)
    why = "Content-Length and Transfer-Encoding together";
  else if(f.ncl > 1)
    why = "several Content-Length headers";
  else if(f.nte > 1)
    why = "several Transfer-Encoding headers";
  else if(f.other_coding) {
    why = "a transfer coding other than chunked";
    status = 501;
  }
  if(!why)
    return false;
  api_reply_header(rq, "Connection", "close");
  api_problem(rq, status, status == 400 ? "ambiguous-framing" : "unsupported-transfer-coding",
              status == 400 ? "Ambiguous request framing" : "Transfer coding not supported",
              NULL, "%s: where the body ends cannot be told; the connection is closed", why);
  return true;
}

/* Does a body follow the head? (Answering before it closes the
 * connection; answering a request without one keeps it open.) */
bool srv_has_body(struct MHD_Connection *conn)
{
  const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
  return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding") ||
         (cl && strtoull(cl, NULL, 10) > 0);
}

/* n more body bytes held by rq, within the process's budget. */
bool srv_reserve(struct api_req *rq, size_t n, size_t budget)
{
  size_t cur = atomic_load(&srv_buffered);
  do {
    if(budget && (cur + n > budget || cur + n < cur))
      return false;
  } while(!atomic_compare_exchange_weak(&srv_buffered, &cur, cur + n));
  rq->reserved += n;
  return true;
}

void srv_release(struct api_req *rq)
{
  atomic_fetch_sub(&srv_buffered, rq->reserved);
  rq->reserved = 0;
}

void srv_over_budget(struct api_req *rq, size_t budget)
{
  api_reply_header(rq, "Retry-After", "1");
  api_problem(rq, 503, "overloaded", "Too many request bodies in memory", NULL,
              "request bodies under way hold the server's budget of %zu bytes; retry",
              budget);
}

/* What libmicrohttpd 0.9.75 says about a client (its messages, by the
 * words that tell them apart): the client's doing, and frequent under
 * abuse, so counted rather than logged. */
enum srv_mhd_kind srv_mhd_kind(const char *msg)
{
  static const struct { const char *words; enum srv_mhd_kind kind; } known[] = {
    { "closed by remote side", SRV_MHD_PEER_GONE },
    { "forcibly closed by remote peer", SRV_MHD_PEER_GONE },
    { "disconnected when reading request", SRV_MHD_PEER_GONE },
    { "socket is closed when reading request", SRV_MHD_PEER_GONE },
    { "Error processing request (HTTP response code is 4", SRV_MHD_MALFORMED },
    { "Server reached connection limit", SRV_MHD_FULL },
    /* the reason of the next "Error processing request" */
    { "`Content-Length' header", SRV_MHD_DETAIL },
    { "'Content-Length' header", SRV_MHD_DETAIL },
    { "without `Host' header", SRV_MHD_DETAIL },
  };
  for(size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if(strstr(msg, known[i].words))
      return known[i].kind;
  return SRV_MHD_OTHER;
}
