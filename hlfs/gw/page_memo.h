#ifndef WPFS_HLFS_PAGE_MEMO_H
#define WPFS_HLFS_PAGE_MEMO_H
/* Hot pages kept in the gateway, already rendered: for each, the members
 * of its JSON answer that do not change from one request to the next (from
 * "fetched_at" to the body in base64, hlfs/gw/gw_page.c) and what the rest is
 * made of, with the stored copy's hash and fetch time. An entry is never
 * trusted alone: every use first asks the page cache for the stored copy's
 * hash and fetch time (page_check, a few bytes instead of the page) and
 * serves the entry only if both are unchanged, so a purge or a new fetch
 * through any replica holds at once. Bounded by bytes; the least recently
 * used entry goes first. Not shared between threads. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlfs/state/pages.h"

struct page_memo;

/* max_bytes 0: nothing is kept. */
struct page_memo *page_memo_new(size_t max_bytes);
void page_memo_free(struct page_memo **mp);
/* key's entry (url, outcome, status, fetched_at and hash of the copy in
 * head; its rendered members in *tail), moved to the front; false when
 * there is none. Valid until the next put or drop. */
bool page_memo_get(struct page_memo *m, const char *key, struct page *head, const char **tail,
                   size_t *tail_len);
/* Keep p (its hash set) rendered as tail under key, replacing what was
 * there. Not kept (false) without a hash, when larger than the bound, or
 * on out of memory. */
bool page_memo_put(struct page_memo *m, const char *key, const struct page *p,
                   const char *tail, size_t tail_len);
void page_memo_drop(struct page_memo *m, const char *key);

#endif
