#ifndef WPFS_COMMON_CLOCK_H
#define WPFS_COMMON_CLOCK_H
#include <stdint.h>
/* Monotonic milliseconds/microseconds for intervals; wall milliseconds since
 * the epoch for anything stored or shown. */
uint64_t clock_mono_ms(void);
uint64_t clock_mono_us(void);
uint64_t clock_wall_ms(void);
#endif
