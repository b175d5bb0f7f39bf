#!/usr/bin/env node
// The torture run's attacker (tests/torture/torture.sh, docs/reliability.md):
// hostile API traffic beside the well-behaved clients and the faults, drawn
// from the run's seed. From its own loopback source addresses (so that a
// per-address limit of the services meets the attacker, not the clients):
//
//   flood    unauthenticated requests (no key, unknown key, other scheme)
//   hoard    idle connections kept open, and heads sent a byte at a time
//   slow     bodies announced large and sent a few bytes a second
//   smuggle  ambiguous framings: Content-Length with Transfer-Encoding, two
//            Content-Lengths, a coding other than chunked, a bad chunk size,
//            each with a second request hidden after the first
//   huge     bodies at the size limit without a key, JSON nested 100,000
//            deep and a batch far over max_batch with a crawler key
//   roles    a crawler key asking for an operator's routes
//
// Meanwhile a keyed client times GET /v1/stats on each gateway (a fresh
// connection from 127.0.0.1 each time, as a crawler would open one).
// When STOP exists, the attacker ends and writes OUT/attack.json (figures,
// per-probe verdicts) and OUT/violations (one line each):
//   - a keyed request's p99 over --p99-ms (an unanswered one counts as its
//     timeout), or fewer than 20 answered
//   - a smuggled request answered (a second answer on one connection), or
//     an ambiguous framing answered 2xx
//   - a request without a valid key answered anything but 401 (a 413 or
//     503 for a body over a limit excepted), or with a body read in full
//     while it had none (the answer only after the slow body ended)
//   - deep or huge JSON answered 5xx other than 503, or not at all (a
//     connection closed without an answer is no verdict: silentClose)
//   - a crawler key given an operator's route (anything but 403)
//   - an idle connection that sent nothing kept past --idle-max-s
//
//   node attacker.mjs --seed N --out DIR --stop FILE --gateways H:P,H:P
//        --fetchers H:P,H:P --crawler-key KEY [--p99-ms 1000] [--idle-max-s 60]
import { writeFileSync, existsSync, appendFileSync } from 'node:fs';
import net from 'node:net';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) =>
  (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const OUT = args.out, STOP = args.stop, KEY = args['crawler-key'];
const P99_MS = Number(args['p99-ms'] ?? 1000), IDLE_MAX_S = Number(args['idle-max-s'] ?? 60);
const GWS = args.gateways.split(',').map((s) => { const [h, p] = s.split(':'); return { host: h, port: +p }; });
const FETCHERS = (args.fetchers ?? '').split(',').filter(Boolean)
  .map((s) => { const [h, p] = s.split(':'); return { host: h, port: +p }; });

// mulberry32: every choice of the attacker follows from the seed
let st = Number(args.seed) >>> 0 ^ 0x9e3779b9;
const rnd = () => { st = (st + 0x6d2b79f5) >>> 0; let t = st;
  t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const pick = (a) => a[Math.floor(rnd() * a.length)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stopped = () => existsSync(STOP);

const violations = [];
const violation = (s) => { violations.push(s); appendFileSync(`${OUT}/violations`, s + '\n'); };
const fig = { keyed: [], keyed_errors: 0, sent: {}, probes: {}, hoard: { opened: 0, closed_by_server: 0,
  held_max_s: 0 } };
const count = (k) => { fig.sent[k] = (fig.sent[k] ?? 0) + 1; };
const verdict = (probe, pass, what) => {
  const p = fig.probes[probe] ??= { runs: 0, failed: 0, last: '' };
  p.runs++; p.last = what;
  if (!pass) { p.failed++; if (p.failed === 1) violation(`attacker: ${probe}: ${what}`); }
};

// ---- raw connections: write what we want, collect what comes back ---------
let srcN = 0;
const SRC = ['127.0.0.66', '127.0.0.67', '127.0.0.68', '127.0.0.69'];
function raw(target, chunks, { gapMs = 0, waitMs = 3000, src } = {}) {
  return new Promise((resolve) => {
    const s = net.connect({ host: target.host, port: target.port,
      localAddress: src ?? SRC[srcN++ % SRC.length] });
    let buf = '', done = false, t0 = Date.now(), firstAt = 0;
    const finish = (why) => { if (done) return; done = true; s.destroy();
      resolve({ text: buf, why, firstMs: firstAt ? firstAt - t0 : -1, ms: Date.now() - t0 }); };
    s.setTimeout(waitMs, () => finish('timeout'));
    s.on('data', (d) => { if (!firstAt) firstAt = Date.now(); buf += d.toString('latin1');
      if (buf.length > 1 << 16) finish('enough'); });
    s.on('end', () => finish('closed'));
    s.on('error', () => finish('error'));
    s.on('connect', async () => {
      for (const c of chunks) {
        if (done) return;
        if (!s.write(c)) await new Promise((r) => s.once('drain', r));
        if (gapMs) await sleep(gapMs);
      }
    });
  });
}
const statuses = (text) => [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => +m[1]);
// No answer and the connection closed or reset: the replica may have been
// killed by the faults meanwhile (a crash is alive_check's to see), or have
// closed a connection it would not serve, which is a defence. No verdict.
const silentClose = (r) => !r.text && r.why !== 'timeout';

// ---- the keyed client -----------------------------------------------------
async function keyed() {
  while (!stopped()) {
    const g = pick(GWS);
    const r = await raw(g, [`GET /v1/stats HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
      'Connection: close\r\n\r\n'], { src: '127.0.0.1', waitMs: 5000 });
    const s = statuses(r.text)[0];
    if (s === 200) fig.keyed.push(r.firstMs);
    else if (r.why === 'timeout') fig.keyed.push(5000);  // unanswered: as slow as it gets
    else fig.keyed_errors++;  // refused: a gateway being restarted by the faults
    await sleep(100 + rnd() * 100);
  }
}

// ---- the attacks ------------------------------------------------------------
const ROUTES = ['POST /v1/batches', 'GET /v1/results', 'POST /v1/fetch', 'GET /status',
  'DELETE /v1/pages?url=http://a/', 'GET /v1/metrics/clients'];
async function flood() {
  const auth = ['', 'Authorization: Bearer wrong-key-0000\r\n', 'Authorization: Basic eDp5\r\n'];
  const reqs = [];
  for (let i = 0; i < 40; i++) {
    const fetcher = FETCHERS.length && rnd() < 0.25;
    const [m, p] = (fetcher ? 'POST /internal/v1/fetch' : pick(ROUTES)).split(' ');
    const body = m === 'GET' ? '' : '{"urls":["http://127.0.0.1/"],"url":"http://127.0.0.1/"}';
    const t = fetcher ? pick(FETCHERS) : pick(GWS);
    reqs.push(raw(t, [`${m} ${p} HTTP/1.1\r\nHost: x\r\n${pick(auth)}Content-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`]).then((r) => {
      const s = statuses(r.text)[0];
      // a fetcher's answer to a stranger depends on its shared secret: only not crashing counts
      if (s !== undefined && GWS.includes(t)) verdict('flood: no valid key: 401', s === 401, `${m} ${p}: ${s}`);
    }));
    count('flood');
  }
  await Promise.all(reqs);
}
const hoard = [];
async function hoarder() {
  const targets = [...GWS, ...FETCHERS];
  while (hoard.length < 150 && !stopped()) {
    const t = pick(targets), s = net.connect({ host: t.host, port: t.port, localAddress: pick(SRC) });
    const h = { s, at: Date.now(), open: true };
    s.on('error', () => {}); s.on('data', () => {});
    s.on('close', () => { if (h.mine) return; h.open = false; fig.hoard.closed_by_server++;
      fig.hoard.held_max_s = Math.max(fig.hoard.held_max_s, (Date.now() - h.at) / 1000); });
    hoard.push(h); fig.hoard.opened++; count('hoard');
    // a third send a head one byte at a time, never finishing it
    if (rnd() < 0.33) (async () => { for (const c of 'GET /v1/stats HTTP/1.1\r\nHost: x\r\nX-Pad: ') {
      if (!h.open || stopped()) return; s.write(c); await sleep(1000); } })();
  }
  hoardCheck();
}
// Connections the services kept past the bound are a verdict each, checked
// whenever the hoard is topped up and once more at the end.
function hoardCheck() {
  for (let i = hoard.length - 1; i >= 0; i--) if (!hoard[i].open) hoard.splice(i, 1);
  for (const h of hoard) if (h.open && Date.now() - h.at > IDLE_MAX_S * 1000) {
    verdict('hoard: idle connection closed in time', false, `held ${(Date.now() - h.at) / 1000} s`);
    h.open = false;
    h.mine = true;
    h.s.destroy();
  }
}
async function slowBody() {
  // a body announced at 200 KB, 20 bytes every 0.3 s: 10 s of it, then the rest at once
  const g = pick(GWS), keyed = rnd() < 0.5, n = 200000;
  const head = `POST /v1/batches HTTP/1.1\r\nHost: x\r\n${keyed ? `Authorization: Bearer ${KEY}\r\n` : ''}` +
    `Content-Type: application/json\r\nContent-Length: ${n}\r\nConnection: close\r\n\r\n`;
  const parts = [head]; let sent = 0;
  for (let i = 0; i < 33; i++) { parts.push(' '.repeat(20)); sent += 20; }
  parts.push(' '.repeat(n - sent));
  count('slow');
  const r = await raw(g, parts, { gapMs: 300, waitMs: 20000 });
  const s = statuses(r.text)[0];
  if (silentClose(r)) return;
  if (!keyed)  // no key: refused on its head, not after a 10 s body
    verdict('slow body without a key: refused before the body', s === 401 && r.firstMs >= 0 &&
      r.firstMs < 5000, `status ${s}, first byte after ${r.firstMs} ms`);
  else verdict('slow body with a key: answered', s !== undefined && (s < 500 || s === 503),
    `status ${s} (${r.why})`);
}
const SMUGGLE = {
  'CL and TE': (b) => `POST /v1/batches HTTP/1.1\r\nHost: x\r\nContent-Length: ${b.length}\r\n` +
    `Transfer-Encoding: chunked\r\n\r\n${b}`,
  'two Content-Lengths': (b) => `POST /v1/batches HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n` +
    `Content-Length: ${b.length}\r\n\r\n${b}`,
  'TE gzip, chunked': (b) => `POST /v1/batches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${b}`,
  'TE identity': (b) => `POST /v1/batches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n` +
    `Content-Length: ${b.length}\r\n\r\n${b}`,
  'bad chunk size': () => 'POST /v1/batches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
    'zz\r\nGET /status HTTP/1.1\r\nHost: x\r\n\r\n',
};
async function smuggle() {
  // the hidden request: a crawler's GET /status (403 when answered: a second answer either way)
  const hidden = `0\r\n\r\nGET /status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
  const name = pick(Object.keys(SMUGGLE));
  count('smuggle');
  const r = await raw(pick(GWS), [SMUGGLE[name](hidden)], { waitMs: 3000 });
  const ss = statuses(r.text);
  if (silentClose(r)) return;
  verdict(`smuggle: ${name}`, ss.length <= 1 && (ss[0] === undefined || ss[0] >= 400),
    `answers ${ss.join(',') || 'none'} (${r.why})`);
}
async function huge() {
  const g = pick(GWS), kind = pick(['no key', 'deep', 'batch']);
  count(`huge ${kind}`);
  let body, auth = `Authorization: Bearer ${KEY}\r\n`;
  if (kind === 'no key') { body = '{"urls":["' + 'a'.repeat(15 << 20) + '"]}'; auth = ''; }
  else if (kind === 'deep') body = '{"urls":' + '['.repeat(100000) + ']'.repeat(100000) + '}';
  else body = JSON.stringify({ urls: Array.from({ length: 60000 }, (_, i) => `http://127.30.0.9:1/${i}`) });
  const head = `POST /v1/batches HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const r = await raw(g, [head, body], { waitMs: 15000 });
  const s = statuses(r.text)[0];
  if (silentClose(r)) return;
  if (kind === 'no key') verdict('huge body without a key: 401 (or 413/503)', s === 401 || s === 413 || s === 503,
    `status ${s} (${r.why})`);
  else verdict(`${kind} JSON with a key: a 4xx or 503`, s !== undefined && (s < 500 || s === 503),
    `status ${s} (${r.why})`);
}
async function roles() {
  const [m, p] = pick(['DELETE /v1/pages?url=http%3A%2F%2Fsite0.test%2F', 'GET /status',
    'GET /status?client=c0', 'GET /v1/metrics/clients']).split(' ');
  count('roles');
  const r = await raw(pick(GWS), [`${m} ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
    'Connection: close\r\n\r\n']);
  const s = statuses(r.text)[0];
  if (s !== undefined) verdict('a crawler key on an operator route: 403', s === 403, `${m} ${p}: ${s}`);
}

// ---- the schedule ---------------------------------------------------------------
async function attacks() {
  const kinds = [flood, hoarder, slowBody, smuggle, huge, roles, flood, roles, smuggle];
  const running = new Set();
  while (!stopped()) {
    if (running.size < 6) {
      const p = pick(kinds)().catch((e) => violation(`attacker: ${e}`)).finally(() => running.delete(p));
      running.add(p);
    }
    await sleep(50 + rnd() * 400);
  }
  await Promise.all(running);
}

await Promise.all([keyed(), attacks(), hoarder()]);
hoardCheck();
for (const h of hoard) { h.mine = true; h.s.destroy(); }
const k = fig.keyed.slice().sort((a, b) => a - b);
const q = (f) => k.length ? k[Math.min(k.length - 1, Math.floor(f * k.length))] : -1;
fig.keyed_p50_ms = q(0.5); fig.keyed_p99_ms = q(0.99); fig.keyed_max_ms = k.at(-1) ?? -1;
fig.keyed_n = k.length; delete fig.keyed;
if (fig.keyed_n < 20) violation(`attacker: only ${fig.keyed_n} keyed requests answered`);
else if (fig.keyed_p99_ms > P99_MS)
  violation(`attacker: keyed p99 ${fig.keyed_p99_ms} ms over ${P99_MS} ms (p50 ${fig.keyed_p50_ms})`);
fig.violations = violations.length;
writeFileSync(`${OUT}/attack.json`, JSON.stringify(fig, null, 1) + '\n');
