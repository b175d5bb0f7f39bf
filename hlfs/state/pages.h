#ifndef WPFS_HLFS_PAGES_H
#define WPFS_HLFS_PAGES_H
/* Fetched pages in Redis: one HASH per canonical URL, key
 * "page:{<host>}:<xxh3 of the URL, hex>", the shared copy, or
 * "page:{<host>}:<xxh3>:<client>", the copy of a client whose pages are
 * its own (a private API key: docs/operations.md, "Security"): the key
 * says who fetched a copy, so that a result pointing to one (coalesced
 * requests) is checked against its reader. The body is stored zstd-compressed; metadata as fields.
 * Pages expire after the configured TTL. The store given is the page
 * cache's own Redis, whose maxmemory with allkeys-lru bounds their total
 * size (any page may vanish at any time), or the state Redis, which never
 * evicts (docs/operations.md, "Page cache").
 *
 * Contracts: those of hlfs/state/store.h (non-zero return: no callback). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/state/store.h"

#define PAGE_KEY_MAX 360  /* 6 + 253 (host) + 2 + 16 + 1 + 64 (client), and the NUL */

struct page {
  const char *url;
  const char *outcome;       /* fetch outcome name */
  long        status;        /* HTTP status, 0 if none */
  uint64_t    fetched_at;    /* ms since the epoch */
  const char *headers_json;  /* [[name, value], ...] */
  const char *redirect;      /* or NULL */
  bool        truncated;
  const char *body;          /* decoded body */
  size_t      body_len;
  const char *hash;          /* content hash, hex: set by page_put, read back by
                                page_get (NULL for copies stored without one) */
  bool        verified;      /* page_get: hash is what the fields read hash to, so
                                headers_json is the text page_put stored */
};

/* The key of owner's own copy of url (owner NULL: the shared copy) into
 * out (PAGE_KEY_MAX bytes); url is canonical. The hash tag is the URL's
 * host, whatever the politeness unit, so that a page is found from its URL
 * alone. */
void page_key_owned(const char *url, const char *owner, char *out, size_t outlen);
/* The key of a variant of url's page: fetched with other request options
 * than the plain GET (hlfs/fetch/reqopt.h: method, client headers), it is
 * another page. variant NULL or "": page_key_owned. */
void page_key_variant(const char *url, const char *variant, const char *owner, char *out,
                      size_t outlen);
/* Whether reader may read key's copy: a private reader (reader_private)
 * only its own copies, any other reader only shared ones. */
bool page_key_readable(const char *key, const char *reader, bool reader_private);

/* Register the page scripts on s, before store_start (page_put and
 * page_touch fail with STORE_PROTO on a store without them). */
void pages_scripts(struct store *s);

typedef void page_put_cb(void *arg, store_err err);
store_err page_put(struct store *s, const char *key, const struct page *p, uint32_t ttl_s,
                   page_put_cb *cb, void *arg);

/* p is NULL when there is no such page (err STORE_OK). Strings live only
 * during the callback. */
typedef void page_get_cb(void *arg, store_err err, const struct page *p);
store_err page_get(struct store *s, const char *key, page_get_cb *cb, void *arg);

/* The stored copy's validator without its body: found false when there is
 * no such page; hash and at_ms (NULL/0 when absent) live only during the
 * callback. A copy whose hash and fetch time equal those of a copy read
 * earlier is that copy, byte for byte (page_put writes a new hash with
 * every page, page_touch a new fetch time). */
typedef void page_check_cb(void *arg, store_err err, bool found, const char *hash,
                           uint64_t at_ms);
store_err page_check(struct store *s, const char *key, page_check_cb *cb, void *arg);

/* A 304 confirmed the copy: it is now as fresh as at_ms. */
store_err page_touch(struct store *s, const char *key, uint64_t at_ms, uint32_t ttl_s,
                     page_put_cb *cb, void *arg);

/* Whether p may answer a request that accepts copies younger than
 * max_age_s (UINT64_MAX: any age) at now_ms, to the millisecond (0: none):
 * only successful fetches are served, and no server's "not now" (429, 500,
 * 502, 503, 504: docs/retries.md). */
bool page_is_fresh(const struct page *p, uint64_t max_age_s, uint64_t now_ms);
/* p's age in whole seconds at now_ms (what results show). */
uint64_t page_age_s(const struct page *p, uint64_t now_ms);
/* p's age in milliseconds at now_ms (what freshness compares). */
uint64_t page_age_ms(const struct page *p, uint64_t now_ms);

typedef void page_del_cb(void *arg, store_err err, bool existed);
store_err page_del(struct store *s, const char *key, page_del_cb *cb, void *arg);

#endif
