#!/usr/bin/env node
// Requests over one kept-alive connection, with a pause: what a client
// already connected sees while a service stops (the listener is closed at
// once, connections already open are still answered).
//
//   node keepalive.mjs SVC BASE DIR 'METHOD PATH [BODY]'...
//
// Opens a connection with GET /healthz, writes DIR/ready, waits until
// DIR/go exists, then sends each request on that same connection. Every
// exchange is recorded like tests/contract/lib.sh does (head and body
// files in DIR), one JSON line per exchange on stdout.
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

const [svc, base, dir, ...reqs] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let sockets = new Set();
let n = 0;

function send(method, path, body) {
  return new Promise((resolve, reject) => {
    const id = `ka-${++n}`;
    const headers = { 'X-Request-Id': id };
    // the fetcher's routes want the gateways' secret (tests/harness_stack.sh)
    if (svc === 'llfs' && process.env.WPFS_FETCHER_SECRET)
      headers.Authorization = `Bearer ${process.env.WPFS_FETCHER_SECRET}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const rq = http.request(new URL(path, base), { method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const head = `HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage}\r\n` +
          Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n') + '\r\n\r\n';
        const hf = join(dir, `${id}.head`), bf = join(dir, `${id}.body`);
        let reqf = null;
        writeFileSync(hf, head);
        writeFileSync(bf, Buffer.concat(chunks));
        if (body !== undefined) writeFileSync(reqf = join(dir, `${id}.req`), body);
        resolve({
          label: `kept-alive ${method} ${path}`, svc, method, path,
          req_headers: Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
          req_body_file: reqf, status: res.statusCode, resp_head_file: hf, resp_body_file: bf,
        });
      });
    });
    rq.on('socket', (s) => sockets.add(s));
    rq.on('error', reject);
    if (body !== undefined) rq.write(body);
    rq.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = [];
out.push(await send('GET', '/healthz'));
writeFileSync(join(dir, 'ready'), '');
for (let i = 0; i < 500 && !existsSync(join(dir, 'go')); i++) await sleep(20);
for (const r of reqs) {
  const m = /^(\S+) (\S+)(?: (.*))?$/.exec(r);
  out.push(await send(m[1], m[2], m[3]));
}
for (const x of out) console.log(JSON.stringify(x));
console.error(`keepalive: ${sockets.size} connection(s) for ${out.length} requests`);
agent.destroy();
