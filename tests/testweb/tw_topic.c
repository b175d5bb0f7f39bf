/* The topical web: labels, link graph and pages (tw_topic.h). */
#include "tests/testweb/tw_topic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.h"
#include "common/mem.h"
#include "tests/testweb/tw_page.h"
#include "tests/testweb/tw_rng.h"
#include "tests/testweb/tw_world.h"

/* Salts: each choice from its own stream, so that changing one option
 * leaves the other choices as they were. */
#define SALT_SITES 0x70b1c5u
#define SALT_PAGES 0x9a6e70u
#define SALT_LINKS 0x11c4a9u
#define SALT_TEXT  0x7e47a1u
#define OWN_WORDS  0.30  /* share of a page's words from its own topic */
#define SAME_SITE  0.70  /* a same-topic link stays on its site when it can */
#define SITE_TRIES 8
#define LINKS_MAX  1024
#define AROUND     6     /* words on each side of a link */

#define TOPIC_OFF(f) offsetof(struct tw_topic_opts, f)
/* Keep sorted by name. */
static const struct cfg_key topic_keys[] = {
  { "bridge",  CFG_DOUBLE, TOPIC_OFF(bridge),  "0.05", 0, 1, NULL, "fraction of a bridge page's (topic 1) links that lead into the hidden sites" },
  { "context", CFG_DOUBLE, TOPIC_OFF(context), "0.5",  0, 1, NULL, "fraction of links whose surrounding words are drawn from the target page's topic" },
  { "hidden",  CFG_DOUBLE, TOPIC_OFF(hidden),  "0.4",  0, 1, NULL, "fraction of the topic-0 sites linked only from their own pages and from topic-1 pages" },
  { "local",   CFG_DOUBLE, TOPIC_OFF(local),   "0.8",  0, 1, NULL, "fraction of links to a page of the same topic" },
  { "named",   CFG_DOUBLE, TOPIC_OFF(named),   "0.7",  0, 1, NULL, "fraction of anchors that name the target page's topic" },
  { "overlap", CFG_DOUBLE, TOPIC_OFF(overlap), "0.1",  0, 0.35, NULL, "fraction of a page's words from each of the two neighbouring topics" },
  { "purity",  CFG_DOUBLE, TOPIC_OFF(purity),  "0.85", 0, 1, NULL, "fraction of a site's pages about the site's topic" },
  { "share",   CFG_DOUBLE, TOPIC_OFF(share),   "0.04", 0, 1, NULL, "fraction of the sites (and of the other pages) about topic 0, the target" },
  { "topics",  CFG_INT,    TOPIC_OFF(topics),  "12",   2, TW_TOPIC_MAX, NULL, "number of topics (topic 0 is the target, topic 1 the bridge)" },
  { "words",   CFG_INT,    TOPIC_OFF(words),   "200",  10, 100000, NULL, "words of text per page, besides the links" },
};
#define TOPIC_NKEYS (sizeof topic_keys / sizeof topic_keys[0])

void tw_topic_markdown(FILE *out)
{
  fputs("| option | default | meaning |\n| --- | --- | --- |\n", out);
  for(size_t i = 0; i < TOPIC_NKEYS; i++)
    fprintf(out, "| `%s` | %s | %s |\n", topic_keys[i].name, topic_keys[i].def,
            topic_keys[i].help);
}

static tw_err opts_parse(struct tw_topic_opts *o, const char *spec, char *err, size_t errlen)
{
  char why[160], key[64], val[128];
  memset(o, 0, sizeof *o);
  for(size_t i = 0; i < TOPIC_NKEYS; i++)
    cfg_set(&topic_keys[i], o, topic_keys[i].def, why, sizeof why);
  for(const char *p = spec; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    size_t klen = eq ? (size_t)(eq - p) : 0, vlen = eq ? len - klen - 1 : 0;
    size_t i = TOPIC_NKEYS;
    if(eq && klen < sizeof key && vlen < sizeof val) {
      memcpy(key, p, klen);
      key[klen] = '\0';
      memcpy(val, eq + 1, vlen);
      val[vlen] = '\0';
      for(i = 0; i < TOPIC_NKEYS && strcmp(topic_keys[i].name, key); i++)
        ;
    }
    if(i == TOPIC_NKEYS) {
      snprintf(err, errlen, "topics: unknown or malformed option \"%.*s\"",
               (int)(len > 64 ? 64 : len), p);
      return TW_CONFIG;
    }
    if(cfg_set(&topic_keys[i], o, val, why, sizeof why)) {
      snprintf(err, errlen, "topics %s: %s", key, why);
      return TW_CONFIG;
    }
    p = comma ? comma + 1 : NULL;
  }
  return TW_OK;
}

