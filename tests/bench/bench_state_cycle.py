#!/usr/bin/python3
"""The state Redis's CPU a page, the gateway's functions alone.

usage: bench_state_cycle.py PORT LIBRARY SITES URLS BATCH ROUNDS DELAY_US [READY]

Loads LIBRARY (mk/lua2c.sh's library.lua) into the Redis at PORT, queues
URLS requests at each of SITES sites for one client, then runs ROUNDS
rounds of the gateway's cycle: one claim of up to BATCH requests, then a
completion of each (pipelined, DELAY_US to the site's next request, a
local due time as the gateway gives). Prints the Redis CPU a page of the
FCALLs (INFO commandstats, which counts a function's commands in its own
time too), the part its commands took, and a line per command. READY, a
shell command, runs once the queues are set up, before the first round
(bench_state_cycle.sh zeroes callgrind's counters there).
"""
import re
import socket
import subprocess
import sys


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.rf = self.sock.makefile('rb')

    @staticmethod
    def encode(*args):
        out = [b'*%d\r\n' % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b'$%d\r\n%s\r\n' % (len(a), a))
        return b''.join(out)

    def read(self):
        line = self.rf.readline()
        kind, rest = line[:1], line[1:-2]
        if kind == b'+':
            return rest.decode()
        if kind == b'-':
            raise RuntimeError(rest.decode())
        if kind == b':':
            return int(rest)
        if kind == b'$':
            n = int(rest)
            return None if n < 0 else self.rf.read(n + 2)[:-2].decode()
        if kind == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError('bad reply %r' % line)

    def __call__(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.read()


def commandstats(r):
    stats = {}
    for m in re.finditer(r'cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)', r('INFO', 'commandstats')):
        stats[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return stats


def main():
    port, library = int(sys.argv[1]), open(sys.argv[2]).read()
    sites, urls, batch, rounds = (int(a) for a in sys.argv[3:7])
    delay_us = sys.argv[7]
    version = re.search(r'name=wpfs_(\w+)', library).group(1)
    r = Redis(port)
    r('FLUSHALL')
    r('FUNCTION', 'FLUSH')
    r('FUNCTION', 'LOAD', library)

    def fn(name):
        return '%s_%s' % (name, version)
    # A library with the retry policy (docs/retries.md) takes a
    # max_attempts per URL and four more completion arguments; CYCLE_BASE
    # may name a revision from before it.
    retry = 'ra_final' in library
    # submit: shard, client, weight, rate, burst, max_queued, retry, quota
    # client, then site, member, base score, follow (, max_attempts) per URL
    for s in range(sites):
        args = ['{0}', 'c1', '1', '0', '0', '0', '1000', '']
        for j in range(urls):
            args += ['site%04d.test' % s, 'h/page%05d.html' % j, str(4 << 50), '']
            if retry:
                args += ['']
        r('FCALL', fn('submit'), 1, 'h:{0}', *args)
    if len(sys.argv) > 8:
        subprocess.run(sys.argv[8], shell=True, check=True)
    r('CONFIG', 'RESETSTAT')
    pages = 0
    for n in range(rounds):
        # claim: shard, max, lease_ms, token prefix, reap_max, max_attempts,
        # results_maxlen, idle_ms, scan_clients, ahead_us
        claims = r('FCALL', fn('claim'), 1, 'h:{0}', '{0}', batch, 30000, 'b%d' % n,
                   16, 3, 100000, 60000, 8, 0)[5:]
        if not claims:
            break
        # complete: shard, site, token, contacted, delay_us, reason, streak,
        # backoff, response_ms, local_due, results_maxlen, idle_ms, need,
        # mode (, retry, max_attempts, lost_max, attempt), fields
        more = ['0', '3', '5', 'ok,200,5'] if retry else []
        pipe = [Redis.encode('FCALL', fn('complete'), 1, 'h:{0}', '{0}', c[0], c[4], '1',
                             delay_us, 'crawl_delay', '0', '0', '5', 'b:%d' % n, 100000,
                             60000, '0', 'p', *more, 'o', 'ok', 's', '200')
                for c in claims]
        r.sock.sendall(b''.join(pipe))
        for _ in pipe:
            reply = r.read()
            if reply[0] != 1:
                raise RuntimeError('a completion lost its lease: %r' % reply)
        pages += len(claims)
    if pages == 0:
        raise RuntimeError('nothing was claimed')
    stats = commandstats(r)
    inner = sum(us for name, (_, us) in stats.items() if name not in ('fcall', 'config|resetstat'))
    print('   %d pages; FCALL %.1f us a page, of which its commands %.1f' %
          (pages, stats['fcall'][1] / pages, inner / pages))
    for name, (calls, us) in sorted(stats.items(), key=lambda x: -x[1][1]):
        if name in ('fcall', 'info', 'config|resetstat') or calls < pages / 100:
            continue
        print('     %-14s %5.2f a page %6.2f us a page %5.2f us a call' %
              (name, calls / pages, us / pages, us / calls))


main()
