/* wpfs-focus: the focused (topical) crawler. It reaches the Web only
 * through the wpfs gateway, spends its fetches on pages about one topic,
 * and writes WARC files, a JSONL crawl log (with each page's score and the
 * link that chose it) and checkpoints into --out (docs/focus.md).
 *   wpfs-focus --gateway URL --token T --seeds FILE --topic "words..."
 *              [--topic-pages FILE] --out DIR [--max-pages N]
 *              [--strategy shark|best-first|bfs] [--resume] ...
 * Exit status as wpfs-discover's: 0 done; 1 bad usage; 2 a local error;
 * 3 stopped by a signal (--resume continues); 4 the gateway stopped
 * answering. The last line on stdout is a JSON summary. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clients/crawl/crawl.h"
#include "clients/loop/crawler.h"
#include "clients/loop/crawl_loop.h"
#include "clients/focus/focus.h"
#include "clients/focus/topic_pages.h"
#include "clients/loop/seeds.h"
#include "common/cfg.h"
#include "common/log.h"
#include "common/mem.h"

static const char prog_name[] = "wpfs-focus";

struct fopts {
  struct crawler_cfg c;  /* first: the shared rows' offsets hold */
  double beta;
  long   context_bytes;
  double delta;
  long   depth;
  size_t frontier_bytes;
  double gamma;
  size_t idf_bytes;
  long   max_per_host;
  bool   resume;
  char  *scope;
  bool   stem;
  bool   stop_words;
  char  *strategy;
  double threshold;
  char  *topic;
  char  *topic_pages;
  long   window;
};

#define OFF(f) offsetof(struct fopts, f)
/* Keep sorted by name. The defaults of the scores come from the parameter
 * study in docs/focus.md. */
static const struct cfg_key own_keys[] = {
  { "beta", CFG_DOUBLE, OFF(beta), "0.5", 0, 1, NULL,
    "SharkSearch: weight of the anchor text in a link's neighbourhood score (the rest: "
    "the text around the link)" },
  { "context_bytes", CFG_INT, OFF(context_bytes), "160", 0, 65536, NULL,
    "SharkSearch: the text around a link, bytes on each side of its anchor" },
  { "delta", CFG_DOUBLE, OFF(delta), "0.5", 0, 1, NULL,
    "SharkSearch: decay of the inherited score from a page to its links" },
  { "depth", CFG_INT, OFF(depth), "3", 0, 255, NULL,
    "SharkSearch: irrelevant pages a path may cross in a row (d)" },
  { "frontier_bytes", CFG_SIZE, OFF(frontier_bytes), "256m", 65536, 1e12, NULL,
    "memory for the frontier; past it the worst URLs are dropped for better ones" },
  { "gamma", CFG_DOUBLE, OFF(gamma), "0.5", 0, 1, NULL,
    "SharkSearch: weight of the inherited score in a link's score (the rest: its "
    "neighbourhood)" },
  { "idf_bytes", CFG_SIZE, OFF(idf_bytes), "64m", 4096, 1e12, NULL,
    "memory of the document frequencies learned as the crawl goes; past it, new terms are "
    "not counted" },
  { "max_per_host", CFG_INT, OFF(max_per_host), "2", 0, 1e6, NULL,
    "URLs of one host outstanding at the gateway (0: no limit)" },
  { "resume", CFG_BOOL, OFF(resume), "false", 1, 0, NULL,
    "continue the crawl in --out from its checkpoint and crawl log (its own topic)" },
  { "scope", CFG_STR, OFF(scope), "any", 1, 0, NULL,
    "any, domain (the seeds' registrable domains) or host (the seeds' hosts)" },
  { "stem", CFG_BOOL, OFF(stem), "true", 1, 0, NULL,
    "stem words (Snowball's English stemmer) before comparing them" },
  { "stop_words", CFG_BOOL, OFF(stop_words), "true", 1, 0, NULL,
    "drop English stop words (Snowball's list) before comparing texts" },
  { "strategy", CFG_STR, OFF(strategy), "shark", 1, 0, NULL,
    "shark (SharkSearch), best-first (a link scores its page's similarity) or bfs "
    "(breadth first)" },
  { "threshold", CFG_DOUBLE, OFF(threshold), "0.15", 0, 1, NULL,
    "a page is relevant when its similarity to the topic is at least this" },
  { "topic", CFG_STR, OFF(topic), NULL, 1, 0, NULL,
    "the topic in words (required unless --resume)" },
  { "topic_pages", CFG_STR, OFF(topic_pages), NULL, 1, 0, NULL,
    "file of example pages of the topic, one per line: URLs (fetched through the gateway) "
    "or local files" },
  { "window", CFG_INT, OFF(window), "8", 1, 100000, NULL,
    "URLs outstanding at the gateway: the fewer, the fresher the order of the frontier" },
};

#define NOWN (sizeof own_keys / sizeof own_keys[0])
static struct cfg_key keys[NOWN + CRAWLER_CFG_NKEYS];
static struct cfg_prog prog = {
  prog_name,
  "The focused crawler: crawls toward a topic through the wpfs gateway into WARC files.",
  keys, 0, NULL,
};

static bool fill_focus(const struct fopts *d, struct focus_opts *o)
{
  *o = focus_opts_default();
  o->shark = (struct shark_params){ d->gamma, d->delta, d->beta, (unsigned)d->depth };
  o->threshold = d->threshold;
  o->context_bytes = (size_t)d->context_bytes;
  o->idf_bytes = d->idf_bytes;
  o->text.stem = d->stem;
  o->text.stop = d->stop_words;
  return focus_strategy_parse(d->strategy, &o->strategy);
}

