#ifndef WPFS_COMMON_ROBOTS_TAG_H
#define WPFS_COMMON_ROBOTS_TAG_H
/* Page-level robots directives: the X-Robots-Tag response header and the
 * content of <meta name="robots"> / <meta name="AGENT"> (the same
 * comma-separated list). Understood: noindex, nofollow, none (both),
 * noarchive (and Bing's nocache), unavailable_after: DATE; the rest
 * (all, index, follow, max-snippet: N, ...) is read and ignored.
 *
 * A header value may name the agent its directives are for:
 *   X-Robots-Tag: googlebot: nofollow
 *   X-Robots-Tag: noindex, otherbot: nofollow, noarchive
 * A "NAME:" before a directive, NAME a product token (RFC 9309 §2.2.1)
 * that is not a directive of its own, opens a scope that runs to the next
 * such name or the end of the value; directives before any name are for
 * every agent. Names are matched case-insensitively against the asking
 * agent's product token. Each header line starts for every agent.
 *
 * The dates of unavailable_after are RFC 822/1123, RFC 850, asctime (as
 * HTTP dates) or ISO 8601 (2026-11-27, 2026-11-27T12:00:00Z, with an
 * offset); a date that does not parse leaves the directive out, as the
 * search engines do. Inputs are read in place, nothing is allocated. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROBOTS_TAGS(X)                          \
  X(NOINDEX,           noindex,           1u)   \
  X(NOFOLLOW,          nofollow,          2u)   \
  X(NOARCHIVE,         noarchive,         4u)   \
  X(UNAVAILABLE_AFTER, unavailable_after, 8u)

enum robots_tag_bit {
#define X(e, name, bit) ROBOTS_TAG_##e = bit,
  ROBOTS_TAGS(X)
#undef X
};
#define ROBOTS_TAG_COUNT 4

struct robots_tag {
  unsigned bits;              /* ROBOTS_TAG_* */
  int64_t  unavailable_after; /* seconds since the epoch; with its bit (the earliest) */
};

/* Adds the directives of one X-Robots-Tag value v[0..n) that apply to the
 * agent token agent[0..agent_len) (agent_len 0: only those for every
 * agent). */
void robots_tag_header(struct robots_tag *t, const char *v, size_t n, const char *agent,
                       size_t agent_len);
/* Adds the directives of a meta tag's content (the name said whom for). */
void robots_tag_meta(struct robots_tag *t, const char *v, size_t n);
/* Whether <meta name="NAME"> speaks to agent: "robots" or the token. */
bool robots_tag_meta_for(const char *name, const char *agent, size_t agent_len);
/* An unavailable_after date not later than now_s means noindex now. */
void robots_tag_at(struct robots_tag *t, int64_t now_s);
/* The name of one bit ("noindex", ...), or NULL. */
const char *robots_tag_name(unsigned bit);
/* The bit of a name, 0 when unknown. */
unsigned robots_tag_bit(const char *name);

#endif
