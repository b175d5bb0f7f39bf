#ifndef WPFS_HLFS_ROBOTS_H
#define WPFS_HLFS_ROBOTS_H
/* robots.txt (RFC 9309): parse a body once, then answer "may this agent
 * fetch this path?" as often as needed. The rules followed, and where they
 * differ from Google's robotstxt library, are listed in docs/robots.md.
 *
 * A parsed set is immutable and owns copies of everything it needs: the body
 * may be freed right after robots_parse. Queries never allocate unless the
 * path's normal form may exceed ROBOTS_QUERY_STACK bytes (paths over 682).
 *
 * Out of memory is an error (ROBOTS_NOMEM), never an abort, and leaks
 * nothing (tested by failing each allocation in turn). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Errors of the robots parser. 0 is success; append only, never renumber. */
#define ROBOTS_ERRORS(X)                                   \
  X(OK,      ok,      "ok")                                         \
  ERR_NOMEM(X)                                                      \
  X(INVALID, invalid, "invalid argument")

typedef enum {
#define X(e, name, txt) ROBOTS_##e,
  ROBOTS_ERRORS(X)
#undef X
  ROBOTS__LAST
} robots_err;

const char *robots_err_text(robots_err e);

/* RFC 9309 §2.5: the parsing limit MUST be at least 500 KiB. */
#define ROBOTS_MAX_BYTES_DEFAULT   (500u * 1024u)
#define ROBOTS_MAX_BYTES_MIN       (500u * 1024u)
#define ROBOTS_MAX_BYTES_LIMIT     (64u * 1024u * 1024u)
#define ROBOTS_CRAWL_DELAY_DEFAULT 60.0  /* seconds; larger values are capped */

struct robots_limits {
  size_t max_bytes;        /* bytes of the body parsed; clamped to [MIN, LIMIT] */
  double max_crawl_delay;  /* seconds; a larger Crawl-delay is capped to this */
};
struct robots_limits robots_limits_default(void);

struct robots;  /* opaque, immutable after parse */

/* Parse body[0..len). Bytes past lim->max_bytes are ignored, and so is a
 * line cut by that limit. lim may be NULL (defaults). On error *out is NULL. */
robots_err robots_parse(const char *body, size_t len, const struct robots_limits *lim,
                        struct robots **out);
void robots_free(struct robots **rp);

enum robots_why {
  ROBOTS_WHY_DEFAULT,     /* no rule matched (or no group applies): allowed */
  ROBOTS_WHY_RULE,        /* the rule below decided */
  ROBOTS_WHY_ROBOTS_TXT,  /* /robots.txt itself is always allowed */
};

struct robots_verdict {
  bool            allowed;
  enum robots_why why;
  bool            rule_allow;   /* WHY_RULE: the deciding line was "allow" */
  const char     *rule;         /* WHY_RULE: its pattern as written (NUL-terminated,
                                   lives as long as the robots set) */
  uint32_t        line;         /* WHY_RULE: its line number (1-based) */
  double          crawl_delay;  /* seconds, capped; < 0 when the group sets none */
  bool            crawl_delay_capped;
};

/* Decide for product token agent[0..agent_len) (matched case-insensitively
 * against the user-agent lines; "wpfs", not "wpfs/1.0 (...)": see
 * robots_agent_token) and path[0..path_len), the path and query of the URL
 * ("/a/b?c=d"; a path not starting with "/" is read with one before it, so
 * "" means "/"). r may be NULL: everything allowed. */
robots_err robots_query(const struct robots *r, const char *agent, size_t agent_len,
                        const char *path, size_t path_len, struct robots_verdict *v);
#define ROBOTS_QUERY_STACK 2048

/* Sitemap lines, in file order (they belong to no group). */
size_t      robots_sitemap_count(const struct robots *r);
const char *robots_sitemap(const struct robots *r, size_t i, uint32_t *line);

/* Length of the product token that starts a User-Agent string:
 * "wpfs/1.0 (+https://example.com/bot)" -> 4 ("wpfs"). 0 if none. */
size_t robots_agent_token(const char *ua, size_t len);
/* RFC 9309 §2.2.1: a product token is 1*(ALPHA / "-" / "_"). */
bool   robots_agent_valid(const char *s, size_t len);

/* The request target that robots rules are matched against: path and
 * query of an absolute URL or of a path ("http://a.b/c?d#e" -> "/c?d",
 * "http://a.b" -> "/", "/x?y" -> "/x?y"), split by common/url.h (RFC 3986;
 * a string without a scheme is a relative reference, so "a.b/c" is the
 * path "/a.b/c"). *out is from mem_alloc; free it with mem_free.
 * ROBOTS_INVALID if url_parse rejects the URL. */
robots_err robots_url_target(const char *url, size_t n, char **out, size_t *len);

/* Percent-encoding normal form used on both sides of a match (see
 * docs/robots.md): out must hold 3 * n bytes; returns the length written.
 * pattern = true keeps '*' and a final '$' special. */
size_t robots_path_norm(const char *in, size_t n, bool pattern, char *out);

/* Counters of one parse: what the file contained, for logs and tests. */
struct robots_stats {
  size_t   bytes_used;     /* bytes of the body that were parsed */
  bool     truncated;      /* the body was longer than max_bytes */
  uint32_t lines;          /* lines parsed */
  uint32_t directives;     /* user-agent, allow, disallow, sitemap, crawl-delay lines */
  uint32_t unknown;        /* "key: value" lines with another key */
  uint32_t invalid;        /* non-empty lines without a colon (ignored) */
  uint32_t outside_group;  /* allow/disallow/crawl-delay before any user-agent */
  uint32_t bad_crawl_delay;/* crawl-delay values that are not a number */
  uint32_t groups;
  uint32_t rules;          /* allow/disallow rules kept (empty patterns are not) */
  uint32_t agents;         /* user-agent tokens kept */
  size_t   mem_bytes;      /* heap held by the parsed set */
};
void robots_stats(const struct robots *r, struct robots_stats *st);

#endif
