/* What the scorer records and reads back: the harvest counts, the crawl
 * log members of each page, the link a recorded page was chosen by (for a
 * resume), checkpoints, the summary and the progress words. */
#include "clients/focus/focus_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

#define FOCUS_CKPT_VERSION 1

/* The page count of harvest point i (100, 200, 500, 1000, ...). */
static uint64_t focus_at(size_t i)
{
  static const unsigned step[] = { 1, 2, 5 };
  uint64_t p = 100;
  for(size_t k = 0; k < i / 3; k++)
    p *= 10;
  return p * step[i % 3];
}

void focus_count(struct focus *f, bool relevant)
{
  f->st.pages++;
  f->st.relevant += relevant;
  if(f->st.nat < FOCUS_AT_MAX && f->st.pages == focus_at(f->st.nat)) {
    f->st.at[f->st.nat] = f->st.pages;
    f->st.relevant_at[f->st.nat] = f->st.relevant;
    f->st.nat++;
  }
}

/* ,"score":S,"relevant":B,"link_score":L,"parent":P,"inherited":I,"off_topic":O */
crawl_err focus_log(const struct focus *f, struct buf *log, double sim, bool relevant,
                    const struct frontier_score *own)
{
  (void)f;
  struct focus_link l;
  focus_link_read(own, &l);
  cm_err e = buf_addf(log, ",\"score\":%.6g,\"relevant\":%s,\"link_score\":%.6g,\"parent\":",
                      sim, relevant ? "true" : "false", own ? own->score : 0.0);
  if(!e)
    e = l.parent ? buf_add_json_str(log, l.parent, l.parent_len) : buf_adds(log, "null");
  if(!e)
    e = buf_addf(log, ",\"inherited\":%.6g,\"off_topic\":%u", l.inherited, l.off);
  return crawl_from_cm(e);
}

static double jnum(json_t *o, const char *k)
{
  return json_number_value(json_object_get(o, k));
}

crawl_err focus_recorded(void *arg, const char *line, size_t len, struct frontier_score *own)
{
  struct focus *f = arg;
  json_t *o = json_loadb(line, len, 0, NULL);
  json_t *rel = json_object_get(o, "relevant");
  if(!o || !json_is_boolean(rel) || !json_is_number(json_object_get(o, "link_score"))) {
    json_decref(o);
    return CRAWL_ERR_CORRUPT;  /* not a line this crawler wrote */
  }
  json_t *parent = json_object_get(o, "parent");
  const char *p = json_string_value(parent);
  json_int_t off = json_integer_value(json_object_get(o, "off_topic"));
  size_t mlen = 0;
  crawl_err e = focus_meta(&f->rec_meta, &f->rec_meta_cap, jnum(o, "inherited"),
                           off < 0 ? 0 : (unsigned)off, p, p ? json_string_length(parent) : 0,
                           &mlen);
  f->rec_sim = jnum(o, "score");
  f->rec_relevant = json_is_true(rel);
  *own = (struct frontier_score){ jnum(o, "link_score"), f->rec_meta, mlen };
  json_decref(o);
  return e;
}

void focus_save(void *arg, struct ckfile *c)
{
  struct focus *f = arg;
  ckfile_put_u64(c, FOCUS_CKPT_VERSION);
  tvec_save(&f->topic, c);
  idf_save(f->idf, c);
  ckfile_put_u64(c, f->st.pages);
  ckfile_put_u64(c, f->st.relevant);
  ckfile_put_u64(c, f->st.links_scored);
  ckfile_put_u64(c, f->st.nat);
  for(size_t i = 0; i < f->st.nat; i++)
    ckfile_put_u64(c, f->st.relevant_at[i]);
}

/* The crawl's own topic comes back with it. */
void focus_load(void *arg, struct ckfile *c)
{
  struct focus *f = arg;
  if(ckfile_get_u64(c) != FOCUS_CKPT_VERSION)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  tvec_load(&f->topic, c);
  idf_load(f->idf, c);
  f->st.pages = ckfile_get_u64(c);
  f->st.relevant = ckfile_get_u64(c);
  f->st.links_scored = ckfile_get_u64(c);
  f->st.nat = (size_t)ckfile_get_u64(c);
  if(f->st.nat > FOCUS_AT_MAX) {
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
    f->st.nat = 0;
  }
  for(size_t i = 0; i < f->st.nat; i++) {
    f->st.at[i] = focus_at(i);
    f->st.relevant_at[i] = ckfile_get_u64(c);
  }
}

static double ratio(uint64_t a, uint64_t b)
{
  return b ? (double)a / (double)b : 0;
}

crawl_err focus_summary(void *arg, struct buf *out)
{
  struct focus *f = arg;
  cm_err e = buf_addf(out, ",\"strategy\":\"%s\",\"relevant\":%llu,\"harvest\":%.4f,"
                      "\"harvest_at\":{", focus_strategy_name(f->o.strategy),
                      (unsigned long long)f->st.relevant, ratio(f->st.relevant, f->st.pages));
  for(size_t i = 0; !e && i < f->st.nat; i++)
    e = buf_addf(out, "%s\"%llu\":%.4f", i ? "," : "", (unsigned long long)f->st.at[i],
                 ratio(f->st.relevant_at[i], f->st.at[i]));
  if(!e)
    e = buf_addf(out, "},\"topic_terms\":%zu,\"idf_docs\":%llu,\"idf_untracked\":%llu,"
                 "\"idf_bytes\":%zu,\"links_scored\":%llu", f->topic.n,
                 (unsigned long long)idf_docs(f->idf),
                 (unsigned long long)idf_untracked(f->idf), idf_bytes(f->idf),
                 (unsigned long long)f->st.links_scored);
  return crawl_from_cm(e);
}

void focus_note(void *arg, char *out, size_t n)
{
  struct focus *f = arg;
  snprintf(out, n, "harvest %.2f (%llu relevant)", ratio(f->st.relevant, f->st.pages),
           (unsigned long long)f->st.relevant);
}
