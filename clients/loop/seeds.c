#include "clients/loop/seeds.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"

#define SEED_LINE_MAX 4096
#define SEED_SAY_MAX  100  /* refused lines named one by one; the rest counted */

/* Read one line; false at the end. *too_long when it went past the
 * buffer (the rest of it is skipped). */
static bool seed_line(FILE *f, char *line, size_t size, bool *too_long)
{
  if(!fgets(line, (int)size, f))
    return false;
  size_t len = strcspn(line, "\r\n");
  *too_long = line[len] == '\0' && !feof(f);
  while(*too_long && fgets(line, (int)size, f) && !strchr(line, '\n'))
    ;
  line[len] = '\0';
  return true;
}

static const char *seed_why_text(const char *why)
{
  if(!strcmp(why, "malformed"))
    return "not a seed URL";
  if(!strcmp(why, "duplicate"))
    return "a duplicate: already queued or crawled";
  if(!strcmp(why, "extension"))
    return "file type that is not a page (the extension denylist, --deny-ext)";
  if(!strcmp(why, "rule"))
    return "rejected by a scope rule (--scope-rules; the summary's scope_rules names it)";
  return why;
}

struct seeds_read {
  const char   *path, *prog;
  unsigned long no;
  int           n, bad;
};

static void seed_refused(struct seeds_read *s, const char *why, bool too_long, const char *url)
{
  if(s->bad++ >= SEED_SAY_MAX)
    return;
  if(too_long) {
    fprintf(stderr, "%s: %s line %lu: longer than a URL can be\n", s->prog, s->path, s->no);
    return;
  }
  fprintf(stderr, "%s: %s line %lu: %s (%s)\n", s->prog, s->path, s->no, seed_why_text(why),
          why);
  struct log_ctx ctx = { .url = url, .action = "reading the seeds" };
  LOGC(LOG_WARN, &ctx, "seed refused: %s (line %lu)", why, s->no);
}

/* One line: queued, refused (said, counted by the engine), or a local
 * error. */
static crawl_err seed_one(struct crawl *c, struct seeds_read *s, const char *line,
                          bool too_long)
{
  const char *why = NULL;
  /* A line past the buffer is not a URL: refused whole, not cut. */
  crawl_err e = too_long ? crawl_seed(c, "", &why) : crawl_seed(c, line, &why);
  if(!e && why)
    seed_refused(s, why, too_long, line);
  s->n += !e && !why;
  return e;
}

int crawl_seeds_file(struct crawl *c, const char *path, const char *prog, bool resume,
                     int *nseeds)
{
  FILE *f = fopen(path, "r");
  *nseeds = 0;
  if(!f) {
    fprintf(stderr, "%s: cannot read seeds file %s\n", prog, path);
    return -1;
  }
  char line[SEED_LINE_MAX + 2];
  struct seeds_read s = { path, prog, 0, 0, 0 };
  bool too_long;
  crawl_err e = CRAWL_OK;
  while(!e && seed_line(f, line, sizeof line, &too_long)) {
    const char *p = line + strspn(line, " \t");
    s.no++;
    if(!too_long && (!*p || *p == '#'))
      continue;
    e = seed_one(c, &s, p, too_long);
  }
  if(!e && ferror(f))
    e = CRAWL_ERR_IO;
  fclose(f);
  if(e)
    fprintf(stderr, "%s: seeds file %s: %s\n", prog, path, crawl_err_text(e));
  if(s.bad > SEED_SAY_MAX)
    fprintf(stderr, "%s: %s: %d more lines refused (the summary's seed_refusals counts "
                    "them by reason)\n", prog, path, s.bad - SEED_SAY_MAX);
  struct crawl_stats st;
  crawl_stats(c, &st);
  char why[512];
  tally_text(&st.seed_refusals, why, sizeof why);
  LOG(LOG_INFO, "%d seeds, %d refused%s%s%s", s.n, s.bad, s.bad ? " (" : "", s.bad ? why : "",
      s.bad ? ")" : "");
  *nseeds = s.n;
  if(!e && !resume && s.n == 0 && s.bad > 0)
    fprintf(stderr, "%s: no seed left in %s: every line was refused (%s)\n", prog, path, why);
  return !e && (resume || s.n > 0 || s.bad == 0) ? 0 : -1;
}
