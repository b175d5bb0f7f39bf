#!/usr/bin/env node
// API fuzzing from the contract: requests generated from openapi.yaml's
// schemas, valid and mutated, sent in a seeded random order to live
// services; every answer is checked against the contract by the validator
// (validate.mjs's checkExchange), and the services must stay up.
//
//   node tests/contract/fuzz.mjs --hlfs URL --llfs URL --token T --seed N
//        --count N --dir DIR [--urls FILE] [--concurrency N]
//
// --urls names URLs worth fetching (one per line), used where the contract
// wants a URL, mixed with hostile ones. Prints one "FAIL ..." line per
// answer the contract refuses (with the seed and the request number, to
// replay), "# ..." statistics, and exits 1 on any failure or a service
// that stopped answering /healthz.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

import { checkExchange, loadSpec } from './validate.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) =>
  (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const seed = Number(args.seed ?? 1);
const count = Number(args.count ?? 500);
const conc = Number(args.concurrency ?? 6);
const dir = args.dir;
mkdirSync(dir, { recursive: true });
const ctx = loadSpec(args.spec ?? new URL('../../openapi.yaml', import.meta.url).pathname);
const spec = ctx.spec;

// ---- seeded randomness (mulberry32) ---------------------------------------
let rs = seed >>> 0;
function rnd() {
  rs = (rs + 0x6d2b79f5) >>> 0;
  let t = rs;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const chance = (p) => rnd() < p;
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));

// ---- values ------------------------------------------------------------------
const goodUrls = args.urls ? readFileSync(args.urls, 'utf8').split('\n').filter(Boolean) : [];
const hostileUrls = ['http://127.0.0.9:1/a', 'http://nx.invalid/', 'ftp://x/', 'http://', '',
  'http://[::1/', 'http://a/' + 'x'.repeat(3000), 'http://10.0.0.1/private', 'javascript:1',
  'http://ex%00ample.com/', 'http://exa mple.com/', 'HTTP://127.0.0.1:1/%zz', '\u00e9\u0000\ud800'];
const deliveries = [];  // seen in answers: acknowledging real ones reaches more code
const pickUrl = () => (goodUrls.length && chance(0.7) ? pick(goodUrls) : pick(hostileUrls));
const junk = () => pick(['', ' ', '\u0000', 'null', '-1', '1e309', 'x'.repeat(int(1, 5000)),
  '%', '../../etc', '\u00ff\ufffe', '{"a":', '9'.repeat(40)]);

function deref(o) {
  for (let i = 0; o && o.$ref && i < 10; i++)
    o = o.$ref.slice(2).split('/').reduce((a, k) => a[k.replace(/~1/g, '/')], spec);
  return o;
}

// A string for the subset of patterns the contract uses: classes, literals,
// + * ? and {n,m}; checked against the pattern, else the empty string.
function fromPattern(pat) {
  const body = pat.replace(/^\^/, '').replace(/\$$/, '');
  let out = '';
  for (let i = 0; i < body.length;) {
    let chars;
    if (body[i] === '[') {
      const j = body.indexOf(']', i);
      chars = [];
      const cls = body.slice(i + 1, j);
      for (let k = 0; k < cls.length; k++) {
        if (cls[k + 1] === '-' && k + 2 < cls.length) {
          for (let c = cls.charCodeAt(k); c <= cls.charCodeAt(k + 2); c++) chars.push(String.fromCharCode(c));
          k += 2;
        } else chars.push(cls[k] === '\\' ? cls[++k] : cls[k]);
      }
      i = j + 1;
    } else chars = [body[i] === '\\' ? body[++i] : body[i]], i++;
    let n = 1;
    if (body[i] === '+') { n = int(1, 6); i++; } else if (body[i] === '*') { n = int(0, 6); i++; }
    else if (body[i] === '?') { n = int(0, 1); i++; }
    else if (body[i] === '{') {
      const j = body.indexOf('}', i);
      const [lo, hi] = body.slice(i + 1, j).split(',').map(Number);
      n = int(lo, Number.isNaN(hi) ? lo : hi ?? lo); i = j + 1;
    }
    for (let k = 0; k < n; k++) out += pick(chars);
  }
  return new RegExp(pat).test(out) ? out : '';
}

function genString(s, name) {
  if (s.enum) return pick(s.enum);
  if (/url/.test(name)) return pickUrl();
  if (name === 'site' || name === 'host') return pick(['127.10.0.1', 'nx.invalid', '127.0.0.9', 'a..b', 'x']);
  if (name === 'deliveries' && deliveries.length && chance(0.6)) return pick(deliveries);
  if (s.pattern) return fromPattern(s.pattern);
  const n = int(s.minLength ?? 0, Math.min(s.maxLength ?? 12, 12));
  let o = '';
  for (let i = 0; i < n; i++) o += pick('abcxyz019-_.'.split(''));
  return o;
}

function genNumber(s, name) {
  const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  let hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : lo + 1000);
  if (/wait_ms/.test(name)) hi = Math.min(hi, lo + 1500);  // keep the run short
  return int(lo, Math.max(lo, hi));
}

