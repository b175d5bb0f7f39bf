#!/usr/bin/env python3
"""Raw-socket clients for tests/e2e/api_front_door.sh: what a client
without a key can do to a server's connections.

  bodies PORT N SIZE [KEY]   N connections at once, each a POST announcing
                             SIZE bytes and sending them 64 KiB at a time;
                             prints the statuses ("401 x40")
  framing PORT KEY           ambiguous framings, each with a request hidden
                             in its body; prints "name status closed|open"
  hoard PORT KEY N PERADDR CAP [PATH]
                             idle connections from one address, then from
                             many (at most CAP may stay open); a keyed GET
                             PATH (default /v1/stats) and a probe meanwhile
  trickle PORT SECS          a request head, one byte every 0.5 s; prints
                             when the server closed
  abandon PORT N KEY         N requests left mid-head, N mid-body
"""
import os
import select
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


def connect(port, src=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if src:
        s.bind((src, 0))
    s.connect((HOST, port))
    return s


def head(method, path, key=None, extra=""):
    h = f"{method} {path} HTTP/1.1\r\nHost: t\r\n"
    if key:
        h += f"Authorization: Bearer {key}\r\n"
    return (h + extra + "\r\n").encode()


def read_all(s, wait):
    """Everything until EOF or wait seconds; (bytes, closed)."""
    s.settimeout(wait)
    out = b""
    end = time.time() + wait
    try:
        while time.time() < end:
            d = s.recv(65536)
            if not d:
                return out, True
            out += d
    except socket.timeout:
        return out, False
    except OSError:
        return out, True
    return out, False


def status_of(resp):
    parts = resp.split(b" ", 2)
    return parts[1].decode() if len(parts) > 1 and resp.startswith(b"HTTP/") else "none"


def one_body(port, size, key, out, i):
    s = connect(port)
    s.sendall(head("POST", "/v1/fetch", key,
                   f"Content-Type: application/json\r\nContent-Length: {size}\r\n"))
    chunk = b"x" * 65536
    resp = b""
    sent = 0
    try:
        while sent < size:
            r, _, _ = select.select([s], [], [], 0.005)
            if r:
                d = s.recv(65536)
                if not d:
                    break
                resp += d
            n = min(len(chunk), size - sent)
            s.sendall(chunk[:n])
            sent += n
        if not resp:
            resp, _ = read_all(s, 30)
    except OSError:
        pass
    if not resp:
        try:
            resp, _ = read_all(s, 2)
        except OSError:
            pass
    s.close()
    out[i] = status_of(resp)


def bodies(port, n, size, key=None):
    out = [None] * n
    ts = [threading.Thread(target=one_body, args=(port, size, key, out, i)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    counts = {}
    for st in out:
        counts[st] = counts.get(st, 0) + 1
    print(" ".join(f"{k} x{v}" for k, v in sorted(counts.items())))


def whole(port, size, key=None):
    """A client that writes its whole request before it reads: the status
    it then reads, or "reset" when the connection was reset under it (a
    server that answered at the head and closed with the body unread)."""
    s = connect(port)
    body = b'{"urls": ["' + b"x" * max(0, size - 13) + b'"]}'
    try:
        s.sendall(head("POST", "/v1/batches", key,
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n") + body)
        time.sleep(0.2)
        resp, _ = read_all(s, 10)
    except OSError:
        resp = b""
    s.close()
    print(status_of(resp) if resp else "reset")


def slowbody(port, size, gap):
    """A body without a key sent a few bytes every gap seconds: the status
    and when its first byte came, in ms from the head."""
    s = connect(port)
    s.sendall(head("POST", "/v1/batches", None,
                   f"Content-Type: application/json\r\nContent-Length: {size}\r\n"))
    t, sent, resp = time.time(), 0, b""
    try:
        while sent < size and not resp:
            r, _, _ = select.select([s], [], [], gap)
            if r:
                resp = s.recv(65536)
                break
            s.sendall(b"x" * min(16, size - sent))
            sent += 16
    except OSError:
        pass
    ms = int((time.time() - t) * 1000)
    s.close()
    print(f"{status_of(resp) if resp else 'none'} after_ms={ms}")


def framing(port, key):
    path = "/v1/fetch" if port_is_hlfs(port, key) else "/internal/v1/fetch"
    hidden = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    cases = [
        ("cl+te", f"Content-Length: {5 + len(hidden)}\r\nTransfer-Encoding: chunked\r\n",
         b"0\r\n\r\n" + hidden),
        ("cl+cl", f"Content-Length: 2\r\nContent-Length: {2 + len(hidden)}\r\n", b"{}" + hidden),
        ("te:gzip", "Transfer-Encoding: gzip\r\n", hidden),
    ]
    cases.append(("cl:-5", "Content-Length: -5\r\n", hidden))
    res = []
    for name, extra, body in cases:
        s = connect(port)
        s.sendall(head("POST", path, key, "Content-Type: application/json\r\n" + extra) + body)
        resp, closed = read_all(s, 3)
        s.close()
        n = resp.count(b"HTTP/1.1 ")
        res.append(f"{name} {status_of(resp) if n == 1 else f'{n}-answers'} "
                   f"{'closed' if closed else 'open'}")
    print("|".join(res))


def port_is_hlfs(port, key):
    s = connect(port)
    s.sendall(head("GET", "/v1/stats", key))
    resp, _ = read_all(s, 2)
    s.close()
    return status_of(resp) != "404"


def still_open(socks):
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            d = s.recv(1)
            if d:
                n += 1   # an answer without a request: counts as open
        except BlockingIOError:
            n += 1
        except OSError:
            pass
    return n


def keyed(port, key, src, path="/v1/stats"):
    t = time.time()
    try:
        s = connect(port, src)
        s.sendall(head("GET", path, key, "Connection: close\r\n"))
        resp, _ = read_all(s, 5)
        s.close()
    except OSError:
        resp = b""
    return status_of(resp), int((time.time() - t) * 1000)


def hoard(port, key, n, peraddr, cap, path):
    out = []
    socks = []
    for _ in range(n):
        try:
            socks.append(connect(port, "127.0.0.2"))
        except OSError:
            break
    time.sleep(1)
    out.append(f"one-address-open={still_open(socks)}")
    st, ms = keyed(port, key, "127.0.0.3", path)
    out += [f"keyed={st}", f"keyed_ms={ms}"]
    for s in socks:
        s.close()
    time.sleep(0.5)
    socks = []
    addrs = (n + peraddr - 1) // peraddr + 0
    for i in range(n):
        try:
            socks.append(connect(port, f"127.0.1.{i % addrs + 1}"))
        except OSError:
            pass
    time.sleep(1)
    op = still_open(socks)
    out.append(f"many-open-le-cap={'yes' if cap - 300 <= op <= cap else 'no:' + str(op)}")
    st, ms = keyed(port, key, "127.0.2.1", path)
    out += [f"keyed2={st}", f"keyed2_ms={ms}"]
    st, _ = keyed(port, None, "127.0.2.2", "/healthz")
    out.append(f"probe={st}")
    for s in socks:
        s.close()
    print(" ".join(out))


def trickle(port, secs):
    s = connect(port)
    data = head("GET", "/v1/stats")
    t = time.time()
    i = 0
    while time.time() - t < secs:
        try:
            s.sendall(data[i % len(data):i % len(data) + 1])
            r, _, _ = select.select([s], [], [], 0.5)
            if r and not s.recv(1):
                break
        except OSError:
            break
        i += 1
    print(f"closed_after_s={int(time.time() - t)}")


def abandon(port, n, key):
    for _ in range(n):
        s = connect(port)
        s.sendall(b"POST /v1/fetch HTTP/1.1\r\nHost: t\r\nContent-Le")
        time.sleep(0.01)
        s.close()
        s = connect(port)
        s.sendall(head("POST", "/v1/fetch", key, "Content-Length: 100\r\n") + b"{")
        time.sleep(0.01)
        s.close()


def main():
    a = sys.argv[1:]
    cmd, port = a[0], int(a[1])
    if cmd == "bodies":
        bodies(port, int(a[2]), int(a[3]), a[4] if len(a) > 4 else None)
    elif cmd == "whole":
        whole(port, int(a[2]), a[3] if len(a) > 3 else None)
    elif cmd == "slowbody":
        slowbody(port, int(a[2]), float(a[3]))
    elif cmd == "framing":
        framing(port, a[2])
    elif cmd == "hoard":
        hoard(port, a[2], int(a[3]), int(a[4]), int(a[5]), a[6] if len(a) > 6 else "/v1/stats")
    elif cmd == "trickle":
        trickle(port, float(a[2]))
    elif cmd == "abandon":
        abandon(port, int(a[2]), a[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
