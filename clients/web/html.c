/* gumbo with a bounded arena; see html.h for the bounds and why. */
#include "clients/web/html.h"

#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

/* Chunks are carved front to back; gumbo's frees are ignored (it frees
 * mostly growing vectors and token buffers, about a third of what it
 * allocates), and the whole arena goes at once. */
#define ARENA_CHUNK (256u << 10)
#define ARENA_ALIGN 16u

struct arena_chunk {
  struct arena_chunk *next;
  size_t              size, used;
  max_align_t         data[];
};

struct html_arena {
  struct arena_chunk *head;
  size_t              total, max;
  jmp_buf            *bail;     /* where to go when over budget */
};

enum { BAIL_BUDGET = 1, BAIL_NOMEM = 2 };

static void arena_free(struct html_arena *a)
{
  if(!a)
    return;
  struct arena_chunk *c = a->head;
  while(c) {
    struct arena_chunk *next = c->next;
    mem_free(c);
    c = next;
  }
  mem_free(a);
}

static struct arena_chunk *arena_grow(struct html_arena *a, size_t need)
{
  size_t size = need > ARENA_CHUNK ? need : ARENA_CHUNK;
  if(a->total + size > a->max)
    longjmp(*a->bail, BAIL_BUDGET);
  struct arena_chunk *c = mem_alloc(sizeof *c + size);
  if(!c)
    longjmp(*a->bail, BAIL_NOMEM);
  c->size = size;
  c->used = 0;
  c->next = a->head;
  a->head = c;
  a->total += size;
  return c;
}

/* gumbo's allocator: it has no failure path, so running out of budget
 * jumps back to html_parse, which drops the arena whole. */
static void *arena_alloc(void *ud, size_t n)
{
  struct html_arena *a = ud;
  n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if(n == 0)
    n = ARENA_ALIGN;
  struct arena_chunk *c = a->head;
  if(!c || c->size - c->used < n)
    c = arena_grow(a, n);
  void *p = (char *)c->data + c->used;
  c->used += n;
  return p;
}

static void arena_dealloc(void *ud, void *p)
{
  (void)ud;
  (void)p;
}

static struct html_opts html_opts_fill(const struct html_opts *o)
{
  struct html_opts r = { HTML_MAX_BYTES_DEFAULT, HTML_MEM_MAX_DEFAULT,
                         HTML_MAX_DEPTH_DEFAULT };
  if(o && o->max_bytes)
    r.max_bytes = o->max_bytes;
  if(o && o->mem_max)
    r.mem_max = o->mem_max;
  if(o && o->max_depth)
    r.max_depth = o->max_depth;
  return r;
}

/* The part of the input given to the parser, and why it was cut. */
static size_t html_prefix(const char *p, size_t n, const struct html_opts *o,
                          enum html_cut *cut)
{
  *cut = HTML_CUT_NONE;
  if(n > o->max_bytes) {
    n = o->max_bytes;
    *cut = HTML_CUT_SIZE;
  }
  size_t d = html_depth_cut(p, n, o->max_depth);
  if(d < n) {
    n = d;
    *cut = HTML_CUT_DEPTH;
  }
  return n;
}

static GumboOutput *html_run(struct html_arena *a, const char *p, size_t n)
{
  GumboOptions go = kGumboDefaultOptions;
  go.allocator = arena_alloc;
  go.deallocator = arena_dealloc;
  go.userdata = a;
  go.max_errors = 0;  /* parse errors are of no use to a crawler */
  return gumbo_parse_with_options(&go, p, n);
}

struct parse_job {
  struct html_arena *arena;
  const char        *p;
  size_t             len;
  GumboOutput       *out;
};

/* The only frame that setjmp guards: it keeps nothing in locals that the
 * jump could clobber (everything lives in *job). */
static int html_guarded(struct parse_job *job)
{
  jmp_buf bail;
  job->arena->bail = &bail;
  int why = setjmp(bail);
  if(why == 0)
    job->out = html_run(job->arena, job->p, job->len);
  job->arena->bail = NULL;
  return why;
}

