#include "clients/base/ckfile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "clients/base/le.h"
#include "common/mem.h"

#define CK_MAGIC_LEN 8
#define CK_NULL_STR  UINT64_MAX
#define CK_CHUNK     (1u << 20)

struct ck_chunk {
  struct ck_chunk *next;
  size_t           len;
  unsigned char    data[CK_CHUNK];
};

void ckfile_fail(struct ckfile *c, crawl_err e)
{
  if(!c->err)
    c->err = e;
}

static void ck_release(struct ckfile *c)
{
  while(c->head) {
    struct ck_chunk *n = c->head->next;
    mem_free(c->head);
    c->head = n;
  }
  c->tail = NULL;
  if(c->f)
    fclose(c->f);
  if(c->hash)
    XXH3_freeState(c->hash);
  mem_free(c->path);
  mem_free(c->tmp);
  c->f = NULL;
  c->hash = NULL;
  c->path = c->tmp = NULL;
}

static void ck_image_write(struct ckfile *c, const unsigned char *p, size_t n)
{
  while(n > 0 && !c->err) {
    if(!c->tail || c->tail->len == CK_CHUNK) {
      struct ck_chunk *k = mem_alloc(sizeof *k);
      if(!k) {
        ckfile_fail(c, CRAWL_ERR_NOMEM);
        return;
      }
      k->next = NULL;
      k->len = 0;
      if(c->tail)
        c->tail->next = k;
      else
        c->head = k;
      c->tail = k;
    }
    size_t room = CK_CHUNK - c->tail->len, k = n < room ? n : room;
    memcpy(c->tail->data + c->tail->len, p, k);
    c->tail->len += k;
    c->image_bytes += k;
    p += k;
    n -= k;
  }
}

static void ck_write(struct ckfile *c, const void *p, size_t n)
{
  if(c->err || n == 0)
    return;
  if(!c->f) {
    ck_image_write(c, p, n);
    return;
  }
  if(fwrite(p, 1, n, c->f) != n) {
    ckfile_fail(c, CRAWL_ERR_IO);
    return;
  }
  XXH3_64bits_update(c->hash, p, n);
}

crawl_err ckfile_create(struct ckfile *c, const char *path, const char magic[8])
{
  memset(c, 0, sizeof *c);
  size_t n = strlen(path);
  c->path = mem_strdup(path);
  c->tmp = mem_alloc(n + 5);
  c->hash = XXH3_createState();
  if(!c->path || !c->tmp || !c->hash) {
    ck_release(c);
    return CRAWL_ERR_NOMEM;
  }
  memcpy(c->tmp, path, n);
  memcpy(c->tmp + n, ".tmp", 5);
  XXH3_64bits_reset(c->hash);
  c->f = fopen(c->tmp, "wb");
  if(!c->f) {
    ck_release(c);
    return CRAWL_ERR_IO;
  }
  ck_write(c, magic, CK_MAGIC_LEN);
  return CRAWL_OK;
}

void ckfile_create_image(struct ckfile *c)
{
  memset(c, 0, sizeof *c);
}

void ckfile_put_image(struct ckfile *c, const struct ckfile *img)
{
  if(img->err)
    ckfile_fail(c, img->err);
  for(const struct ck_chunk *k = img->head; k && !c->err; k = k->next)
    ck_write(c, k->data, k->len);
}


void ckfile_put_u64(struct ckfile *c, uint64_t v)
{
  uint8_t b[8];
  le_put(b, v, 8);
  ck_write(c, b, sizeof b);
}

void ckfile_put_bytes(struct ckfile *c, const void *p, size_t n)
{
  ck_write(c, p, n);
}

void ckfile_put_str(struct ckfile *c, const char *s)
{
  size_t n = s ? strlen(s) : 0;
  ckfile_put_u64(c, s ? n : CK_NULL_STR);
  ck_write(c, s, n);
}

