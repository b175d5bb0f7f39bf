#ifndef WPFS_CLIENTS_DROP_H
#define WPFS_CLIENTS_DROP_H
/* Why a discovered URL is not crawled. One row per reason: enum value,
 * stable name (crawl log, counters, logs), whether it is a trap defence
 * (logged at info with the URL; the others at debug), and text.
 * Append only; never rename. */
#define DROP_REASONS(X)                                                            \
  X(EXTENSION,         extension,         0, "file type that is not a page")      \
  X(SCOPE,             scope,             0, "outside the crawl scope")           \
  X(NOFOLLOW,          nofollow,          0, "rel=nofollow or meta robots "       \
                                             "nofollow")                          \
  X(DEPTH,             depth,             0, "more link hops from a seed than "   \
                                             "max_depth")                         \
  X(PATH_DEPTH,        path_depth,        1, "more path segments than "           \
                                             "max_path_depth")                    \
  X(REPEATED_SEGMENTS, repeated_segments, 1, "a path segment repeated "           \
                                             "max_segment_repeats times")         \
  X(SITE_BUDGET,       site_budget,       1, "the site has its budget of pages")  \
  X(QUERY_EXPLOSION,   query_explosion,   1, "too many query variants of one "    \
                                             "path")                              \
  X(DOMAIN_HOSTS,      domain_hosts,      1, "too many host names under one "     \
                                             "registrable domain")                \
  X(FRONTIER_FULL,     frontier_full,     0, "the frontier is at its size "       \
                                             "limit")                             \
  X(OFF_TOPIC,         off_topic,         0, "a focused crawl's path off the "    \
                                             "topic is at its depth bound")           \
  X(RULE,              rule,              0, "rejected by a scope rule "          \
                                             "(--scope-rules)")

enum drop_reason {
  DROP_NONE = 0,
#define X(e, name, trap, txt) DROP_##e,
  DROP_REASONS(X)
#undef X
  DROP__LAST
};

const char *drop_name(enum drop_reason r);  /* "none" for DROP_NONE */
const char *drop_text(enum drop_reason r);
int         drop_is_trap(enum drop_reason r);

#endif
