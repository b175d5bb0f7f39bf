#ifndef WPFS_COMMON_LIST_H
#define WPFS_COMMON_LIST_H
#include <stddef.h>

/* Intrusive doubly linked lists. An element has two pointer members (named
 * by the caller: prev/next, or pprev/pnext when it is on two lists); a list
 * is a pointer to its first element and, when the list keeps one, to its
 * last. Macros over those names, so that one definition serves every
 * element type: BSD's TAILQ and libuv's queue.h are the model, but their
 * own member types would change every walk over the lists for nothing.
 * Each argument is evaluated more than once: pass plain lvalues.
 *
 *   DL_PUSH_FRONT(first, x, prev, next)        list without a last pointer
 *   DL_UNLINK(first, x, prev, next)
 *   DLT_PUSH_FRONT(first, last, x, prev, next)  list with one
 *   DLT_PUSH_BACK(first, last, x, prev, next)
 *   DLT_UNLINK(first, last, x, prev, next)
 *   DLT_INSERT_AFTER(first, last, at, x, prev, next)  (at: in the list)
 * An unlinked element has both members NULL.
 *
 * A counted list keeps its length beside first and last, changed only by
 * the functions that link and unlink: a count kept by hand beside the
 * macros drifts the day one path forgets it. CLIST_HEAD declares the list
 * type; CLIST_FUNCS defines static inline functions typed for one element
 * type, so that walks stay plain (for(x = l->first; x; x = x->next)):
 *
 *   CLIST_HEAD(job_list, struct job);          struct job_list { first, last, n }
 *   CLIST_FUNCS(jl, job_list, struct job, prev, next)
 *     jl_push_back(l, x)  jl_push_front(l, x)  jl_insert_after(l, at, x)
 *     jl_remove(l, x)
 */

#define DL_PUSH_FRONT(first, x, prev, next)  \
  do {                                       \
    (x)->prev = NULL;                        \
    (x)->next = (first);                     \
    if(first)                                \
      (first)->prev = (x);                   \
    (first) = (x);                           \
  } while(0)

#define DL_UNLINK(first, x, prev, next)      \
  do {                                       \
    if((x)->prev)                            \
      (x)->prev->next = (x)->next;           \
    else                                     \
      (first) = (x)->next;                   \
    if((x)->next)                            \
      (x)->next->prev = (x)->prev;           \
    (x)->prev = (x)->next = NULL;            \
  } while(0)

#define DLT_PUSH_FRONT(first, last, x, prev, next) \
  do {                                             \
    (x)->prev = NULL;                              \
    (x)->next = (first);                           \
    if(first)                                      \
      (first)->prev = (x);                         \
    else                                           \
      (last) = (x);                                \
    (first) = (x);                                 \
  } while(0)

#define DLT_PUSH_BACK(first, last, x, prev, next)  \
  do {                                             \
    (x)->next = NULL;                              \
    (x)->prev = (last);                            \
    if(last)                                       \
      (last)->next = (x);                          \
    else                                           \
      (first) = (x);                               \
    (last) = (x);                                  \
  } while(0)

#define DLT_UNLINK(first, last, x, prev, next)     \
  do {                                             \
    if((x)->prev)                                  \
      (x)->prev->next = (x)->next;                 \
    else                                           \
      (first) = (x)->next;                         \
    if((x)->next)                                  \
      (x)->next->prev = (x)->prev;                 \
    else                                           \
      (last) = (x)->prev;                          \
    (x)->prev = (x)->next = NULL;                  \
  } while(0)

#define DLT_INSERT_AFTER(first, last, at, x, prev, next) \
  do {                                                   \
    (x)->prev = (at);                                    \
    (x)->next = (at)->next;                              \
    if((at)->next)                                       \
      (at)->next->prev = (x);                            \
    else                                                 \
      (last) = (x);                                      \
    (at)->next = (x);                                    \
  } while(0)

#define CLIST_HEAD(name, type) \
  struct name {                \
    type  *first, *last;       \
    size_t n;                  \
  }

/* A file uses some of the four: the others are no warning (clang warns of
 * unused static inline functions outside headers). */
#define CLIST_UNUSED __attribute__((unused))
#define CLIST_FUNCS(fn, name, type, prev, next)                                            \
  static inline CLIST_UNUSED void fn##_push_back(struct name *l, type *x)                  \
  {                                                                                        \
    DLT_PUSH_BACK(l->first, l->last, x, prev, next);                                       \
    l->n++;                                                                                \
  }                                                                                        \
  static inline CLIST_UNUSED void fn##_push_front(struct name *l, type *x)                 \
  {                                                                                        \
    DLT_PUSH_FRONT(l->first, l->last, x, prev, next);                                      \
    l->n++;                                                                                \
  }                                                                                        \
  static inline CLIST_UNUSED void fn##_insert_after(struct name *l, type *at, type *x)     \
  {                                                                                        \
    DLT_INSERT_AFTER(l->first, l->last, at, x, prev, next);                                \
    l->n++;                                                                                \
  }                                                                                        \
  static inline CLIST_UNUSED void fn##_remove(struct name *l, type *x)                     \
  {                                                                                        \
    DLT_UNLINK(l->first, l->last, x, prev, next);                                          \
    l->n--;                                                                                \
  }

#endif