crawl_err ckfile_commit(struct ckfile *c)
{
  uint8_t b[8];
  le_put(b, c->err ? 0 : XXH3_64bits_digest(c->hash), 8);
  if(!c->err && fwrite(b, 1, sizeof b, c->f) != sizeof b)
    ckfile_fail(c, CRAWL_ERR_IO);
  if(!c->err && fflush(c->f) != 0)
    ckfile_fail(c, CRAWL_ERR_IO);
  if(fclose(c->f) != 0)
    ckfile_fail(c, CRAWL_ERR_IO);
  c->f = NULL;
  if(!c->err && rename(c->tmp, c->path) != 0)
    ckfile_fail(c, CRAWL_ERR_IO);
  if(c->err)
    unlink(c->tmp);
  crawl_err e = c->err;
  ck_release(c);
  return e;
}

void ckfile_discard(struct ckfile *c)
{
  if(c->tmp)
    unlink(c->tmp);
  ck_release(c);
}

/* Checksum of the whole file but its last 8 bytes, compared with them. */
static crawl_err ck_verify(FILE *f, uint64_t *payload)
{
  if(fseeko(f, 0, SEEK_END) != 0)
    return CRAWL_ERR_IO;
  off_t size = ftello(f);
  if(size < CK_MAGIC_LEN + 8)
    return CRAWL_ERR_CORRUPT;
  rewind(f);
  XXH3_state_t *h = XXH3_createState();
  if(!h)
    return CRAWL_ERR_NOMEM;
  XXH3_64bits_reset(h);
  uint8_t buf[65536];
  off_t left = size - 8;
  while(left > 0) {
    size_t want = left > (off_t)sizeof buf ? sizeof buf : (size_t)left;
    if(fread(buf, 1, want, f) != want)
      break;
    XXH3_64bits_update(h, buf, want);
    left -= (off_t)want;
  }
  uint64_t sum = XXH3_64bits_digest(h);
  XXH3_freeState(h);
  if(left > 0 || fread(buf, 1, 8, f) != 8)
    return CRAWL_ERR_IO;
  *payload = (uint64_t)size - 8 - CK_MAGIC_LEN;
  return le_get(buf, 8) == sum ? CRAWL_OK : CRAWL_ERR_CORRUPT;
}

crawl_err ckfile_open(struct ckfile *c, const char *path, const char magic[8])
{
  memset(c, 0, sizeof *c);
  c->f = fopen(path, "rb");
  if(!c->f)
    return errno == ENOENT ? CRAWL_ERR_NOT_FOUND : CRAWL_ERR_IO;
  char m[CK_MAGIC_LEN];
  crawl_err e = ck_verify(c->f, &c->left);
  if(!e) {
    rewind(c->f);
    if(fread(m, 1, sizeof m, c->f) != sizeof m)
      e = CRAWL_ERR_IO;
    else if(memcmp(m, magic, CK_MAGIC_LEN) != 0)
      e = CRAWL_ERR_CORRUPT;
  }
  if(e)
    ck_release(c);
  return e;
}

void ckfile_get_bytes(struct ckfile *c, void *p, size_t n)
{
  if(!c->err && n > c->left)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  if(!c->err && n && fread(p, 1, n, c->f) != n)
    ckfile_fail(c, CRAWL_ERR_IO);
  if(c->err) {
    memset(p, 0, n);
    return;
  }
  c->left -= n;
}

uint64_t ckfile_get_u64(struct ckfile *c)
{
  uint8_t b[8];
  ckfile_get_bytes(c, b, sizeof b);
  return le_get(b, 8);
}

char *ckfile_get_str(struct ckfile *c, size_t max)
{
  uint64_t n = ckfile_get_u64(c);
  if(c->err || n == CK_NULL_STR)
    return NULL;
  if(n > max || n > c->left) {
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
    return NULL;
  }
  char *s = mem_alloc((size_t)n + 1);
  if(!s) {
    ckfile_fail(c, CRAWL_ERR_NOMEM);
    return NULL;
  }
  ckfile_get_bytes(c, s, (size_t)n);
  s[n] = '\0';
  if(c->err) {
    mem_free(s);
    return NULL;
  }
  return s;
}

crawl_err ckfile_close(struct ckfile *c)
{
  if(!c->err && c->left != 0)
    ckfile_fail(c, CRAWL_ERR_CORRUPT);
  crawl_err e = c->err;
  ck_release(c);
  return e;
}