/* ---- Labels ------------------------------------------------------------------ */

/* A topic drawn by the shares: topic 0 with `share`, the others evenly. */
static unsigned draw_topic(const struct tw_topics *t, struct tw_rng *r)
{
  if(tw_rng_unit(r) < t->o.share)
    return 0;
  return 1 + (unsigned)tw_rng_below(r, (uint64_t)t->o.topics - 1);
}

struct site_key {
  uint64_t key;
  uint32_t site;
};

static int key_cmp(const void *a, const void *b)
{
  uint64_t x = ((const struct site_key *)a)->key, y = ((const struct site_key *)b)->key;
  return x < y ? -1 : x > y;
}

/* Sites in a random order: the first are about topic 0 (the first of
 * those hidden), the rest about the other topics in turn. */
static tw_err label_sites(struct tw_topics *t)
{
  struct site_key *k = mem_calloc((size_t)t->sites, sizeof *k);
  if(!k)
    return TW_NOMEM;
  for(long i = 0; i < t->sites; i++) {
    struct tw_rng r = tw_rng_for(t->seed, (uint64_t)i, SALT_SITES);
    k[i] = (struct site_key){ tw_rng_next(&r), (uint32_t)i };
  }
  qsort(k, (size_t)t->sites, sizeof *k, key_cmp);
  long n0 = (long)(t->o.share * (double)t->sites + 0.5);
  if(n0 < 1 && t->o.share > 0)
    n0 = 1;
  long nh = (long)(t->o.hidden * (double)n0 + 0.5);
  if(nh >= n0 && n0 > 1)
    nh = n0 - 1;  /* at least one topic-0 site in the open */
  if(n0 <= 1)
    nh = 0;
  for(long r = 0; r < t->sites; r++) {
    uint32_t s = k[r].site;
    t->site_topic[s] = (uint8_t)(r < n0 ? 0 : 1 + (r - n0) % (t->o.topics - 1));
    t->site_hidden[s] = r < nh;
  }
  mem_free(k);
  return TW_OK;
}

static void label_pages(struct tw_topics *t)
{
  for(long s = 0; s < t->sites; s++)
    for(long j = 0; j < t->pages; j++) {
      struct tw_rng r = tw_rng_for(t->seed ^ SALT_PAGES, (uint64_t)s, (uint64_t)j);
      unsigned topic = t->site_topic[s];
      if(j > 0 && !t->site_hidden[s] && tw_rng_unit(&r) >= t->o.purity)
        topic = draw_topic(t, &r);
      t->page_topic[s * t->pages + j] = (uint8_t)topic;
    }
}

static tw_err index_pages(struct tw_topics *t)
{
  size_t total = (size_t)t->sites * (size_t)t->pages;
  for(long k = 0; k < t->o.topics; k++)
    if(!(t->by_topic[k] = mem_alloc(total * sizeof(uint32_t))))
      return TW_NOMEM;
  if(!(t->hidden_pages = mem_alloc(total * sizeof(uint32_t))))
    return TW_NOMEM;
  for(size_t p = 0; p < total; p++) {
    size_t s = p / (size_t)t->pages;
    if(t->site_hidden[s])
      t->hidden_pages[t->n_hidden++] = (uint32_t)p;
    else
      t->by_topic[t->page_topic[p]][t->n_by_topic[t->page_topic[p]]++] = (uint32_t)p;
  }
  return TW_OK;
}

tw_err tw_topic_build(struct tw_world *w, const char *spec, char *err, size_t errlen)
{
  struct tw_topics *t = mem_calloc(1, sizeof *t);
  if(!t)
    return TW_NOMEM;
  tw_err e = opts_parse(&t->o, spec, err, errlen);
  t->sites = w->gen.sites;
  t->pages = w->gen.pages;
  t->links = w->gen.links;
  t->seed = (uint64_t)w->gen.seed;
  if(!e && (t->sites < 2 || t->pages < 1 || (double)t->sites * (double)t->pages > 4e6)) {
    snprintf(err, errlen, "topics: the generated world needs 2 sites or more, 1 page or more, "
                          "and at most 4 million pages");
    e = TW_CONFIG;
  }
  size_t total = (size_t)(t->sites > 0 ? t->sites : 0) * (size_t)(t->pages > 0 ? t->pages : 0);
  if(!e) {
    t->site_topic = mem_calloc((size_t)t->sites, 1);
    t->site_hidden = mem_calloc((size_t)t->sites, sizeof(bool));
    t->page_topic = mem_calloc(total, 1);
    e = t->site_topic && t->site_hidden && t->page_topic ? TW_OK : TW_NOMEM;
  }
  if(!e)
    e = label_sites(t);
  if(!e) {
    label_pages(t);
    e = index_pages(t);
  }
  if(e) {
    if(e == TW_NOMEM)
      snprintf(err, errlen, "topics: out of memory");
    tw_topic_free(&t);
    return e;
  }
  tw_topic_free(&w->topics);
  w->topics = t;
  return TW_OK;
}

