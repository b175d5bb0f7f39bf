#ifndef WPFS_COMMON_MEM_H
#define WPFS_COMMON_MEM_H
/* Allocation policy (see docs/design.md): parsers and request decoding
 * return CM_NOMEM on failure and are tested with mem_fail_at; process
 * set-up uses the x* variants, which abort with a message. */
#include <stddef.h>

void *mem_alloc(size_t n);
void *mem_calloc(size_t n, size_t size);
void *mem_realloc(void *p, size_t n);
char *mem_strndup(const char *s, size_t n);
char *mem_strdup(const char *s);
void  mem_free(void *p);

void *xalloc(size_t n);
char *xstrdup(const char *s);

/* Test hooks: make the k-th allocation from now fail (0 = never), and count
 * blocks handed out and not yet freed through mem_*. Both are process-wide
 * (relaxed atomics): blocks may be freed on another thread than their
 * allocator's, and the count must still come back to zero. */
void   mem_fail_at(unsigned long k);
long   mem_live(void);

#endif
