/* Nesting estimate before parsing (see html.h for why).
 *
 * A small tokenizer walks the tags the way the HTML5 tokenizer would
 * (comments, quoted attribute values, raw-text elements such as <script>),
 * and keeps one open count per tag name: a start tag adds one, an end tag
 * removes one only when that name is open, as the tree builder would pop
 * it. Void elements and elements whose start implicitly closes their
 * previous sibling (p, li, td, option, a, ...) never nest, so they are not
 * counted. The estimate errs high on sloppy markup, which only makes the
 * cut earlier; pages of real sites stay far below the default bound. */
#include <string.h>

#include "clients/web/html.h"
#include "common/hash.h"

#define UNKNOWN_SLOTS 128

struct depth_scan {
  const char *p;
  size_t      n, i;
  unsigned    depth;
  unsigned    known[GUMBO_TAG_LAST + 1];
  /* Custom elements by a hash of their name; beyond the table they only
   * add, never remove (errs high). */
  uint64_t    unk_hash[UNKNOWN_SLOTS];
  unsigned    unk_count[UNKNOWN_SLOTS];
  bool        foreign;
};

static bool is_alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static char lower(char c)
{
  return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Elements that never add nesting: void ones, and those closed by a start
 * tag of their own kind or by their container's next row or cell. */
static bool depth_not_counted(GumboTag t)
{
  switch(t) {
  case GUMBO_TAG_AREA: case GUMBO_TAG_BASE: case GUMBO_TAG_BR:
  case GUMBO_TAG_COL: case GUMBO_TAG_EMBED: case GUMBO_TAG_HR:
  case GUMBO_TAG_IMG: case GUMBO_TAG_INPUT: case GUMBO_TAG_LINK:
  case GUMBO_TAG_META: case GUMBO_TAG_PARAM: case GUMBO_TAG_SOURCE:
  case GUMBO_TAG_TRACK: case GUMBO_TAG_WBR: case GUMBO_TAG_KEYGEN:
  case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND: case GUMBO_TAG_FRAME:
  case GUMBO_TAG_IMAGE: case GUMBO_TAG_MENUITEM:
  case GUMBO_TAG_P: case GUMBO_TAG_LI: case GUMBO_TAG_DT: case GUMBO_TAG_DD:
  case GUMBO_TAG_OPTION: case GUMBO_TAG_OPTGROUP: case GUMBO_TAG_RB:
  case GUMBO_TAG_RT: case GUMBO_TAG_RTC: case GUMBO_TAG_RP:
  case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
  case GUMBO_TAG_THEAD: case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT:
  case GUMBO_TAG_COLGROUP: case GUMBO_TAG_CAPTION: case GUMBO_TAG_HEAD:
  case GUMBO_TAG_BODY: case GUMBO_TAG_HTML: case GUMBO_TAG_A:
  case GUMBO_TAG_NOBR: case GUMBO_TAG_BUTTON: case GUMBO_TAG_FORM:
    return true;
  default:
    return false;
  }
}

/* Elements whose content the tokenizer reads as text up to their end tag. */
static bool depth_raw_text(GumboTag t)
{
  switch(t) {
  case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_XMP:
  case GUMBO_TAG_IFRAME: case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES:
  case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_TITLE:
    return true;
  default:
    return false;
  }
}

static const char *find_ci(const char *p, size_t n, const char *needle, size_t k)
{
  for(size_t i = 0; i + k <= n; i++) {
    size_t j = 0;
    while(j < k && lower(p[i + j]) == needle[j])
      j++;
    if(j == k)
      return p + i;
  }
  return NULL;
}

/* Skip to just past the next '>' (or to the end). */
static void skip_past_gt(struct depth_scan *s)
{
  const char *gt = memchr(s->p + s->i, '>', s->n - s->i);
  s->i = gt ? (size_t)(gt - s->p) + 1 : s->n;
}

/* A comment ends at "-->" or "--!>"; "<!-->" and "<!--->" are empty ones. */
static void skip_comment(struct depth_scan *s)
{
  size_t i = s->i + 4;
  if(i < s->n && s->p[i] == '>') {
    s->i = i + 1;
    return;
  }
  if(i + 1 < s->n && s->p[i] == '-' && s->p[i + 1] == '>') {
    s->i = i + 2;
    return;
  }
  for(; i + 2 < s->n; i++) {
    if(s->p[i] != '-' || s->p[i + 1] != '-')
      continue;
    if(s->p[i + 2] == '>') {
      s->i = i + 3;
      return;
    }
    if(i + 3 < s->n && s->p[i + 2] == '!' && s->p[i + 3] == '>') {
      s->i = i + 4;
      return;
    }
  }
  s->i = s->n;
}

static void skip_spaces(struct depth_scan *s)
{
  while(s->i < s->n && is_space(s->p[s->i]))
    s->i++;
}

/* An attribute value after '=': quoted (may hold '>') or not. */
static void skip_value(struct depth_scan *s)
{
  skip_spaces(s);
  if(s->i >= s->n)
    return;
  char q = s->p[s->i];
  if(q == '"' || q == '\'') {
    const char *end = memchr(s->p + s->i + 1, q, s->n - s->i - 1);
    s->i = end ? (size_t)(end - s->p) + 1 : s->n;
    return;
  }
  while(s->i < s->n && !is_space(s->p[s->i]) && s->p[s->i] != '>')
    s->i++;
}

/* Attributes up to the end of a tag, as the tokenizer's attribute states
 * read them: a quote opens a value only right after '=', so a stray quote
 * elsewhere cannot hide the tags that follow. */
static void skip_attributes(struct depth_scan *s)
{
  while(s->i < s->n) {
    char c = s->p[s->i];
    if(c == '>') {
      s->i++;
      return;
    }
    if(is_space(c) || c == '/') {
      s->i++;
      continue;
    }
    s->i++;  /* the first character of a name may be anything, '=' too */
    while(s->i < s->n && !is_space(s->p[s->i]) && s->p[s->i] != '/' &&
          s->p[s->i] != '>' && s->p[s->i] != '=')
      s->i++;
    skip_spaces(s);
    if(s->i < s->n && s->p[s->i] == '=') {
      s->i++;
      skip_value(s);
    }
  }
}

static unsigned *unknown_slot(struct depth_scan *s, const char *name, size_t len,
                              bool create)
{
  uint64_t h = hash_fp64(name, len) | 1;  /* 0 marks a free slot */
  for(unsigned k = 0; k < UNKNOWN_SLOTS; k++) {
    unsigned at = (unsigned)((h + k) % UNKNOWN_SLOTS);
    if(s->unk_hash[at] == h)
      return &s->unk_count[at];
    if(s->unk_hash[at] == 0) {
      if(!create)
        return NULL;
      s->unk_hash[at] = h;
      return &s->unk_count[at];
    }
  }
  return NULL;
}

static void open_tag(struct depth_scan *s, GumboTag t, const char *name, size_t len)
{
  if(t != GUMBO_TAG_UNKNOWN && depth_not_counted(t))
    return;
  s->depth++;
  if(t != GUMBO_TAG_UNKNOWN) {
    s->known[t]++;
    return;
  }
  unsigned *c = unknown_slot(s, name, len, true);
  if(c)
    (*c)++;
}

static void close_tag(struct depth_scan *s, GumboTag t, const char *name, size_t len)
{
  unsigned *c = t != GUMBO_TAG_UNKNOWN ? &s->known[t] : unknown_slot(s, name, len, false);
  if(c && *c > 0) {
    (*c)--;
    s->depth--;
  }
}

/* Read a tag name at s->i into a lower-case copy; returns its length. */
static size_t read_name(struct depth_scan *s, char *name, size_t cap)
{
  size_t len = 0;
  while(s->i < s->n && !is_space(s->p[s->i]) && s->p[s->i] != '>' && s->p[s->i] != '/') {
    if(len < cap)
      name[len] = lower(s->p[s->i]);
    len++;
    s->i++;
  }
  return len < cap ? len : cap;
}

/* After the start tag of a raw-text element: skip to its end tag. */
static void skip_raw_text(struct depth_scan *s, GumboTag t)
{
  const char *name = gumbo_normalized_tagname(t);
  char needle[16] = "</";
  size_t k = strlen(name);
  memcpy(needle + 2, name, k);
  const char *end = find_ci(s->p + s->i, s->n - s->i, needle, k + 2);
  s->i = end ? (size_t)(end - s->p) : s->n;
}

/* Once an svg or math element was seen, raw-text elements may be foreign
 * ones whose content is markup; the tree builder's view of where foreign
 * content ends is not tracked, so from then on nothing is skipped (the
 * estimate can only err high). */
static bool in_foreign(const struct depth_scan *s)
{
  return s->foreign;
}

static void scan_tag(struct depth_scan *s, bool end)
{
  char name[64];
  size_t len = read_name(s, name, sizeof name);
  GumboTag t = gumbo_tagn_enum(name, (unsigned)len);
  skip_attributes(s);
  if(end) {
    close_tag(s, t, name, len);
    return;
  }
  if(t == GUMBO_TAG_PLAINTEXT && !in_foreign(s)) {
    s->i = s->n;
    return;
  }
  if(t == GUMBO_TAG_SVG || t == GUMBO_TAG_MATH)
    s->foreign = true;
  if(depth_raw_text(t) && !in_foreign(s)) {
    skip_raw_text(s, t);  /* a leaf: its end tag follows, it adds no depth */
    return;
  }
  open_tag(s, t, name, len);
}

/* One markup construct starting at the '<' at s->i. */
static void scan_markup(struct depth_scan *s)
{
  size_t at = s->i;
  char c = at + 1 < s->n ? s->p[at + 1] : '\0';
  if(c == '!' && at + 3 < s->n && s->p[at + 2] == '-' && s->p[at + 3] == '-') {
    skip_comment(s);
  } else if(c == '!' || c == '?') {
    skip_past_gt(s);
  } else if(c == '/' && at + 2 < s->n && is_alpha(s->p[at + 2])) {
    s->i = at + 2;
    scan_tag(s, true);
  } else if(c == '/') {
    skip_past_gt(s);
  } else if(is_alpha(c)) {
    s->i = at + 1;
    scan_tag(s, false);
  } else {
    s->i = at + 1;
  }
}

size_t html_depth_cut(const char *p, size_t n, unsigned max_depth)
{
  static struct depth_scan zero;
  struct depth_scan s = zero;
  s.p = p;
  s.n = n;
  while(s.i < n) {
    const char *lt = memchr(p + s.i, '<', n - s.i);
    if(!lt)
      break;
    s.i = (size_t)(lt - p);
    size_t tag_at = s.i;
    scan_markup(&s);
    if(s.depth > max_depth)
      return tag_at;
  }
  return n;
}
