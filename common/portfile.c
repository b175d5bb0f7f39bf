#include "common/portfile.h"

#include <stdio.h>

int portfile_write(const char *path, int port)
{
  char tmp[4096];
  if(snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return -1;
  FILE *f = fopen(tmp, "w");
  if(!f)
    return -1;
  fprintf(f, "%d\n", port);
  if(fclose(f) || rename(tmp, path)) {
    remove(tmp);
    return -1;
  }
  return 0;
}
