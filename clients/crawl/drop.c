#include "clients/crawl/drop.h"

static const struct {
  const char *name, *text;
  int         trap;
} drop_rows[] = {
  { "none", "kept", 0 },
#define X(e, name, trap, txt) { #name, txt, trap },
  DROP_REASONS(X)
#undef X
};

const char *drop_name(enum drop_reason r)
{
  return (unsigned)r < DROP__LAST ? drop_rows[r].name : "unknown";
}

const char *drop_text(enum drop_reason r)
{
  return (unsigned)r < DROP__LAST ? drop_rows[r].text : "unknown";
}

int drop_is_trap(enum drop_reason r)
{
  return (unsigned)r < DROP__LAST ? drop_rows[r].trap : 0;
}
