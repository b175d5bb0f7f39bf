#ifndef WPFS_COMMON_LIST_H
#define WPFS_COMMON_LIST_H
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
 * An unlinked element has both members NULL. */

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

#endif