function gen(schema, name = '', depth = 0) {
  const s = deref(schema) ?? {};
  if (s.const !== undefined) return s.const;
  if (s.oneOf || s.anyOf) return gen(pick(s.oneOf ?? s.anyOf), name, depth + 1);
  const t = Array.isArray(s.type) ? pick(s.type.filter((x) => x !== 'null')) : s.type;
  switch (t) {
    case 'object': {
      const o = {};
      for (const [k, v] of Object.entries(s.properties ?? {}))
        if ((s.required ?? []).includes(k) || (depth < 3 && chance(0.4))) o[k] = gen(v, k, depth + 1);
      return o;
    }
    case 'array': {
      const n = int(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4));
      return Array.from({ length: n }, () => gen(s.items ?? {}, name, depth + 1));
    }
    case 'integer': case 'number': return genNumber(s, name);
    case 'boolean': return chance(0.5);
    default: return genString(s, name);
  }
}

// A wrong variant of a valid value: what careless and hostile callers send.
function mutate(v) {
  const keys = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
  const m = int(0, 8);
  if (m === 0 && keys.length) { const o = { ...v }; delete o[pick(keys)]; return o; }
  if (m === 1) return { ...(keys.length ? v : {}), ['unknown_' + int(0, 9)]: 1 };
  if (m === 2 && keys.length) return { ...v, [pick(keys)]: pick([null, -1, 1e308, 'x', [], {}, true, junk()]) };
  if (m === 3) return pick([null, [], 1, 'x', true]);
  if (m === 4 && keys.length) { const o = { ...v }; const k = pick(keys);
    o[k] = Array.isArray(o[k]) ? Array.from({ length: int(1000, 20000) }, () => o[k][0] ?? 'x') : 'y'.repeat(int(1000, 100000)); return o; }
  if (m === 5) { let o = 1; for (let i = 0; i < int(10, 5000); i++) o = [o]; return o; }
  return v;
}

function rawBody(v, mutated) {
  let s = JSON.stringify(v);
  if (!mutated || chance(0.6)) return Buffer.from(s);
  switch (int(0, 4)) {
    case 0: return Buffer.from(s.slice(0, Math.max(0, s.length - int(1, 5))));  // truncated
    case 1: return Buffer.from([0x7b, 0x22, 0x75, 0x72, 0x6c, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);  // bad UTF-8
    case 2: return Buffer.alloc(0);
    case 3: return Buffer.from(s + s);  // trailing garbage
    default: return Buffer.from('x'.repeat(int(1, 200)));
  }
}

// ---- requests ----------------------------------------------------------------
const ops = ctx.ops.filter((o) => !['/metrics'].includes(o.tmpl));
const svcOf = (o) => ((o.op.tags ?? []).includes('fetcher') ? 'llfs'
  : (o.op.tags ?? []).includes('operations') ? pick(['hlfs', 'llfs']) : 'hlfs');
const base = { hlfs: args.hlfs, llfs: args.llfs };
const agent = new http.Agent({ keepAlive: true, maxSockets: conc * 2 });

function build(n) {
  const undeclared = chance(0.04);
  const o = pick(ops);
  const svc = svcOf(o);
  const bad = chance(0.45);
  const params = [...(o.item.parameters ?? []), ...(o.op.parameters ?? [])].map(deref);
  let path = o.tmpl;
  const q = new URLSearchParams();
  const headers = { 'X-Request-Id': chance(0.9) ? `fz-${seed}-${n}` : junk().slice(0, 60).replace(/[^\x21-\x7e]/g, '') };
  for (const p of params) {
    if (p.in === 'header') continue;
    const drop = bad && chance(0.3);
    const val = bad && chance(0.3) ? junk() : String(gen(p.schema ?? {}, p.name));
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(drop ? '' : val));
    else if (p.in === 'query' && (!drop && (p.required || chance(0.7)))) q.set(p.name, val);
  }
  if (chance(0.1)) q.set('junk' + int(0, 3), junk().slice(0, 100));
  if (svc === 'hlfs' && (!bad || chance(0.6))) headers.Authorization = `Bearer ${args.token}`;
  else if (svc === 'llfs' && (!bad || chance(0.6)) && process.env.WPFS_FETCHER_SECRET)
    headers.Authorization = `Bearer ${process.env.WPFS_FETCHER_SECRET}`;
  else if (svc === 'hlfs' && chance(0.5)) headers.Authorization = pick(['Bearer', 'Basic eDp5', `Bearer ${args.token}x`, 'Bearer ' + junk().replace(/[^\x21-\x7e]/g, '')]);
  if (chance(0.3)) headers.Accept = pick(['text/html', '*/*', 'application/json', 'image/png;q=0.5, */*;q=0.1', junk().replace(/[^\x20-\x7e]/g, '')]);
  let body = null;
  const rb = o.op.requestBody && deref(o.op.requestBody);
  if (rb) {
    const ct = Object.keys(rb.content)[0];
    const v = gen(rb.content[ct].schema, '');
    const mv = bad ? mutate(v) : v;
    body = rawBody(mv, bad);
    headers['Content-Type'] = bad && chance(0.15) ? pick(['text/plain', 'application/x-www-form-urlencoded']) : ct;
  } else if (bad && chance(0.2)) {
    body = Buffer.from('{"x":1}');
    headers['Content-Type'] = 'application/json';
  }
  const qs = q.toString();
  const method = undeclared ? pick(['PUT', 'PATCH', 'DELETE', 'GET', 'POST']) : o.method;
  if (undeclared) path = pick([path, '/v1/' + junk().replace(/[^a-z]/g, '').slice(0, 20), '/v2/fetch', '/internal/v1/x']);
  return { svc, method, path: path + (qs ? `?${qs}` : ''), headers, body };
}

