#ifndef WPFS_COMMON_PORTFILE_H
#define WPFS_COMMON_PORTFILE_H
/* Tell whoever started us which port we bound (port 0 in tests): write it
 * to path, atomically (temporary file, then rename), so a reader never sees
 * half a number. 0, or -1 with errno. */
int portfile_write(const char *path, int port);
#endif
