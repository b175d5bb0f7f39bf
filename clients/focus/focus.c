/* The scorer: the topic, each page's similarity, each link's score by the
 * strategy (focus.h). */
#include "clients/focus/focus_int.h"

#include <stdlib.h>
#include <string.h>

#include "clients/web/html.h"
#include "clients/web/html_text.h"
#include "common/mem.h"

#define TOPIC_PAGE_TEXT (4u << 20)  /* visible text read of one example page */

static const char *const strategy_names[] = { "shark", "best-first", "bfs" };

bool focus_strategy_parse(const char *s, enum focus_strategy *out)
{
  for(int i = 0; i < 3; i++)
    if(s && !strcmp(s, strategy_names[i])) {
      *out = (enum focus_strategy)i;
      return true;
    }
  return false;
}

const char *focus_strategy_name(enum focus_strategy s)
{
  return (unsigned)s < 3 ? strategy_names[s] : "unknown";
}

struct focus_opts focus_opts_default(void)
{
  struct focus_opts o;
  memset(&o, 0, sizeof o);
  o.strategy = FOCUS_SHARK;
  o.shark = (struct shark_params){ 0.5, 0.5, 0.5, 3 };
  o.threshold = 0.15;
  o.context_bytes = 160;
  o.idf_bytes = 64u << 20;
  o.max_terms = 1u << 16;
  o.text = text_opts_default();
  return o;
}

static struct focus *focus_of(void *arg)
{
  struct focus *f = arg;
  if(!f || f->magic != FOCUS_MAGIC)
    abort();
  return f;
}

/* ---- Meta bytes ------------------------------------------------------------ */

void focus_link_read(const struct frontier_score *own, struct focus_link *out)
{
  memset(out, 0, sizeof *out);
  if(!own || own->meta_len < FOCUS_META_HEAD)
    return;  /* a seed, or a URL queued with no meta */
  const unsigned char *m = own->meta;
  uint32_t bits = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 |
                  (uint32_t)m[3] << 24;
  float inh;
  memcpy(&inh, &bits, sizeof inh);
  out->inherited = inh;
  out->off = m[4];
  out->parent_len = own->meta_len - FOCUS_META_HEAD;
  out->parent = out->parent_len ? (const char *)m + FOCUS_META_HEAD : NULL;
}

crawl_err focus_meta(unsigned char **buf, size_t *cap, double inherited, unsigned off,
                     const char *parent, size_t parent_len, size_t *len)
{
  if(parent_len > FRONTIER_META_MAX - FOCUS_META_HEAD)
    parent_len = 0;  /* cannot happen with canonical URLs (2,048 bytes at most) */
  size_t need = FOCUS_META_HEAD + parent_len;
  if(need > *cap) {
    unsigned char *nb = mem_realloc(*buf, need);
    if(!nb)
      return CRAWL_ERR_NOMEM;
    *buf = nb;
    *cap = need;
  }
  float inh = (float)inherited;
  uint32_t bits;
  memcpy(&bits, &inh, sizeof bits);
  for(int i = 0; i < 4; i++)
    (*buf)[i] = (unsigned char)(bits >> (8 * i));
  (*buf)[4] = (unsigned char)(off > 255 ? 255 : off);
  if(parent_len)
    memcpy(*buf + FOCUS_META_HEAD, parent, parent_len);
  *len = need;
  return CRAWL_OK;
}

/* ---- The topic ------------------------------------------------------------- */

crawl_err focus_topic_words(struct focus *f, const char *s, size_t n)
{
  crawl_err e = tvec_add_text(&f->topic, f->text, s, n);
  tvec_end(&f->topic);
  return e;
}

crawl_err focus_topic_page(struct focus *f, const char *body, size_t n)
{
  struct buf text;
  buf_init(&text, TOPIC_PAGE_TEXT);
  crawl_err e = html_text(body, n, NULL, &text, NULL);
  if(!e)
    e = focus_topic_words(f, text.data ? text.data : "", text.len);
  buf_free(&text);
  return e;
}

/* The similarity of s[0..n) to the topic, through scratch. */
static double focus_sim(struct focus *f, struct tvec *v, const char *s, size_t n)
{
  tvec_reset(v);
  if(tvec_add_text(v, f->text, s, n))
    return 0;  /* no memory for this text: it says nothing */
  tvec_end(v);
  return tvec_cosine(f->idf, &f->topic, v);
}

/* ---- Links ------------------------------------------------------------------ */

static bool word_byte(char c)
{
  return c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f';
}

/* The text around link k: up to context_bytes before and after its anchor,
 * without the words cut at either end. */
static double around_sim(struct focus *f, const struct html_links *l, const struct html_link *k)
{
  const char *t = l->text.data ? l->text.data : "";
  size_t len = l->text.len, w = f->o.context_bytes;
  size_t a = k->text_at > w ? k->text_at - w : 0, b = k->text_at;
  size_t c = k->text_at + k->anchor_len, d = c + w < len ? c + w : len;
  while(a > 0 && a < b && word_byte(t[a - 1]))
    a++;  /* started inside a word */
  while(d < len && d > c && word_byte(t[d]))
    d--;  /* ends inside a word */
  tvec_reset(&f->scratch);
  crawl_err e = tvec_add_text(&f->scratch, f->text, t + a, b - a);
  if(!e && c < d)
    e = tvec_add_text(&f->scratch, f->text, t + c, d - c);
  if(e)
    return 0;
  tvec_end(&f->scratch);
  return tvec_cosine(f->idf, &f->topic, &f->scratch);
}