function send(r) {
  // Framed by Content-Length always: without it node sends a GET's body
  // unframed, and the server rightly reads it as the next request.
  if (r.body) r.headers['Content-Length'] = String(r.body.length);
  return new Promise((resolve) => {
    const u = new URL(r.path, base[r.svc]);
    const req = http.request(u, { method: r.method, headers: r.headers, agent, timeout: 40000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', (e) => resolve({ error: String(e) }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 40 s')));
    req.on('error', (e) => resolve({ error: String(e) }));
    req.end(r.body ?? undefined);
  });
}

// ---- checking ------------------------------------------------------------------
const stats = { sent: 0, failed: 0, byStatus: {}, byOp: {} };
function record(n, r, a) {
  const pre = join(dir, String(n));
  let head = `HTTP/1.1 ${a.status}\r\n`;
  for (let i = 0; i < a.headers.length; i += 2) head += `${a.headers[i]}: ${a.headers[i + 1]}\r\n`;
  writeFileSync(`${pre}.head`, head + '\r\n');
  writeFileSync(`${pre}.body`, a.body);
  if (r.body) writeFileSync(`${pre}.req`, r.body);
  const x = { label: `fuzz seed ${seed} #${n}`, svc: r.svc, method: r.method, path: r.path,
    req_headers: Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`),
    req_body_file: r.body ? `${pre}.req` : null, status: a.status,
    resp_head_file: `${pre}.head`, resp_body_file: `${pre}.body` };
  let res;
  try { res = checkExchange(ctx, x); } catch (e) { res = { errs: [`validator: ${e.message}`] }; }
  if (res.errs.length) {
    stats.failed++;
    console.log(`FAIL ${x.label}: ${r.svc} ${r.method} ${r.path.slice(0, 120)} -> ${a.status}: ${res.errs.join(' | ')}`);
    console.log(`#   request body: ${(r.body ?? Buffer.alloc(0)).toString('utf8').slice(0, 200)}`);
    console.log(`#   answer: ${a.body.toString('utf8').slice(0, 300)}`);
  } else {
    rmSync(`${pre}.head`); rmSync(`${pre}.body`); if (r.body) rmSync(`${pre}.req`);
  }
  stats.byStatus[a.status] = (stats.byStatus[a.status] ?? 0) + 1;
  if (res.key) stats.byOp[res.key] = (stats.byOp[res.key] ?? 0) + 1;
  if (a.status === 200 && /results$/.test(r.path.split('?')[0])) {
    try { for (const x2 of JSON.parse(a.body).results ?? []) if (x2.delivery) deliveries.push(x2.delivery); } catch { /* checked above */ }
    if (deliveries.length > 200) deliveries.splice(0, 100);
  }
}

async function alive(svc) {
  const a = await send({ svc, method: 'GET', path: '/healthz', headers: {} });
  return a.status === 200;
}

async function main() {
  console.log(`# fuzz seed ${seed}, ${count} requests, ${conc} at a time (replay: --seed ${seed})`);
  const reqs = Array.from({ length: count }, (_, i) => build(i + 1));  // drawn up front: replayable
  let next = 0;
  const worker = async () => {
    while (next < reqs.length) {
      const n = next++;
      const a = await send(reqs[n]);
      stats.sent++;
      if (a.error) {
        stats.failed++;
        console.log(`FAIL fuzz seed ${seed} #${n + 1}: ${reqs[n].svc} ${reqs[n].method} ${reqs[n].path.slice(0, 120)}: ${a.error}`);
        continue;
      }
      record(n + 1, reqs[n], a);
      if ((n + 1) % 200 === 0)
        for (const s of ['hlfs', 'llfs'])
          if (!(await alive(s))) { console.log(`FAIL ${s} stopped answering /healthz after request #${n + 1}`); stats.failed++; }
    }
  };
  await Promise.all(Array.from({ length: conc }, worker));
  for (const s of ['hlfs', 'llfs'])
    if (!(await alive(s))) { console.log(`FAIL ${s} is not answering /healthz at the end`); stats.failed++; }
  console.log(`# sent ${stats.sent}, refused by the contract ${stats.failed}`);
  console.log(`# by status: ${JSON.stringify(stats.byStatus)}`);
  console.log(`# by operation: ${JSON.stringify(stats.byOp)}`);
  agent.destroy();
  process.exitCode = stats.failed ? 1 : 0;
}
main();