void tw_topic_free(struct tw_topics **tp)
{
  struct tw_topics *t = *tp;
  if(!t)
    return;
  *tp = NULL;
  mem_free(t->site_topic);
  mem_free(t->site_hidden);
  mem_free(t->page_topic);
  for(int k = 0; k < TW_TOPIC_MAX; k++)
    mem_free(t->by_topic[k]);
  mem_free(t->hidden_pages);
  mem_free(t);
}

int tw_topic_of(const struct tw_topics *t, size_t s, long j)
{
  if(!t || s >= (size_t)t->sites || j < 0 || j >= t->pages)
    return -1;
  return t->page_topic[s * (size_t)t->pages + (size_t)j];
}

/* ---- The link graph ------------------------------------------------------------ */

static struct tw_topic_link flat_link(const struct tw_topics *t, uint32_t p)
{
  return (struct tw_topic_link){ p / (uint32_t)t->pages, p % (uint32_t)t->pages };
}

/* A page of topic tt on site s, other than j: a few random tries. */
static bool same_site(const struct tw_topics *t, size_t s, long j, unsigned tt, struct tw_rng *r,
                      struct tw_topic_link *out)
{
  for(int i = 0; i < SITE_TRIES && t->pages > 1; i++) {
    long m = (long)tw_rng_below(r, (uint64_t)t->pages);
    if(m != j && t->page_topic[s * (size_t)t->pages + (size_t)m] == tt) {
      *out = (struct tw_topic_link){ (uint32_t)s, (uint32_t)m };
      return true;
    }
  }
  return false;
}

static struct tw_topic_link one_link(const struct tw_topics *t, size_t s, long j, unsigned tp,
                                     struct tw_rng *r)
{
  struct tw_topic_link l;
  if(tp == 1 && t->n_hidden && tw_rng_unit(r) < t->o.bridge)
    return flat_link(t, t->hidden_pages[tw_rng_below(r, t->n_hidden)]);
  unsigned tt = tw_rng_unit(r) < t->o.local ? tp : draw_topic(t, r);
  if(tt == t->site_topic[s] && tw_rng_unit(r) < SAME_SITE && same_site(t, s, j, tt, r, &l))
    return l;
  if(t->n_by_topic[tt])
    return flat_link(t, t->by_topic[tt][tw_rng_below(r, t->n_by_topic[tt])]);
  return (struct tw_topic_link){ (uint32_t)s, (uint32_t)((j + 1) % t->pages) };
}

size_t tw_topic_links(const struct tw_topics *t, size_t s, long j, struct tw_topic_link *out,
                      size_t max)
{
  long links = t->links;
  struct tw_rng r = tw_rng_for(t->seed ^ SALT_LINKS, (uint64_t)s, (uint64_t)j);
  unsigned tp = t->page_topic[s * (size_t)t->pages + (size_t)j];
  size_t n = 0;
  for(long i = 0; i < links && n + 1 < max; i++) {
    struct tw_topic_link l = one_link(t, s, j, tp, &r);
    if(l.site != s || l.page != (uint32_t)j)
      out[n++] = l;
  }
  if(t->pages > 1 && n < max)
    out[n++] = (struct tw_topic_link){ (uint32_t)s, (uint32_t)((j + 1) % t->pages) };
  return n;
}

/* ---- Pages ------------------------------------------------------------------ */

static const char *pick(const struct tw_words *w, struct tw_rng *r)
{
  return w->v[tw_rng_below(r, w->n)];
}

/* A word of a page of topic tp: its own vocabulary, a neighbour's, or
 * general English. */
