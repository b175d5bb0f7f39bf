#include "clients/gwclient/gwproto.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/base/tally.h"
#include "common/mem.h"
#include "common/robots_tag.h"

/* ---- Requests ------------------------------------------------------------- */

crawl_err gwproto_batch_body(const struct gw_url *u, size_t n, struct buf *out)
{
  cm_err e = buf_adds(out, "{\"urls\":[");
  for(size_t i = 0; !e && i < n; i++) {
    e = buf_adds(out, i ? ",{\"url\":" : "{\"url\":");
    if(!e)
      e = buf_add_json_str(out, u[i].url, strlen(u[i].url));
    if(!e)
      e = buf_addf(out, ",\"priority\":%u,\"max_age_s\":%ld}", u[i].priority > 7 ? 7 : u[i].priority,
                   u[i].max_age_s < -1 ? -1 : u[i].max_age_s);
  }
  if(!e)
    e = buf_adds(out, "]}");
  return crawl_from_cm(e);
}

crawl_err gwproto_ack_body(const char *const *deliveries, size_t n, struct buf *out)
{
  cm_err e = buf_adds(out, "{\"deliveries\":[");
  for(size_t i = 0; !e && i < n; i++) {
    if(i)
      e = buf_addc(out, ',');
    if(!e)
      e = buf_add_json_str(out, deliveries[i], strlen(deliveries[i]));
  }
  if(!e)
    e = buf_adds(out, "]}");
  return crawl_from_cm(e);
}

/* ---- Answers ---------------------------------------------------------------- */

/* A heap copy of a string member, NULL when absent; *bad when present but
 * not a string, or on out of memory (*nomem). */
static char *member_str(json_t *o, const char *k, bool *bad)
{
  json_t *v = json_object_get(o, k);
  if(!v || json_is_null(v))
    return NULL;
  if(!json_is_string(v)) {
    *bad = true;
    return NULL;
  }
  char *s = mem_strndup(json_string_value(v), json_string_length(v));
  if(!s)
    *bad = true;
  return s;
}

static long long member_int(json_t *o, const char *k, long long def)
{
  json_t *v = json_object_get(o, k);
  return json_is_integer(v) ? json_integer_value(v) : def;
}

static json_t *load_array(const char *json, size_t len, const char *key, json_t **root)
{
  *root = json_loadb(json, len, 0, NULL);
  json_t *a = json_object_get(*root, key);
  return json_is_array(a) ? a : NULL;
}

/* The element's compact JSON, keys in the gateway's order, when asked. */
static bool keep_json(json_t *o, bool keep, char **out)
{
  *out = NULL;
  if(!keep)
    return true;
  char *s = json_dumps(o, JSON_COMPACT);
  *out = s ? mem_strdup(s) : NULL;
  free(s);
  return *out != NULL;
}

static crawl_err item_parse(json_t *o, struct gw_item *it, bool keep)
{
  bool bad = !json_is_object(o);
  if(!bad && !keep_json(o, keep, &it->json))
    return CRAWL_ERR_NOMEM;
  const char *st = json_string_value(json_object_get(o, "status"));
  it->status = st && !strcmp(st, "accepted")    ? GW_ACCEPTED
               : st && !strcmp(st, "duplicate") ? GW_DUPLICATE
                                                : GW_REJECTED;
  bad |= !st || (it->status == GW_REJECTED && strcmp(st, "rejected"));
  it->url = member_str(o, "url", &bad);
  it->canonical_url = member_str(o, "canonical_url", &bad);
  it->id = member_str(o, "id", &bad);
  it->reason = member_str(o, "reason", &bad);
  it->retry_after_ms = (long)member_int(o, "retry_after_ms", -1);
  return bad || !it->url ? CRAWL_ERR_INVALID : CRAWL_OK;
}

static crawl_err batch_answer(const char *json, size_t len, struct gw_batch_answer *a, bool keep)
{
  json_t *root;
  json_t *items = load_array(json, len, "items", &root);
  memset(a, 0, sizeof *a);
  crawl_err e = items ? CRAWL_OK : CRAWL_ERR_INVALID;
  size_t n = items ? json_array_size(items) : 0;
  if(!e && n && !(a->items = mem_calloc(n, sizeof *a->items)))
    e = CRAWL_ERR_NOMEM;
  for(size_t i = 0; !e && i < n; i++) {
    a->n = i + 1;
    e = item_parse(json_array_get(items, i), &a->items[i], keep);
  }
  json_decref(root);
  if(e)
    gwproto_batch_free(a);
  return e;
}

