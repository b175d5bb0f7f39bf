/* Nesting estimate before parsing (see html.h for why).
 *
 * A small tokenizer walks the tags the way the parser (libxml2 2.9's
 * HTML parser) reads them: comments, quoted attribute values, the raw
 * text of <script> and <style>, and keeps one open count per tag name: a
 * start tag adds one, an end tag removes one only when that name is open,
 * as the parser pops it. Not counted, because the parser never keeps them
 * open:
 *  - start tags ending in "/>" (<path d="..."/>, <circle/>, <div/>): the
 *    parser closes every such element at once. That is the HTML standard's
 *    reading in foreign content (SVG, MathML) and for void elements; for
 *    an HTML element such as <div/> the standard opens it, the parser does
 *    not, and either way no link is lost. Inline SVG is thousands of these;
 *    counted as open, one icon sprite passed the bound and cut the page;
 *  - void elements, and elements whose start implicitly closes their
 *    previous sibling (p, li, td, option, a, ...).
 * The parser reads <script> and <style> as raw text inside <svg> and
 * <math> too (it knows no foreign content), so the estimate skips them
 * there as well. The estimate errs high on sloppy markup, which only makes
 * the cut earlier; pages of real sites stay far below the default bound. */
#include <string.h>

#include "clients/web/html.h"
#include "common/hash.h"

#define UNKNOWN_SLOTS 256

struct depth_scan {
  const char *p;
  size_t      n, i;
  unsigned    depth;
  /* Open counts by a hash of the name; names beyond the table only add,
   * never remove (errs high). */
  uint64_t    unk_hash[UNKNOWN_SLOTS];
  unsigned    unk_count[UNKNOWN_SLOTS];
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

/* Is name (lower case, len bytes) one of the names of that length packed
 * in set? (A lookup per tag: this is most of the estimate's time.) */
static bool name_in(const char *name, size_t len, const char *set)
{
  size_t n = strlen(set);
  for(size_t i = 0; i + len <= n; i += len)
    if(!memcmp(set + i, name, len))
      return true;
  return false;
}

/* Elements that never add nesting: void ones, and those closed by a start
 * tag of their own kind or by their container's next row or cell; by
 * length. */
static bool depth_not_counted(const char *name, size_t len)
{
  static const char *const by_len[9] = {
    [1] = "pa",
    [2] = "brhrlidtddrbrtrptrtdth",
    [3] = "colimgwbrrtc",
    [4] = "areabaselinkmetaheadbodyhtmlnobrform",
    [5] = "embedinputparamtrackframeimagetheadtbodytfoot",
    [6] = "sourcekeygenoptionbutton",
    [7] = "bgsoundcaption",
    [8] = "basefontmenuitemoptgroupcolgroup",
  };
  return len > 0 && len < 9 && name_in(name, len, by_len[len]);
}

static bool name_is(const char *name, size_t len, const char *what)
{
  return len == strlen(what) && !memcmp(name, what, len);
}

/* Elements whose content the parser reads as text up to their end tag.
 * libxml2 does so for these two only (title, textarea and the like are
 * parsed as markup, so their content counts). */
static bool depth_raw_text(const char *name, size_t len)
{
  return name_is(name, len, "script") || name_is(name, len, "style");
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
 * elsewhere cannot hide the tags that follow. True when the tag ends in a
 * "/>" of its own (not the last byte of an unquoted value: <a href=x/>). */
static bool skip_attributes(struct depth_scan *s)
{
  bool slash = false;
  while(s->i < s->n) {
    char c = s->p[s->i];
    if(c == '>') {
      s->i++;
      return slash;
    }
    slash = c == '/';
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
  return false;
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

static void open_tag(struct depth_scan *s, const char *name, size_t len)
{
  if(depth_not_counted(name, len))
    return;
  s->depth++;
  unsigned *c = unknown_slot(s, name, len, true);
  if(c)
    (*c)++;
}

static void close_tag(struct depth_scan *s, const char *name, size_t len)
{
  unsigned *c = unknown_slot(s, name, len, false);
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
static void skip_raw_text(struct depth_scan *s, const char *name, size_t len)
{
  char needle[16] = "</";
  memcpy(needle + 2, name, len);
  const char *end = find_ci(s->p + s->i, s->n - s->i, needle, len + 2);
  s->i = end ? (size_t)(end - s->p) : s->n;
}

/* A start tag closed by its "/>" opens nothing: the parser ends it at
 * once, <script/> and <style/> included, whose content is then markup. */
static void scan_tag(struct depth_scan *s, bool end)
{
  char name[64];
  size_t len = read_name(s, name, sizeof name);
  bool self_closed = skip_attributes(s);
  if(end) {
    close_tag(s, name, len);
    return;
  }
  if(self_closed)
    return;
  if(depth_raw_text(name, len)) {
    skip_raw_text(s, name, len);  /* a leaf: its end tag follows, it adds no depth */
    return;
  }
  open_tag(s, name, len);
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