static const char *page_word(const struct tw_topics *t, unsigned tp, struct tw_rng *r)
{
  struct tw_words w;
  double u = tw_rng_unit(r);
  unsigned nt = (unsigned)t->o.topics;
  if(u < OWN_WORDS)
    tw_topic_words(tp, &w);
  else if(u < OWN_WORDS + t->o.overlap)
    tw_topic_words((tp + 1) % nt, &w);
  else if(u < OWN_WORDS + 2 * t->o.overlap)
    tw_topic_words((tp + nt - 1) % nt, &w);
  else
    tw_topic_general(&w);
  return pick(&w, r);
}

static void words_out(const struct tw_topics *t, unsigned tp, long n, struct tw_rng *r,
                      struct buf *out)
{
  for(long i = 0; i < n; i++)
    buf_addf(out, "%s%s", i ? " " : "", page_word(t, tp, r));
}

/* The words around a link: of the target's topic (with `context`), or of
 * the page's own mix. */
static void around(const struct tw_topics *t, unsigned tp, unsigned tt, bool ctx,
                   struct tw_rng *r, struct buf *out)
{
  struct tw_words w;
  tw_topic_words(tt, &w);
  for(int i = 0; i < AROUND; i++) {
    const char *word = ctx && tw_rng_unit(r) < 0.4 ? pick(&w, r) : page_word(t, tp, r);
    buf_addf(out, "%s%s", i ? " " : "", word);
  }
}

static void anchor(const struct tw_topics *t, unsigned tp, unsigned tt, struct tw_rng *r,
                   struct buf *out)
{
  struct tw_words w;
  if(tw_rng_unit(r) < t->o.named) {
    tw_topic_words(tt, &w);
  } else if(tw_rng_unit(r) < 0.5) {
    tw_topic_generic(&w);
    buf_adds(out, pick(&w, r));
    return;
  } else {
    tw_topic_words(tp, &w);  /* the linking page's words: misleading */
  }
  int n = 2 + (int)tw_rng_below(r, 2);
  for(int i = 0; i < n; i++)
    buf_addf(out, "%s%s", i ? " " : "", pick(&w, r));
}

static void href(const struct tw_world *w, size_t s, const struct tw_topic_link *l,
                 struct buf *out)
{
  char base[300] = "";
  if(l->site != s)
    tw_page_base(w, w->sites[l->site], base, sizeof base);
  if(l->page == 0)
    buf_addf(out, "%s/", base);
  else
    buf_addf(out, "%s/p/%u.html", base, l->page);
}

static void link_par(const struct tw_world *w, size_t s, unsigned tp,
                     const struct tw_topic_link *l, struct tw_rng *r, struct buf *out)
{
  const struct tw_topics *t = w->topics;
  unsigned tt = (unsigned)tw_topic_of(t, l->site, l->page);
  bool ctx = tw_rng_unit(r) < t->o.context;
  buf_adds(out, "<p>");
  around(t, tp, tt, ctx, r, out);
  buf_adds(out, " <a href=\"");
  href(w, s, l, out);
  buf_adds(out, "\">");
  anchor(t, tp, tt, r, out);
  buf_adds(out, "</a> ");
  around(t, tp, tt, ctx, r, out);
  buf_adds(out, ".</p>\n");
}

tw_err tw_topic_page(const struct tw_world *w, const struct tw_site *site, long j,
                     struct buf *out)
{
  const struct tw_topics *t = w->topics;
  size_t s = site->idx;
  struct tw_topic_link links[LINKS_MAX];
  size_t n = tw_topic_links(t, s, j, links, LINKS_MAX);
  unsigned tp = (unsigned)tw_topic_of(t, s, j);
  struct tw_rng r = tw_rng_for(t->seed ^ SALT_TEXT, (uint64_t)s, (uint64_t)j);
  struct tw_words own;
  tw_topic_words(tp, &own);
  char title[200];
  snprintf(title, sizeof title, "%s %s %s", pick(&own, &r), pick(&own, &r), pick(&own, &r));
  buf_addf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
           "<title>%s</title>\n</head>\n<body>\n<h1>%s</h1>\n<p>", title, title);
  words_out(t, tp, t->o.words / 2, &r, out);
  buf_adds(out, ".</p>\n");
  for(size_t i = 0; i + 1 < n; i++)
    link_par(w, s, tp, &links[i], &r, out);
  buf_adds(out, "<p>");
  words_out(t, tp, t->o.words - t->o.words / 2, &r, out);
  buf_adds(out, ".</p>\n<p><a href=\"");
  if(n)
    href(w, s, &links[n - 1], out);  /* the next page */
  buf_adds(out, "\">next page</a></p>\n</body></html>\n");
  return out->len + 64 < out->max ? TW_OK : TW_TOO_LARGE;
}