crawl_err gwproto_batch_answer(const char *json, size_t len, struct gw_batch_answer *a)
{
  return batch_answer(json, len, a, false);
}

crawl_err gwproto_batch_answer_kept(const char *json, size_t len, struct gw_batch_answer *a)
{
  return batch_answer(json, len, a, true);
}

void gwproto_batch_free(struct gw_batch_answer *a)
{
  for(size_t i = 0; i < a->n; i++) {
    mem_free(a->items[i].url);
    mem_free(a->items[i].canonical_url);
    mem_free(a->items[i].id);
    mem_free(a->items[i].reason);
    mem_free(a->items[i].json);
  }
  mem_free(a->items);
  memset(a, 0, sizeof *a);
}

/* body_base64 into a heap buffer (OpenSSL's decoder). */
static crawl_err body_decode(const char *b64, size_t n, struct gw_result *r)
{
  if(n % 4)
    return CRAWL_ERR_INVALID;
  r->body = mem_alloc(n / 4 * 3 + 1);
  if(!r->body)
    return CRAWL_ERR_NOMEM;
  int got = n ? EVP_DecodeBlock(r->body, (const unsigned char *)b64, (int)n) : 0;
  if(got < 0)
    return CRAWL_ERR_INVALID;
  size_t pad = (n >= 1 && b64[n - 1] == '=') + (n >= 2 && b64[n - 2] == '=');
  r->body_len = (size_t)got - pad;
  r->body[r->body_len] = '\0';
  return CRAWL_OK;
}

static crawl_err headers_parse(json_t *a, struct gw_result *r)
{
  size_t n = json_is_array(a) ? json_array_size(a) : 0;
  if(!n)
    return a && !json_is_array(a) ? CRAWL_ERR_INVALID : CRAWL_OK;
  r->headers = mem_calloc(n, sizeof *r->headers);
  if(!r->headers)
    return CRAWL_ERR_NOMEM;
  for(size_t i = 0; i < n; i++) {
    json_t *p = json_array_get(a, i);
    const char *k = json_string_value(json_array_get(p, 0));
    const char *v = json_string_value(json_array_get(p, 1));
    if(!k || !v || json_array_size(p) != 2)
      return CRAWL_ERR_INVALID;
    r->nheaders = i + 1;
    r->headers[i].name = mem_strdup(k);
    r->headers[i].value = mem_strdup(v);
    if(!r->headers[i].name || !r->headers[i].value)
      return CRAWL_ERR_NOMEM;
  }
  return CRAWL_OK;
}

/* The names the gateway lists in robots_tags, as bits; an unknown name
 * (a newer gateway's) is left out, a list that is not one is invalid. */
static bool robots_tags_parse(json_t *a, unsigned *bits)
{
  *bits = 0;
  if(!a)
    return true;
  if(!json_is_array(a))
    return false;
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v) {
    if(!json_is_string(v))
      return false;
    *bits |= robots_tag_bit(json_string_value(v));
  }
  return true;
}

unsigned gwproto_robots(const struct gw_result *r, uint64_t now_ms)
{
  bool passed = r->robots_unavailable_after && r->robots_unavailable_after <= now_ms;
  return r->robots_tags | (passed ? ROBOTS_TAG_NOINDEX : 0u);
}

