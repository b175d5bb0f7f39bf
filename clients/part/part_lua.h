#ifndef WPFS_CLIENTS_PART_LUA_H
#define WPFS_CLIENTS_PART_LUA_H
/* The Redis functions of a crawl on several processes
 * (clients/part/lua/<name>.lua, one function library made at build time
 * by mk/lua2c.sh with LUA2C_NAME=part_lua): part_lua_library is its text,
 * part_lua_library_name its name, and each variable below the name of a
 * function in it. Argument layouts are at the top of each file; coord.c
 * is their only caller. */

extern const char part_lua_library[];
extern const char part_lua_library_name[];
extern const char part_lua_rebalance[];  /* heartbeat, renew, claim up to the share */
extern const char part_lua_release[];    /* partitions given back */
extern const char part_lua_snap[];       /* a fenced snapshot, and the stream's acks */
extern const char part_lua_read[];       /* new links of the member's streams, counted */
extern const char part_lua_report[];     /* progress, idle, and whether it is over */

#endif
