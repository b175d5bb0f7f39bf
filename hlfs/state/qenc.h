#ifndef WPFS_HLFS_QENC_H
#define WPFS_HLFS_QENC_H
/* How a queued request is written into its site queue, so that it costs
 * one listpack entry and nothing else (docs/hlfs-state.md, "a queued URL").
 *
 * Member: the canonical URL with its origin folded into one letter when the
 * host is the site (or a subdomain of it), which keeps typical members under
 * Redis' 64-byte listpack value limit:
 *   h/path          http://SITE/path        (also h:8080/path)
 *   s/path          https://SITE/path
 *   Hwww/path       http://www.SITE/path
 *   Swww/path       https://www.SITE/path
 *   uURL            anything else, verbatim
 * The mapping is a bijection for a given site: the Lua scripts decode it
 * (tests/unit/hlfs/state/qenc.c carries the same decoder in C, and checks
 * that it inverts qenc_url_pack for every string).
 *
 * Score: an integer below 2^53 (exact in a double), ordered so that ZPOPMIN
 * gives the highest priority first, then the oldest:
 *   bits 50..52  7 - priority       (priority 0..7, 7 = most urgent)
 *   bits 11..49  sequence number    (per shard, from the submit script)
 *   bits  9..10  attempts           (lease expiries so far, 0..3)
 *   bits  0..8   max_age code       (seconds, 4 significant bits, rounded
 *                                    down; 511 = any age)
 */
#include <stddef.h>
#include <stdint.h>

#define QENC_PRIO_MAX     7
#define QENC_SEQ_BITS     39
#define QENC_ATTEMPTS_MAX 3
#define QENC_MAXAGE_ANY   UINT64_MAX  /* any cached copy will do */
/* A request with options of its own (method, headers, identity:
 * hlfs/fetch/reqopt.h) has them after this byte at the end of its member,
 * and so of the URL the scripts decode from it: a canonical URL never
 * holds a control character. */
#define QENC_OPT_SEP      '\x1f'
#define QENC_OPT_SEPS     "\x1f"

struct qenc_score {
  unsigned prio;      /* 0..QENC_PRIO_MAX */
  uint64_t seq;       /* < 2^QENC_SEQ_BITS */
  unsigned attempts;  /* 0..QENC_ATTEMPTS_MAX */
  uint64_t max_age_s; /* as decoded: may be below what was asked */
};

/* Score without its sequence number; the submit script adds seq << 11. */
uint64_t qenc_score_base(unsigned prio, uint64_t max_age_s);
void     qenc_score_unpack(uint64_t score, struct qenc_score *out);
/* The max_age code round trip: the largest representable value <= s. */
unsigned qenc_maxage_code(uint64_t s);
uint64_t qenc_maxage_secs(unsigned code);

/* Member for url under site into out (outlen bytes). Returns the length,
 * or 0 when out is too small. */
size_t qenc_url_pack(const char *site, const char *url, char *out, size_t outlen);

#endif