static crawl_err result_parse(json_t *o, struct gw_result *r, bool keep)
{
  bool bad = !json_is_object(o);
  if(!bad && !keep_json(o, keep, &r->json))
    return CRAWL_ERR_NOMEM;
  r->delivery = member_str(o, "delivery", &bad);
  r->id = member_str(o, "id", &bad);
  r->url = member_str(o, "url", &bad);
  r->outcome = member_str(o, "outcome", &bad);
  r->redirect = member_str(o, "redirect", &bad);
  r->detail = member_str(o, "detail", &bad);
  r->page = member_str(o, "page", &bad);
  r->cause = member_str(o, "cause", &bad);
  r->status = (int)member_int(o, "status", 0);
  r->cause_status = (int)member_int(o, "cause_status", 0);
  json_int_t rra = member_int(o, "robots_retry_at", 0);
  r->robots_retry_at = rra > 0 ? (uint64_t)rra : 0;
  r->truncated = json_is_true(json_object_get(o, "truncated"));
  r->fetched_at = (uint64_t)member_int(o, "fetched_at", 0);
  r->response_ms = (uint64_t)member_int(o, "response_ms", 0);
  json_int_t sn = member_int(o, "site_connections", 0);
  r->site_connections = sn > 0 ? (uint64_t)sn : 0;
  bad |= !robots_tags_parse(json_object_get(o, "robots_tags"), &r->robots_tags);
  json_int_t ua = member_int(o, "robots_unavailable_after", 0);
  r->robots_unavailable_after = ua > 0 ? (uint64_t)ua : 0;
  if(bad || !r->url || !r->outcome)
    return CRAWL_ERR_INVALID;
  crawl_err e = headers_parse(json_object_get(o, "headers"), r);
  json_t *b = json_object_get(o, "body_base64");
  if(!e && b && !json_is_string(b))
    e = CRAWL_ERR_INVALID;
  if(!e && b)
    e = body_decode(json_string_value(b), json_string_length(b), r);
  return e;
}

static crawl_err results(const char *json, size_t len, struct gw_results *r, bool keep)
{
  json_t *root;
  json_t *a = load_array(json, len, "results", &root);
  memset(r, 0, sizeof *r);
  crawl_err e = a ? CRAWL_OK : CRAWL_ERR_INVALID;
  size_t n = a ? json_array_size(a) : 0;
  if(!e && n && !(r->v = mem_calloc(n, sizeof *r->v)))
    e = CRAWL_ERR_NOMEM;
  for(size_t i = 0; !e && i < n; i++) {
    r->n = i + 1;
    e = result_parse(json_array_get(a, i), &r->v[i], keep);
  }
  json_decref(root);
  if(e)
    gwproto_results_free(r);
  return e;
}

crawl_err gwproto_results(const char *json, size_t len, struct gw_results *r)
{
  return results(json, len, r, false);
}

crawl_err gwproto_results_kept(const char *json, size_t len, struct gw_results *r)
{
  return results(json, len, r, true);
}

/* The page after a framed result's line: body_bytes bytes, then '\n'. */
static crawl_err frame_body(const char *p, size_t len, size_t *at, long long nb,
                            struct gw_result *x)
{
  if(nb < 0 || (size_t)nb >= len - *at || p[*at + (size_t)nb] != '\n')
    return CRAWL_ERR_INVALID;
  x->body = mem_alloc((size_t)nb + 1);
  if(!x->body)
    return CRAWL_ERR_NOMEM;
  memcpy(x->body, p + *at, (size_t)nb);
  x->body[nb] = '\0';
  x->body_len = (size_t)nb;
  *at += (size_t)nb + 1;
  return CRAWL_OK;
}

/* One framed result at p[*at..len): its line, then its page if it has one. */
static crawl_err frame_parse(const char *p, size_t len, size_t *at, struct gw_result *x)
{
  const char *nl = memchr(p + *at, '\n', len - *at);
  if(!nl)
    return CRAWL_ERR_INVALID;
  json_t *o = json_loadb(p + *at, (size_t)(nl - p) - *at, 0, NULL);
  *at = (size_t)(nl - p) + 1;
  crawl_err e = o && !json_object_get(o, "body_base64") ? result_parse(o, x, false) : CRAWL_ERR_INVALID;
  json_t *nb = json_object_get(o, "body_bytes");
  if(!e && nb)
    e = json_is_integer(nb) ? frame_body(p, len, at, json_integer_value(nb), x)
                            : CRAWL_ERR_INVALID;
  json_decref(o);
  return e;
}

crawl_err gwproto_results_framed(const char *p, size_t len, struct gw_results *r)
{
  memset(r, 0, sizeof *r);
  size_t cap = 0;
  crawl_err e = CRAWL_OK;
  for(size_t at = 0; !e && at < len;) {
    if(r->n == cap) {
      struct gw_result *v = mem_realloc(r->v, (cap ? 2 * cap : 16) * sizeof *v);
      if(!v) {
        e = CRAWL_ERR_NOMEM;
        break;
      }
      r->v = v;
      cap = cap ? 2 * cap : 16;
    }
    memset(&r->v[r->n], 0, sizeof r->v[r->n]);
    e = frame_parse(p, len, &at, &r->v[r->n++]);
  }
  if(e)
    gwproto_results_free(r);
  return e;
}