static double shark_link(struct focus *f, const struct html_links *l, const struct html_link *k,
                         double inherited)
{
  const char *t = l->text.data ? l->text.data : "";
  double anchor = k->anchor_len ? focus_sim(f, &f->scratch, t + k->text_at, k->anchor_len) : 0;
  double around = anchor > 0 ? 0 : around_sim(f, l, k);  /* context is 1 then */
  double nb = shark_neighbourhood(&f->o.shark, anchor, around);
  return shark_score(&f->o.shark, inherited, nb);
}

/* Every link of the page: its score by the strategy, its meta (the same
 * for all: inherited, off-topic distance, this page as parent). */
static crawl_err score_links(struct focus *f, struct crawl_scored *p, double sim, bool relevant)
{
  struct focus_link own;
  focus_link_read(p->own, &own);
  struct shark_parent pp = { sim, relevant, own.inherited, own.off };
  double inh = shark_inherited(&f->o.shark, &pp);
  bool follow = f->o.strategy != FOCUS_SHARK || shark_follows(&f->o.shark, &pp);
  size_t mlen;
  crawl_err e = focus_meta(&f->meta, &f->meta_cap, inh, shark_off(&pp), p->url,
                           strlen(p->url), &mlen);
  for(size_t i = 0; !e && i < p->links->n; i++) {
    double s = 0;
    if(f->o.strategy == FOCUS_SHARK && follow)
      s = shark_link(f, p->links, &p->links->v[i], inh);
    else if(f->o.strategy == FOCUS_BEST_FIRST)
      s = sim;
    p->scores[i] = (struct frontier_score){ s, f->meta, mlen };
    p->follow[i] = follow;
    f->st.links_scored++;
  }
  return e;
}

/* ---- The hooks ------------------------------------------------------------- */

static void on_seed(void *arg, const char *url, struct frontier_score *out)
{
  (void)focus_of(arg);
  (void)url;
  *out = (struct frontier_score){ 1.0, NULL, 0 };  /* first, whatever the strategy */
}

static crawl_err on_page(void *arg, struct crawl_scored *p)
{
  struct focus *f = focus_of(arg);
  double sim = 0;
  crawl_err e = CRAWL_OK;
  if(p->text) {
    tvec_reset(&f->page);
    e = tvec_add_text(&f->page, f->text, p->text, p->text_len);
    tvec_end(&f->page);
    /* An original page: its terms are learned (a copy's are not, nor a
     * near duplicate's whose links are read for being its own). */
    if(!e && p->links && !p->copy)
      e = idf_learn(f->idf, &f->page);
    sim = e ? 0 : tvec_cosine(f->idf, &f->topic, &f->page);
  }
  bool relevant = p->text != NULL && sim >= f->o.threshold;
  if(p->replaying) {  /* as it was recorded, whatever can be read back */
    sim = f->rec_sim;
    relevant = f->rec_relevant;
  }
  if(e)
    return e;
  focus_count(f, relevant);
  if(p->links)
    e = score_links(f, p, sim, relevant);
  return e ? e : focus_log(f, p->log, sim, relevant, p->own);
}

crawl_err focus_open(const struct focus_opts *o, struct focus **out)
{
  struct focus *f = mem_calloc(1, sizeof *f);
  *out = NULL;
  if(!f)
    return CRAWL_ERR_NOMEM;
  f->magic = FOCUS_MAGIC;
  f->o = *o;
  tvec_init(&f->topic, o->max_terms);
  tvec_init(&f->page, o->max_terms);
  tvec_init(&f->scratch, o->max_terms);
  crawl_err e = text_open(&o->text, &f->text);
  if(!e)
    e = idf_open(o->idf_bytes, &f->idf);
  if(e) {
    focus_close(&f);
    return e;
  }
  f->hooks = (struct crawl_scorer){ f, on_seed, on_page, focus_recorded, focus_save,
                                    focus_load, focus_summary, focus_note };
  *out = f;
  return CRAWL_OK;
}

void focus_close(struct focus **fp)
{
  struct focus *f = *fp;
  if(!f)
    return;
  *fp = NULL;
  text_close(&f->text);
  idf_close(&f->idf);
  tvec_free(&f->topic);
  tvec_free(&f->page);
  tvec_free(&f->scratch);
  mem_free(f->meta);
  mem_free(f->rec_meta);
  f->magic = 0;
  mem_free(f);
}

const struct crawl_scorer *focus_scorer(struct focus *f)
{
  return &f->hooks;
}

void focus_stats(const struct focus *f, struct focus_stats *st)
{
  *st = f->st;
  st->topic_terms = f->topic.n;
  st->idf_docs = idf_docs(f->idf);
}
