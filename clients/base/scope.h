#ifndef WPFS_CLIENTS_SCOPE_H
#define WPFS_CLIENTS_SCOPE_H
/* Scope rules (--scope-rules FILE), shared by the three crawlers: an
 * ordered list of decide rules in the manner of Heritrix's
 * DecideRuleSequence. Each rule that matches a URL sets the decision to
 * its own, accept or reject; the last rule that matches decides, and when
 * none matches the crawler's own scope stands (--scope host|domain|any, or
 * "accept" for the refresh crawler's list). docs/crawler.md, "Scope rules".
 *
 *   # DECISION KIND ARGUMENT...
 *   reject all
 *   accept surt   http://(org,example,)/docs/
 *   accept host   www.example.org api.example.org
 *   accept domain example.net
 *   reject regex  .*\?(.*&)?sessionid=.*
 *   reject host   @deny-hosts.txt
 *
 * "#" begins a comment, at the start of a line or after a blank.
 *
 * Kinds: all (every URL); regex (PCRE2, Perl and Java syntax as Heritrix's
 * and Nutch's rule files are written; the whole URL must match, as
 * Heritrix's MatchesRegexDecideRule; one pattern, no blanks); host (the
 * names exactly); domain (the names and every name under them); surt (SURT
 * prefixes, as Heritrix writes them, or plain URLs made into one; https
 * compares as http). host, domain and surt take several arguments, and
 * "@PATH" reads one a line from a file (relative to the rule file).
 *
 * Each rule counts the URLs it decided: rejected (dropped, counted by the
 * crawler as the drop reason "rule") and accepted. A rule file that does
 * not parse is refused whole, with its line number. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "clients/base/crawl_err.h"
#include "common/buf.h"
#include "common/url.h"

#define SCOPE_FILE_MAX    (1u << 20)   /* bytes of a rule file */
#define SCOPE_LIST_MAX    (64u << 20)  /* bytes of an @PATH list */
#define SCOPE_RULES_MAX   10000
#define SCOPE_REGEX_MAX   4096         /* bytes of one pattern */
#define SCOPE_SURT_MAX    (URL_HOST_MAX + 8192)  /* a URL's SURT form, longer ones match no prefix */
#define SCOPE_ERR_MAX     320

struct scope;

/* The rules of the file at path; on error *out is NULL and err says what
 * and where ("line 3: unknown kind \"hots\" (all, regex, host, domain,
 * surt)"). */
crawl_err scope_load(const char *path, struct scope **out, char *err, size_t errlen);
/* The same from text in memory; dir is where @PATH lists are (NULL: they
 * are refused). */
crawl_err scope_parse(const char *text, size_t len, const char *dir, struct scope **out,
                      char *err, size_t errlen);
void      scope_free(struct scope **sp);

/* The decision for the canonical URL split as p (url_split), starting
 * from start (true: accept). *rule gets the index of the rule that
 * decided, -1 when none matched. The deciding rule's counter moves. */
bool      scope_decide(struct scope *s, const struct url_parts *p, bool start, int *rule);
/* The same for a URL as written (canonicalized with url_opts_default
 * first): *keep gets the decision; CRAWL_ERR_INVALID when it is not an
 * http(s) URL. s NULL: *keep = start. */
crawl_err scope_decide_url(struct scope *s, const char *url, bool start, bool *keep, int *rule);

size_t    scope_count(const struct scope *s);
/* "line 3: reject regex .*\.php" (the rule as written, cut at 120 bytes). */
const char *scope_rule_text(const struct scope *s, int rule);
uint64_t  scope_rejected(const struct scope *s, int rule);
uint64_t  scope_accepted(const struct scope *s, int rule);
/* [{"line":3,"rule":"reject regex ...","rejected":N,"accepted":N},...] */
cm_err    scope_json(const struct scope *s, struct buf *out);
/* The counters for checkpoints: a resumed crawl keeps those of the rules
 * that are the same (same line, same text). */
void      scope_save(const struct scope *s, struct ckfile *c);
void      scope_load_counts(struct scope *s, struct ckfile *c);

/* SURT (scope_surt.c). The SURT form of a split URL: "http://(org,example,
 * www,:8080)/path?q" (https written http; an IP address kept in order);
 * 0 when it does not fit in n. */
size_t    scope_surt(const struct url_parts *p, char *out, size_t n);
/* A rule's argument as a SURT prefix, heap (mem_free): a SURT prefix as
 * written ("http://(org,example,)/docs/"), or a plain URL made into one as
 * Heritrix does: the last path segment cut ("http://example.org/docs/x" ->
 * "http://(org,example,)/docs/"), and a URL without a path covering the
 * host's subdomains ("http://example.org" -> "http://(org,example,").
 * CRAWL_ERR_INVALID when it is neither. */
crawl_err scope_surt_prefix(const char *arg, size_t n, char **out);

#endif
