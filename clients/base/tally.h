#ifndef WPFS_CLIENTS_TALLY_H
#define WPFS_CLIENTS_TALLY_H
/* Counts by name, for a summary: why URLs ended without a page
 * ("dns_nxdomain": 12), why seeds were refused ("extension": 1). Bounded:
 * names are words of at most TALLY_NAME_MAX - 1 bytes of [a-z0-9_]
 * (anything else counts as "unknown"), and past TALLY_MAX distinct names
 * the rest count as "other", so a peer that makes up words cannot grow
 * it. No allocation: a tally lives inside its owner. */
#include <stddef.h>
#include <stdint.h>

#include "clients/base/ckfile.h"
#include "common/buf.h"

#define TALLY_MAX      48
#define TALLY_NAME_MAX 48

struct tally {
  size_t   n;
  uint64_t total;
  struct {
    char     name[TALLY_NAME_MAX];
    uint64_t count;
  } v[TALLY_MAX];
};

void     tally_add(struct tally *t, const char *name, uint64_t k);
uint64_t tally_get(const struct tally *t, const char *name);
/* True when name is a word a tally keeps as it is. */
int      tally_word(const char *name);
/* {"name":count,...}, most first (ties by name). */
cm_err   tally_json(const struct tally *t, struct buf *out);
/* "name count, name count" most first, cut to fit n; "" when empty. */
void     tally_text(const struct tally *t, char *out, size_t n);
void     tally_save(const struct tally *t, struct ckfile *c);
void     tally_load(struct tally *t, struct ckfile *c);

#endif
