#include "clients/crawl/seeds.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"

#define SEED_LINE_MAX 4096

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

int crawl_seeds_file(struct crawl *c, const char *path, const char *prog, int *nseeds)
{
  FILE *f = fopen(path, "r");
  *nseeds = 0;
  if(!f) {
    fprintf(stderr, "%s: cannot read seeds file %s\n", prog, path);
    return -1;
  }
  char line[SEED_LINE_MAX + 2];
  unsigned long no = 0;
  int n = 0, bad = 0;
  bool too_long;
  crawl_err e = CRAWL_OK;
  while(!e && seed_line(f, line, sizeof line, &too_long)) {
    const char *s = line + strspn(line, " \t");
    no++;
    if(!too_long && (!*s || *s == '#'))
      continue;
    e = too_long ? CRAWL_ERR_INVALID : crawl_add_seed(c, s);
    if(e == CRAWL_ERR_INVALID) {
      bad++;
      fprintf(stderr, "%s: %s line %lu: %s\n", prog, path, no,
              too_long ? "longer than a URL can be" : "not a seed URL");
      e = CRAWL_OK;
    } else {
      n += !e;
    }
  }
  if(!e && ferror(f))
    e = CRAWL_ERR_IO;
  fclose(f);
  if(e)
    fprintf(stderr, "%s: seeds file %s: %s\n", prog, path, crawl_err_text(e));
  LOG(LOG_INFO, "%d seeds, %d refused", n, bad);
  *nseeds = n;
  return !e && (n > 0 || bad == 0) ? 0 : -1;
}
