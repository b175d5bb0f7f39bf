/* X-Robots-Tag and meta robots (robots_tag.h). */
#include "common/robots_tag.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DATE_MAX 64  /* longer is no date: "Wednesday, 25-Jun-2010 15:00:00 GMT" is 36 */

struct piece {
  const char *p;
  size_t      n;
};

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f';
}

static struct piece trim(const char *p, size_t n)
{
  while(n && is_space(*p)) {
    p++;
    n--;
  }
  while(n && is_space(p[n - 1]))
    n--;
  return (struct piece){ p, n };
}

static bool eq(struct piece s, const char *lit)
{
  return s.n == strlen(lit) && !strncasecmp(s.p, lit, s.n);
}

static bool is_token_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

/* Directives with a value ("NAME: value"): their name is no agent. */
static bool valued_directive(struct piece s)
{
  return eq(s, "unavailable_after") || eq(s, "max-snippet") || eq(s, "max-image-preview") ||
         eq(s, "max-video-preview");
}

/* "NAME: rest" with NAME an agent's product token: *name gets NAME, *rest
 * the rest. */
static bool agent_prefix(struct piece s, struct piece *name, struct piece *rest)
{
  size_t i = 0;
  while(i < s.n && is_token_char(s.p[i]))
    i++;
  struct piece nm = { s.p, i };
  struct piece after = trim(s.p + i, s.n - i);
  if(!i || !after.n || after.p[0] != ':' || valued_directive(nm))
    return false;
  *name = nm;
  *rest = trim(after.p + 1, after.n - 1);
  return true;
}

static bool iso_offset(const char *s, long *off)
{
  int hh, mm;
  if(!*s || !strcmp(s, "Z") || !strcmp(s, "z")) {
    *off = 0;
    return true;
  }
  if((s[0] != '+' && s[0] != '-') || sscanf(s + 1, "%2d:%2d", &hh, &mm) != 2 ||
     strlen(s) != 6 || hh > 23 || mm > 59)
    return false;
  *off = (s[0] == '-' ? -1 : 1) * (hh * 3600L + mm * 60L);
  return true;
}

/* ISO 8601, the form Google's documentation shows besides RFC 822/850. */
static bool iso_date(const char *s, int64_t *out)
{
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
  if(!end) {
    memset(&tm, 0, sizeof tm);
    end = strptime(s, "%Y-%m-%d", &tm);
  }
  long off;
  if(!end || !iso_offset(end, &off))
    return false;
  *out = (int64_t)timegm(&tm) - off;
  return true;
}

/* HTTP's date forms through libcurl (the parser the fetcher trusts), then
 * ISO 8601. */
static bool parse_date(struct piece d, int64_t *out)
{
  char s[DATE_MAX + 1];
  if(!d.n || d.n > DATE_MAX)
    return false;
  memcpy(s, d.p, d.n);
  s[d.n] = '\0';
  if(iso_date(s, out))
    return true;
  time_t t = curl_getdate(s, NULL);
  if(t == -1)
    return false;
  *out = (int64_t)t;
  return true;
}

static void add_unavailable(struct robots_tag *t, struct piece date)
{
  int64_t at;
  if(!parse_date(date, &at))
    return;
  if(!(t->bits & ROBOTS_TAG_UNAVAILABLE_AFTER) || at < t->unavailable_after)
    t->unavailable_after = at;
  t->bits |= ROBOTS_TAG_UNAVAILABLE_AFTER;
}

static void add_plain(struct robots_tag *t, struct piece d)
{
  if(eq(d, "noindex"))
    t->bits |= ROBOTS_TAG_NOINDEX;
  else if(eq(d, "nofollow"))
    t->bits |= ROBOTS_TAG_NOFOLLOW;
  else if(eq(d, "none"))
    t->bits |= ROBOTS_TAG_NOINDEX | ROBOTS_TAG_NOFOLLOW;
  else if(eq(d, "noarchive") || eq(d, "nocache"))
    t->bits |= ROBOTS_TAG_NOARCHIVE;
}

/* A weekday alone: an RFC 822/850 date's first piece, before its comma. */
static bool weekday(struct piece s)
{
  static const char *const d[] = { "mon", "tue", "wed", "thu", "fri", "sat", "sun",
                                   "monday", "tuesday", "wednesday", "thursday",
                                   "friday", "saturday", "sunday" };
  for(size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    if(eq(s, d[i]))
      return true;
  return false;
}

struct walk {
  const char *p;
  size_t      n, at;
};

static bool next_piece(struct walk *w, struct piece *out)
{
  if(w->at > w->n)
    return false;
  const char *s = w->p + w->at;
  const char *c = memchr(s, ',', w->n - w->at);
  size_t len = c ? (size_t)(c - s) : w->n - w->at;
  w->at += len + 1;
  *out = trim(s, len);
  return true;
}

/* "unavailable_after: DATE"; a date whose weekday a comma cut off takes
 * the next piece too. */
static bool unavailable(struct robots_tag *t, struct piece d, struct walk *w, bool apply)
{
  const char *colon = memchr(d.p, ':', d.n);
  struct piece nm = { d.p, colon ? (size_t)(colon - d.p) : d.n };
  if(!colon || !eq(trim(nm.p, nm.n), "unavailable_after"))
    return false;
  struct piece date = trim(d.p + nm.n + 1, d.n - nm.n - 1);
  struct walk save = *w;
  struct piece more;
  if(weekday(date) && next_piece(w, &more))
    date = trim(date.p, (size_t)(more.p + more.n - date.p));
  else
    *w = save;
  if(apply)
    add_unavailable(t, date);
  return true;
}

static void directives(struct robots_tag *t, const char *v, size_t n, const char *agent,
                       size_t agent_len, bool scoped)
{
  struct walk w = { v, n, 0 };
  struct piece d, name, rest;
  bool apply = true;
  while(next_piece(&w, &d)) {
    if(scoped && agent_prefix(d, &name, &rest)) {
      apply = name.n == agent_len && agent_len && !strncasecmp(name.p, agent, agent_len);
      d = rest;
    }
    if(!unavailable(t, d, &w, apply) && apply)
      add_plain(t, d);
  }
}

void robots_tag_header(struct robots_tag *t, const char *v, size_t n, const char *agent,
                       size_t agent_len)
{
  directives(t, v, n, agent, agent ? agent_len : 0, true);
}

void robots_tag_meta(struct robots_tag *t, const char *v, size_t n)
{
  directives(t, v, n, NULL, 0, false);
}

bool robots_tag_meta_for(const char *name, const char *agent, size_t agent_len)
{
  struct piece nm = trim(name, strlen(name));
  if(eq(nm, "robots"))
    return true;
  return agent && agent_len && nm.n == agent_len && !strncasecmp(nm.p, agent, agent_len);
}

void robots_tag_at(struct robots_tag *t, int64_t now_s)
{
  if((t->bits & ROBOTS_TAG_UNAVAILABLE_AFTER) && t->unavailable_after <= now_s)
    t->bits |= ROBOTS_TAG_NOINDEX;
}

const char *robots_tag_name(unsigned bit)
{
  switch(bit) {
#define X(e, name, b) case b: return #name;
  ROBOTS_TAGS(X)
#undef X
  default: return NULL;
  }
}

unsigned robots_tag_bit(const char *name)
{
#define X(e, nm, b) if(!strcmp(name, #nm)) return b;
  ROBOTS_TAGS(X)
#undef X
  return 0;
}
