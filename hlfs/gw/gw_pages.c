/* GET and DELETE /v1/pages?url=...: the page cache, read (as JSON or raw)
 * or purged, without touching the site. Which copy: the shared one, or a
 * private key's own (hlfs/state/pages.h). A crawler reads the shared copy,
 * a private key its own; purging the shared copy (what every key reads) is
 * an operator's, a private key purges its own; an operator reaches a
 * private key's copy with client=NAME. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"
#include "hlfs/gw/gw.h"
#include "hlfs/fetch/fresh_pages.h"

/* ---- GET and DELETE /v1/pages?url=... (the page cache) --------------------------- */

struct gw_page_call {
  struct api_req *rq;
  struct gw *g;
  char *canon;
  bool aborted;
  bool raw;
};

static void page_call_free(struct gw_page_call *pc)
{
  mem_free(pc->canon);
  mem_free(pc);
}

static void page_call_abort(void *arg) { ((struct gw_page_call *)arg)->aborted = true; }

/* A stored page answered as JSON (tail: its body, base64) or raw. */
static void page_answer(struct gw_page_call *pc, store_err err, const struct page *p,
                        const char *tail, size_t tail_len, bool raw)
{
  if(pc->aborted) {
    page_call_free(pc);
    return;
  }
  api_req_on_abort(pc->rq, NULL, NULL);
  if(err)
    gw_store_down(pc->rq, err);
  else if(!p)
    api_problem(pc->rq, 404, "not-cached", "Not in the cache", NULL, "no stored copy of %s",
                pc->canon);
  else if(raw)
    gw_raw_page(pc->rq, p, NULL, NULL, clock_wall_ms());
  else
    gw_page_reply(pc->rq, p, tail, tail_len, NULL, clock_wall_ms());
  page_call_free(pc);
}

static void page_got(void *arg, store_err err, const struct page *p, const char *tail,
                     size_t tail_len)
{
  page_answer(arg, err, p, tail, tail_len, false);
}

static void page_raw_got(void *arg, store_err err, const struct page *p)
{
  page_answer(arg, err, p, NULL, 0, true);
}

static void page_deleted(void *arg, store_err err, bool existed)
{
  struct gw_page_call *pc = arg;
  if(!pc->aborted) {
    api_req_on_abort(pc->rq, NULL, NULL);
    if(err)
      gw_store_down(pc->rq, err);
    else
      api_reply_json(pc->rq, 200, json_pack("{s:s, s:b}", "url", pc->canon, "purged", existed));
  }
  page_call_free(pc);
}

/* Whose copy rq means: *owner NULL (the shared one) or a private key's.
 * -1 after answering 400 or 403. */
static int page_owner(struct gw *g, struct api_req *rq, const struct state_client *c, bool del,
                      const char **owner)
{
  const char *want = api_req_arg(rq, "client");
  bool op = auth_role_of(g->auth, c) == AUTH_ROLE_OPERATOR;
  *owner = auth_private(g->auth, c) ? c->name : NULL;
  if(want && !(*owner && !strcmp(want, *owner))) {  /* a private key naming itself: its own */
    const struct state_client *o = auth_find(g->auth, want);
    if(!op) {
      gw_forbidden(g, rq, c, "client= names another key's copies: for operator keys");
      return -1;
    }
    if(!o || !auth_private(g->auth, o)) {
      json_t *ext = json_pack("{s:s, s:s}", "field", "client", "reason", "a private key's client");
      api_problem(rq, 400, "invalid-parameter", "Invalid parameter", ext,
                  "client: no private key of that name (the shared copy needs no client=)");
      return -1;
    }
    *owner = o->name;
  }
  if(del && !*owner && !op) {
    gw_forbidden(g, rq, c, "purging the shared page cache is for operator keys");
    return -1;
  }
  return 0;
}

void gw_h_page(struct api_req *rq, void *arg)
{
  struct gw *g = arg;
  char key[PAGE_KEY_MAX];
  const char *owner;
  bool raw = false, del = !strcmp(api_req_method(rq), "DELETE");
  const struct state_client *c = gw_auth(g, rq);
  if(!c || page_owner(g, rq, c, del, &owner) || (!del && gw_wants_raw(rq, &raw)))
    return;
  char *canon = gw_canon(g, rq, "url", api_req_arg(rq, "url"));
  if(!canon)
    return;
  struct gw_page_call *pc = mem_calloc(1, sizeof *pc);
  if(!pc) {
    mem_free(pc);
    mem_free(canon);
    gw_store_down(rq, STORE_NOMEM);
    return;
  }
  *pc = (struct gw_page_call){ .rq = rq, .g = g, .canon = canon, .raw = raw };
  page_key_owned(canon, owner, key, sizeof key);
  if(del)
    fresh_pages_drop(g->fetch->fresh, key);
  store_err e = del ? page_del(g->pages, key, page_deleted, pc)
              : raw ? page_get(g->pages, key, page_raw_got, pc)
                    : gw_page_read(g, key, page_got, pc);
  if(e) {
    gw_store_down(rq, e);
    page_call_free(pc);
    return;
  }
  api_req_on_abort(rq, page_call_abort, pc);
}
