/* A fuzz target's inputs replayed without libFuzzer: each file named, or
 * each file of each directory named, handed once to LLVMFuzzerTestOneInput.
 * Built with the normal compiler (and the sanitizers under SANITIZE=1), so
 * make test keeps every target compiling and every seed and every input
 * that once failed passing (tests/e2e/fuzz_replay.sh). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX (16u << 20)

static int replay_file(const char *path, unsigned long *n)
{
  FILE *f = fopen(path, "rb");
  if(!f) {
    perror(path);
    return -1;
  }
  uint8_t *p = malloc(REPLAY_MAX);
  size_t len = p ? fread(p, 1, REPLAY_MAX, f) : 0;
  int bad = !p || ferror(f);
  fclose(f);
  if(!bad) {
    /* A copy of exactly its size, so that ASan sees any read past it. */
    uint8_t *q = malloc(len ? len : 1);
    if(q) {
      memcpy(q, p, len);
      LLVMFuzzerTestOneInput(q, len);
      (*n)++;
    }
    bad = !q;
    free(q);
  }
  free(p);
  if(bad)
    fprintf(stderr, "%s: cannot read\n", path);
  return bad ? -1 : 0;
}

static int replay_dir(const char *dir, unsigned long *n)
{
  DIR *d = opendir(dir);
  if(!d)
    return replay_file(dir, n);
  int rc = 0;
  struct dirent *e;
  char path[4096];
  while((e = readdir(d)) != NULL) {
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if(e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
      rc |= replay_file(path, n);
  }
  closedir(d);
  return rc;
}

int main(int argc, char **argv)
{
  unsigned long n = 0;
  int rc = 0;
  for(int i = 1; i < argc; i++)
    rc |= replay_dir(argv[i], &n);
  printf("%lu inputs\n", n);
  return rc ? 1 : 0;
}