static bool fill_crawl(const struct fopts *d, const struct crawl_scorer *s, struct crawl_opts *o)
{
  *o = crawl_opts_default();
  crawler_fill_crawl(&d->c, o);
  o->frontier_bytes = d->frontier_bytes;
  o->max_per_host = (unsigned)d->max_per_host;
  o->warc_prefix = prog_name;
  o->software = prog_name;
  o->scorer = s;
  return linkfilter_scope_parse(d->scope, &o->scope);
}

/* The crawl loop of wpfs-discover, with a small window: the frontier's
 * order is only as fresh as the URLs already handed to the gateway. */
static void fill_loop(const struct fopts *d, struct crawl_loop_opts *o)
{
  *o = crawl_loop_opts_default();
  crawler_fill_loop(&d->c, "wpfs-focus/0.1", o);
  o->batch_max = (unsigned)d->window;
  o->window = (unsigned)d->window;
  o->sitemaps = false;  /* a sitemap lists everything, and says nothing of the topic */
}

/* A resume takes the crawl's own topic from its checkpoint. */
static bool has_checkpoint(const char *out)
{
  char path[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s/checkpoint", out);
  return stat(path, &st) == 0;
}

static int usage_check(const struct fopts *d)
{
  bool topic_kept = d->resume && d->c.out && has_checkpoint(d->c.out);
  if(!d->c.out || (!d->c.seeds && !d->resume) || (!d->topic && !d->topic_pages && !topic_kept)) {
    fprintf(stderr, "%s: --out, --seeds and --topic are required (--seeds and --topic may be "
                    "left out with --resume); see --help\n", prog_name);
    return -1;
  }
  return crawler_log_init(&d->c, prog_name);
}

/* The topic from the words and the example pages (fetched through the
 * gateway when they are URLs). */
static int make_topic(const struct fopts *d, struct focus *f, const struct crawl_loop_opts *lo)
{
  if(d->topic && focus_topic_words(f, d->topic, strlen(d->topic))) {
    fprintf(stderr, "%s: --topic: out of memory\n", prog_name);
    return CRAWL_LOOP_EXIT_LOCAL;
  }
  if(d->topic_pages && focus_topic_pages(f, d->topic_pages, &lo->gw, d->c.max_age_s, prog_name))
    return CRAWL_LOOP_EXIT_LOCAL;
  struct focus_stats st;
  focus_stats(f, &st);
  if(st.topic_terms == 0) {
    fprintf(stderr, "%s: the topic has no word left once stop words are dropped\n", prog_name);
    return 1;
  }
  LOG(LOG_INFO, "topic: %zu terms", st.topic_terms);
  return 0;
}

/* A fresh crawl: seeds, then a first checkpoint at once, so that a resume
 * after any kill finds the crawl's topic. */
static int start_crawl(const struct fopts *d, struct crawl *c)
{
  int n;
  if(crawl_seeds_file(c, d->c.seeds, prog_name, false, &n))
    return CRAWL_LOOP_EXIT_LOCAL;
  crawl_err e = crawl_checkpoint(c);
  crawl_sync(c);
  if(!e)
    e = crawl_error(c);
  if(e) {
    fprintf(stderr, "%s: first checkpoint: %s\n", prog_name, crawl_err_text(e));
    return CRAWL_LOOP_EXIT_LOCAL;
  }
  return 0;
}

static int focus_main(const struct fopts *d)
{
  struct focus_opts fo;
  struct crawl_opts co;
  struct crawl_loop_opts lo;
  struct focus *f = NULL;
  struct crawl *c = NULL;
  struct scope *rules = NULL;
  if(!fill_focus(d, &fo)) {
    fprintf(stderr, "%s: --strategy is shark, best-first or bfs\n", prog_name);
    return 1;
  }
  if(crawler_scope(&d->c, prog_name, &rules))
    return 1;
  fill_loop(d, &lo);
  int rc = focus_open(&fo, &f) ? CRAWL_LOOP_EXIT_LOCAL : 0;
  bool topic_kept = d->resume && has_checkpoint(d->c.out);
  if(!rc && topic_kept && (d->topic || d->topic_pages))
    LOG(LOG_INFO, "resuming: the crawl keeps its own topic (--topic is not read)");
  if(!rc && !topic_kept)
    rc = make_topic(d, f, &lo);
  if(!rc && !fill_crawl(d, focus_scorer(f), &co)) {
    fprintf(stderr, "%s: --scope is any, domain or host\n", prog_name);
    rc = 1;
  }
  co.rules = rules;
  if(!rc)
    rc = crawler_open(&d->c, d->resume, prog_name, &co, &c);
  if(!rc && d->c.seeds && !d->resume)
    rc = start_crawl(d, c);
  if(!rc)
    rc = crawl_loop_run(c, &lo, stdout);
  crawl_close(&c);
  focus_close(&f);
  scope_free(&rules);
  return rc;
}

int main(int argc, char **argv)
{
  struct fopts d;
  memset(&d, 0, sizeof d);
  prog.nkeys = crawler_cfg_keys(own_keys, NOWN, keys);
  enum cfg_rc r = cfg_load(&prog, &d, argc, argv);
  int rc = r == CFG_ERROR ? 1 : 0;
  if(r == CFG_OK)
    rc = usage_check(&d) ? 1 : focus_main(&d);
  cfg_free(&prog, &d);
  return rc;
}