crawl_err gwproto_fetch_body(const char *url, unsigned wait_ms, long max_age_s, struct buf *out)
{
  cm_err e = buf_adds(out, "{\"url\":");
  if(!e)
    e = buf_add_json_str(out, url, strlen(url));
  if(!e)
    e = buf_addf(out, ",\"wait_ms\":%u", wait_ms);
  if(!e && max_age_s >= 0)
    e = buf_addf(out, ",\"max_age_s\":%ld", max_age_s);
  if(!e)
    e = buf_adds(out, "}");
  return crawl_from_cm(e);
}

static void result_free(struct gw_result *r);

crawl_err gwproto_result(const char *json, size_t len, struct gw_result *r)
{
  json_t *root = json_loadb(json, len, 0, NULL);
  memset(r, 0, sizeof *r);
  crawl_err e = root ? result_parse(root, r, false) : CRAWL_ERR_INVALID;
  json_decref(root);
  if(e)
    gwproto_result_free(r);
  return e;
}

void gwproto_result_free(struct gw_result *r)
{
  result_free(r);
  memset(r, 0, sizeof *r);
}

static void result_free(struct gw_result *r)
{
  mem_free(r->delivery);
  mem_free(r->id);
  mem_free(r->url);
  mem_free(r->outcome);
  mem_free(r->redirect);
  mem_free(r->detail);
  mem_free(r->page);
  mem_free(r->cause);
  mem_free(r->json);
  for(size_t i = 0; i < r->nheaders; i++) {
    mem_free((char *)(uintptr_t)r->headers[i].name);
    mem_free((char *)(uintptr_t)r->headers[i].value);
  }
  mem_free(r->headers);
  mem_free(r->body);
}

void gwproto_results_free(struct gw_results *r)
{
  for(size_t i = 0; i < r->n; i++)
    result_free(&r->v[i]);
  mem_free(r->v);
  memset(r, 0, sizeof *r);
}

crawl_err gwproto_sitemaps(const char *json, size_t len, char ***out)
{
  json_t *root;
  json_t *a = load_array(json, len, "sitemaps", &root);
  *out = NULL;
  if(!root) {
    json_decref(root);
    return CRAWL_ERR_INVALID;
  }
  size_t n = a ? json_array_size(a) : 0;
  char **v = mem_calloc(n + 1, sizeof *v);
  crawl_err e = v ? CRAWL_OK : CRAWL_ERR_NOMEM;
  for(size_t i = 0, k = 0; !e && i < n; i++) {
    const char *s = json_string_value(json_array_get(a, i));
    if(s && !(v[k++] = mem_strdup(s)))
      e = CRAWL_ERR_NOMEM;
  }
  json_decref(root);
  if(e)
    gwproto_strv_free(v);
  else
    *out = v;
  return e;
}

void gwproto_strv_free(char **v)
{
  for(size_t i = 0; v && v[i]; i++)
    mem_free(v[i]);
  mem_free(v);
}

/* ---- Why a result has no page ------------------------------------------------- */

static bool outcome_is(const struct gw_result *r, const char *o)
{
  return r->outcome && !strcmp(r->outcome, o);
}

static const char *word(const char *w)
{
  return tally_word(w) ? w : "unknown";
}

/* robots.txt unreachable: its fetch's outcome; a site that answered it
 * with 5xx or 429 has cause "ok" and the status. */
static const char *robots_cause(const struct gw_result *r)
{
  if(!r->cause)
    return "robots_unavailable";
  if(strcmp(r->cause, "ok"))
    return word(r->cause);
  if(r->cause_status == 429)
    return "robots_429";
  return r->cause_status >= 500 && r->cause_status < 600 ? "robots_5xx" : "robots_unavailable";
}

const char *gwproto_cause(const struct gw_result *r, char *buf, size_t n)
{
  if(r->page) {
    snprintf(buf, n, "page_%s", r->page);
    return word(buf);
  }
  if(outcome_is(r, "ok") || outcome_is(r, "cached") || outcome_is(r, "not_modified"))
    return NULL;
  if(outcome_is(r, "robots_unavailable"))
    return robots_cause(r);
  return word(r->outcome);
}
