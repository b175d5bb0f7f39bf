/* Reference resolution: RFC 3986 §5.2.2 (strict) and §5.3 recomposition. */
#include <string.h>

#include "common/mem.h"
#include "common/url_int.h"

/* §5.2.3: the base path up to its last '/', then the reference path. */
static cm_err resolve_merge(struct buf *m, const struct url_raw *b,
                            const struct url_span *rp)
{
  cm_err rc = CM_OK;
  if(b->auth.has && b->path.n == 0)
    rc = buf_addc(m, '/');
  else {
    size_t l = b->path.n;
    while(l > 0 && b->path.p[l - 1] != '/')
      l--;
    rc = buf_add(m, b->path.p, l);
  }
  return rc ? rc : buf_add(m, rp->p, rp->n);
}

/* The target path of §5.2.2 for a reference without scheme or authority. */
static cm_err resolve_path(struct buf *out, const struct url_raw *b,
                           const struct url_raw *r, size_t max)
{
  if(r->path.n == 0)
    return buf_add(out, b->path.p, b->path.n);
  if(r->path.p[0] == '/')
    return url_path_remove_dots(out, r->path.p, r->path.n);
  struct buf m;
  buf_init(&m, max);
  cm_err rc = resolve_merge(&m, b, &r->path);
  if(rc == CM_OK)
    rc = url_path_remove_dots(out, m.data, m.len);
  buf_free(&m);
  return rc;
}

static cm_err add_part(struct buf *out, const char *pre, const struct url_span *sp)
{
  if(!sp->has)
    return CM_OK;
  cm_err rc = buf_adds(out, pre);
  return rc ? rc : buf_add(out, sp->p, sp->n);
}

/* §5.2.2 and §5.3 together: each component goes to out as it is decided. */
static cm_err resolve_into(struct buf *out, const struct url_raw *b,
                           const struct url_raw *r, size_t max)
{
  const struct url_raw *ar = r->scheme.has || r->auth.has ? r : b;
  const struct url_span *sch = r->scheme.has ? &r->scheme : &b->scheme;
  const struct url_span *q = &r->query;
  cm_err rc = buf_add(out, sch->p, sch->n);
  if(rc == CM_OK)
    rc = buf_addc(out, ':');
  if(rc == CM_OK)
    rc = add_part(out, "//", &ar->auth);
  if(rc)
    return rc;
  if(ar == r)
    rc = url_path_remove_dots(out, r->path.p, r->path.n);
  else
    rc = resolve_path(out, b, r, max);
  if(ar == b && r->path.n == 0 && !q->has)
    q = &b->query;
  if(rc == CM_OK)
    rc = add_part(out, "?", q);
  return rc ? rc : add_part(out, "#", &r->frag);
}

url_err url_resolve(const char *base, size_t bn, const char *ref, size_t rn,
                    char **out)
{
  *out = NULL;
  if(bn > URL_MAX_LEN_LIMIT || rn > URL_MAX_LEN_LIMIT)
    return URL_ERR_TOO_LONG;
  url_trim(&base, &bn);
  url_trim(&ref, &rn);
  struct url_raw b, r;
  url_err e = url_raw_split(base, bn, &b);
  if(e == URL_OK && !b.scheme.has)
    e = URL_ERR_BASE_NOT_ABSOLUTE;
  if(e == URL_OK)
    e = url_raw_split(ref, rn, &r);
  if(e)
    return e;
  /* The target is never longer than base and reference together. */
  size_t cap = bn + rn + 4;
  struct buf res;
  buf_init(&res, cap);
  e = url_from_cm(resolve_into(&res, &b, &r, cap));
  if(e == URL_OK)
    *out = buf_steal(&res, NULL);
  buf_free(&res);
  return e;
}

url_err url_canon_ref(const char *base, size_t bn, const char *ref, size_t rn,
                      const struct url_opts *o, char **out)
{
  *out = NULL;
  size_t max = url_max_len(o);
  if(bn > max || rn > max)
    return URL_ERR_TOO_LONG;
  char *abs;
  url_err e = url_resolve(base, bn, ref, rn, &abs);
  if(e)
    return e;
  e = url_canon(abs, strlen(abs), o, out);
  mem_free(abs);
  return e;
}