crawl_err html_parse(const char *p, size_t n, const struct html_opts *o,
                     struct html_doc *doc)
{
  memset(doc, 0, sizeof *doc);
  struct html_opts op = html_opts_fill(o);
  struct parse_job job = { NULL, n ? p : "", 0, NULL };
  job.len = html_prefix(job.p, n, &op, &doc->cut);
  job.arena = mem_calloc(1, sizeof *job.arena);
  if(!job.arena)
    return CRAWL_ERR_NOMEM;
  job.arena->max = op.mem_max;
  int why = html_guarded(&job);
  if(why) {
    arena_free(job.arena);
    memset(doc, 0, sizeof *doc);
    return why == BAIL_BUDGET ? CRAWL_ERR_TOO_LARGE : CRAWL_ERR_NOMEM;
  }
  doc->out = job.out;
  doc->arena = job.arena;
  doc->parsed = job.len;
  doc->mem = job.arena->total;
  return CRAWL_OK;
}

void html_free(struct html_doc *doc)
{
  arena_free(doc->arena);
  memset(doc, 0, sizeof *doc);
}

const char *html_attr(const GumboNode *node, const char *name)
{
  if(node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE)
    return NULL;
  const GumboAttribute *at = gumbo_get_attribute(&node->v.element.attributes, name);
  return at ? at->value : NULL;
}

static const GumboVector *html_children(const GumboNode *n)
{
  switch(n->type) {
  case GUMBO_NODE_DOCUMENT:
    return &n->v.document.children;
  case GUMBO_NODE_ELEMENT:
  case GUMBO_NODE_TEMPLATE:
    return &n->v.element.children;
  default:
    return NULL;
  }
}

struct walk_frame {
  const GumboNode   *node;  /* whose children these are: left when they are done */
  const GumboVector *kids;
  unsigned           next;
};

struct walk_stack {
  struct walk_frame *v;
  size_t             top, cap;
};

/* Push the children of a node; past the cap they are skipped. */
static crawl_err walk_push(struct walk_stack *st, const GumboNode *node,
                           const GumboVector *kids, size_t *skipped)
{
  if(st->top == st->cap && st->cap < HTML_WALK_MAX_DEPTH) {
    size_t ncap = st->cap ? st->cap * 2 : 64;
    if(ncap > HTML_WALK_MAX_DEPTH)
      ncap = HTML_WALK_MAX_DEPTH;
    struct walk_frame *nv = mem_realloc(st->v, ncap * sizeof *nv);
    if(!nv)
      return CRAWL_ERR_NOMEM;
    st->v = nv;
    st->cap = ncap;
  }
  if(st->top < st->cap)
    st->v[st->top++] = (struct walk_frame){ node, kids, 0 };
  else if(skipped)
    (*skipped)++;
  return CRAWL_OK;
}

/* Enter n; if its children are not to be walked, it is left at once. */
static crawl_err walk_enter(struct walk_stack *st, const GumboNode *n, html_visit_fn *visit,
                            html_leave_fn *leave, void *arg, size_t *skipped)
{
  if(!visit(n, arg))
    return CRAWL_OK;
  const GumboVector *kids = html_children(n);
  size_t top = st->top;
  crawl_err e = kids && kids->length > 0 ? walk_push(st, n, kids, skipped) : CRAWL_OK;
  if(leave && st->top == top)
    leave(n, arg);
  return e;
}

crawl_err html_walk_ex(const struct html_doc *doc, html_visit_fn *visit, html_leave_fn *leave,
                       void *arg, size_t *skipped)
{
  struct walk_stack st = { NULL, 0, 0 };
  crawl_err e = CRAWL_OK;
  const GumboNode *n = doc->out ? doc->out->document : NULL;
  while(n && !e) {
    e = walk_enter(&st, n, visit, leave, arg, skipped);
    while(st.top > 0 && st.v[st.top - 1].next >= st.v[st.top - 1].kids->length) {
      st.top--;
      if(leave)
        leave(st.v[st.top].node, arg);
    }
    n = st.top > 0 ? st.v[st.top - 1].kids->data[st.v[st.top - 1].next++] : NULL;
  }
  mem_free(st.v);
  return e;
}

crawl_err html_walk(const struct html_doc *doc, html_visit_fn *visit, void *arg,
                    size_t *skipped)
{
  return html_walk_ex(doc, visit, NULL, arg, skipped);
}
