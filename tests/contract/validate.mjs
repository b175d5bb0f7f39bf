#!/usr/bin/env node
// Validates recorded HTTP exchanges against openapi.yaml.
//
//   node tests/contract/validate.mjs [--spec openapi.yaml] [--coverage] EXCHANGES.jsonl
//
// EXCHANGES.jsonl holds one exchange per line, as tests/contract/lib.sh
// writes them:
//   {"label": "...", "svc": "hlfs"|"llfs", "method": "POST", "path": "/v1/x?q=1",
//    "req_headers": ["Name: value", ...], "req_body_file": "FILE" | null,
//    "status": 200, "resp_head_file": "FILE", "resp_body_file": "FILE"}
//
// For each exchange it prints "PASS label" or "FAIL label: why" (one line
// each; the e2e script turns them into TAP). An answer passes when:
//   - its operation exists for that service (tags: gateway = hlfs,
//     fetcher = llfs, operations = both), or it is the 404 not-found /
//     405 method-not-allowed problem an undeclared path / method gets
//     (405 with an Allow header naming exactly the declared methods);
//   - its status is declared for the operation;
//   - its media type is declared for that status, and its body validates
//     against the declared schema (JSON Schema 2020-12, $refs resolved in
//     the document); the framed fetch answer is checked line by line;
//   - a problem's `status` member equals the HTTP status, and 401 carries
//     WWW-Authenticate; declared response headers that are present match
//     their schemas; X-Request-Id echoes the request's;
//   - a 2xx answer was given to a request the contract allows: body
//     against the request schema, parameters against theirs, credentials
//     present where the operation requires them.
// With --coverage it also fails for each operation of a service that no
// exchange reached, and prints (as "# ..." lines) the statuses and problem
// types seen per operation and the declared statuses never seen.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const YAML = require('yaml');
const AjvMod = require('ajv/dist/2020');
const Ajv2020 = AjvMod.default ?? AjvMod;

const SPEC_ID = 'https://wpfs.invalid/openapi.yaml';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SVC_TAGS = { hlfs: ['gateway', 'operations'], llfs: ['fetcher', 'operations'] };

// ---- loading ---------------------------------------------------------------------

export function loadSpec(file) {
  const spec = YAML.parse(readFileSync(file, 'utf8'));
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, verbose: true });
  // OpenAPI's own keywords: annotations for the validator. The document's
  // top-level members too, so that the document itself can be registered
  // and $refs resolved in it; schemas are compiled where they are used.
  ajv.addVocabulary(['example', 'xml', 'externalDocs', 'discriminator', 'openapi', 'info',
                     'servers', 'security', 'tags', 'paths', 'components', 'webhooks']);
  ajv.addSchema(spec, SPEC_ID);
  const cache = new Map();
  const validator = (pointer) => {
    if (!cache.has(pointer)) cache.set(pointer, ajv.compile({ $ref: `${SPEC_ID}#${pointer}` }));
    return cache.get(pointer);
  };
  const ops = [];
  for (const [tmpl, item] of Object.entries(spec.paths ?? {})) {
    const names = [];
    const re = new RegExp('^' + tmpl.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{([^}]+)\}/g, (_, n) => { names.push(n); return '([^/]+)'; }) + '$');
    for (const m of METHODS) {
      if (!item[m]) continue;
      ops.push({ tmpl, method: m.toUpperCase(), op: item[m], item, re, names,
                 pointer: `/paths/${esc(tmpl)}/${m}` });
    }
  }
  return { spec, ajv, validator, ops };
}

function esc(s) { return s.replace(/~/g, '~0').replace(/\//g, '~1'); }

function deref(spec, obj) {
  let o = obj, ptr = null;
  for (let i = 0; o && o.$ref && i < 10; i++) {
    if (!o.$ref.startsWith('#/')) throw new Error(`external $ref ${o.$ref}`);
    ptr = o.$ref.slice(1);
    o = ptr.split('/').slice(1).reduce((a, k) => a?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return { obj: o, ptr };
}

// ---- parsing the recorded exchange ----------------------------------------------

function parseHead(text) {
  // curl -D keeps every head it saw (a 100 Continue first): use the last.
  const blocks = text.split(/\r?\n\r?\n/).filter((b) => /^HTTP\//.test(b));
  const last = blocks[blocks.length - 1] ?? '';
  const lines = last.split(/\r?\n/);
  const headers = [];
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    if (i > 0) headers.push([l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()]);
  }
  return { statusLine: lines[0], headers };
}

const hget = (hs, name) => hs.find(([k]) => k === name.toLowerCase())?.[1];

function mediaType(ct) { return (ct ?? '').split(';')[0].trim().toLowerCase(); }
const isJson = (mt) => mt === 'application/json' || mt.endsWith('+json');

function fmtErrors(v) {
  return (v.errors ?? []).slice(0, 4).map((e) => {
    let s = `${e.instancePath || '/'} ${e.message}`;
    if (e.params?.additionalProperty) s += ` (${e.params.additionalProperty})`;
    if (e.keyword === 'enum' || e.keyword === 'type' || e.keyword === 'const')
      s += `, got ${JSON.stringify(e.data)?.slice(0, 80)}`;
    return s;
  }).join('; ');
}

function coerce(schema, raw) {
  const t = Array.isArray(schema?.type) ? schema.type : [schema?.type];
  if ((t.includes('integer') || t.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (t.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

// ---- one exchange ------------------------------------------------------------------

function findOp(ctx, svc, method, path) {
  const tags = SVC_TAGS[svc] ?? [];
  const mine = ctx.ops.filter((o) => (o.op.tags ?? []).some((t) => tags.includes(t)));
  const onPath = mine.filter((o) => o.re.test(path));
  return { op: onPath.find((o) => o.method === method), onPath };
}

export function checkExchange(ctx, x) {
  const errs = [];
  const { spec, validator } = ctx;
  const head = parseHead(readFileSync(x.resp_head_file, 'utf8'));
  const body = readFileSync(x.resp_body_file);
  const status = Number(x.status);
  const ct = hget(head.headers, 'content-type');
  const mt = mediaType(ct);
  const url = new URL(x.path, 'http://x');
  // Routes match the decoded path (an encoded '/' is a '/'); %00 stays
  // encoded, as the services keep it.
  const path = url.pathname.replace(/%(?!00)([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  const reqHdr = (n) => {
    const h = (x.req_headers ?? []).find((s) => s.toLowerCase().startsWith(n.toLowerCase() + ':'));
    return h === undefined ? undefined : h.slice(h.indexOf(':') + 1).trim();
  };
  let json;
  if (isJson(mt)) {
    try { json = JSON.parse(body.toString('utf8')); } catch (e) { errs.push(`body is not JSON: ${e.message}`); }
  }
  const problemPtr = '/components/schemas/Problem';
  const checkProblem = () => {
    if (mt !== 'application/problem+json') return;
    if (json && json.status !== status) errs.push(`problem status ${json?.status} != HTTP ${status}`);
  };

  // Request id: every answer carries one; a valid one sent is echoed.
  const rid = hget(head.headers, 'x-request-id');
  const sent = reqHdr('X-Request-Id');
  if (!rid) errs.push('no X-Request-Id in the answer');
  else if (sent && /^[A-Za-z0-9._:-]{1,39}$/.test(sent) && rid !== sent) errs.push(`X-Request-Id ${rid} != sent ${sent}`);

  const { op, onPath } = findOp(ctx, x.svc, x.method, path);
  if (!op) {
    // Not an operation of this service: the generic answers.
    const wantStatus = onPath.length ? 405 : 404;
    const slug = onPath.length ? 'method-not-allowed' : 'not-found';
    if (status !== wantStatus) errs.push(`${x.method} ${path} is not in the contract for ${x.svc}: want ${wantStatus}, got ${status}`);
    if (mt !== 'application/problem+json') errs.push(`media type ${mt}, want application/problem+json`);
    else if (json) {
      const v = validator(problemPtr);
      if (!v(json)) errs.push(`Problem: ${fmtErrors(v)}`);
      if (json.type !== `urn:wpfs:problem:${slug}`) errs.push(`type ${json.type}, want ${slug}`);
      checkProblem();
    }
    if (wantStatus === 405 && status === 405) {
      const allow = (hget(head.headers, 'allow') ?? '').split(/\s*,\s*/).filter(Boolean).sort().join(',');
      const want = [...new Set(onPath.map((o) => o.method))].sort().join(',');
      if (allow !== want) errs.push(`Allow "${allow}", the contract declares "${want}"`);
    }
    return { errs, key: null, status, type: json?.type };
  }

  const key = `${x.svc} ${op.op.operationId ?? op.method + ' ' + op.tmpl}`;
  const responses = op.op.responses ?? {};
  const decl = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  if (!decl) {
    errs.push(`status ${status} is not declared for ${op.method} ${op.tmpl} (declared: ${Object.keys(responses).join(', ')})`);
    return { errs, key, status, type: json?.type };
  }
  const { obj: resp, ptr: respPtr } = deref(spec, decl);
  const respBase = respPtr ?? `${op.pointer}/responses/${String(status)}`;

  // Media type and body.
  const content = resp.content ?? {};
  if (Object.keys(content).length === 0) {
    if (body.length) errs.push(`status ${status} declares no body, got ${body.length} bytes`);
  } else if (!content[mt] && !content[`${mt.split('/')[0]}/*`] && !content['*/*']) {
    errs.push(`media type "${mt}" not declared for ${status} (declared: ${Object.keys(content).join(', ')})`);
  } else if (isJson(mt)) {
    if (json !== undefined) {
      const v = validator(`${respBase}/content/${esc(mt)}/schema`);
      if (!v(json)) errs.push(`body: ${fmtErrors(v)}`);
      checkProblem();
    }
  } else if (mt === 'application/x-wpfs-fetch') {
    const ml = Number(hget(head.headers, 'wpfs-meta-length'));
    if (!(ml >= 2)) errs.push('framed answer without Wpfs-Meta-Length');
    else if (body[ml] !== 0x0a) errs.push('framed answer: no newline after the meta line');
    else {
      let meta;
      try { meta = JSON.parse(body.subarray(0, ml).toString('utf8')); } catch (e) { errs.push(`meta line: ${e.message}`); }
      if (meta) {
        const v = validator('/components/schemas/FetchResult');
        if (!v(meta)) errs.push(`meta line: ${fmtErrors(v)}`);
        if (meta.body_bytes !== undefined && meta.body_bytes !== body.length - ml - 1)
          errs.push(`body_bytes ${meta.body_bytes} but ${body.length - ml - 1} bytes follow`);
      }
    }
  } else if (mt === 'text/plain' && path === '/metrics') {
    const bad = body.toString('utf8').split('\n').filter((l) => l &&
      !/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(l) &&
      !/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eEInfa]+$/.test(l));
    if (bad.length) errs.push(`not Prometheus text: ${JSON.stringify(bad[0])}`);
  }

  // Declared headers that are present match their schemas.
  for (const [name, hdecl] of Object.entries(resp.headers ?? {})) {
    const val = hget(head.headers, name);
    const { obj: h, ptr: hptr } = deref(spec, hdecl);
    if (val === undefined) {
      if (h.required) errs.push(`header ${name} missing`);
      continue;
    }
    if (h.schema) {
      const base = hptr ?? `${respBase}/headers/${esc(name)}`;
      const v = validator(`${base}/schema`);
      if (!v(coerce(h.schema, val))) errs.push(`header ${name}: ${val}: ${fmtErrors(v)}`);
    }
  }
  if (status === 401 && !/^Bearer\b/i.test(hget(head.headers, 'www-authenticate') ?? ''))
    errs.push('401 without WWW-Authenticate: Bearer');

  // Credentials: a secured operation answers 401 to a request without any.
  const security = op.op.security ?? spec.security ?? [];
  const secured = security.length > 0 && !security.some((s) => Object.keys(s).length === 0);
  if (secured && !reqHdr('Authorization') && status !== 401) errs.push(`no credentials but status ${status}`);
  if (!secured && status === 401) errs.push('401 from an operation without security');

  // A 2xx answer: the request was one the contract allows.
  if (status >= 200 && status < 300) {
    const params = [...(op.item.parameters ?? []), ...(op.op.parameters ?? [])]
      .map((p) => deref(spec, p).obj);
    const m = op.re.exec(path);
    for (const p of params) {
      let raw;
      if (p.in === 'query') raw = url.searchParams.get(p.name) ?? undefined;
      else if (p.in === 'path') raw = m ? decodeURIComponent(m[1 + op.names.indexOf(p.name)]) : undefined;
      // An invalid X-Request-Id is replaced by one the service makes,
      // as documented, never refused.
      else if (p.in === 'header' && p.name.toLowerCase() !== 'x-request-id') raw = reqHdr(p.name);
      else continue;
      if (raw === undefined) {
        if (p.required) errs.push(`answered ${status} without required ${p.in} parameter ${p.name}`);
        continue;
      }
      const v = ctx.ajv.compile(p.schema ?? {});
      if (!v(coerce(p.schema, raw))) errs.push(`answered ${status} to ${p.in} ${p.name}=${raw} the contract refuses: ${fmtErrors(v)}`);
    }
    const rb = op.op.requestBody && deref(spec, op.op.requestBody).obj;
    if (rb) {
      const reqBody = x.req_body_file ? readFileSync(x.req_body_file, 'utf8') : '';
      // curl -d labels a body form-urlencoded: read as JSON, as documented.
      let rmt = mediaType(reqHdr('Content-Type'));
      if (rmt === 'application/x-www-form-urlencoded' || rmt === '') rmt = 'application/json';
      if (!reqBody && rb.required) errs.push(`answered ${status} to a request without its required body`);
      else if (reqBody && !rb.content?.[rmt]) errs.push(`answered ${status} to a body of type ${rmt}`);
      else if (reqBody && isJson(rmt)) {
        let rj;
        try { rj = JSON.parse(reqBody); } catch { errs.push(`answered ${status} to a body that is not JSON`); }
        if (rj !== undefined) {
          const v = validator(`${op.pointer}/requestBody/content/${esc(rmt)}/schema`);
          if (!v(rj)) errs.push(`answered ${status} to a body the contract refuses: ${fmtErrors(v)}`);
        }
      }
    }
  }
  return { errs, key, status, type: json?.type };
}

// ---- main ----------------------------------------------------------------------------

function main(argv) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  let specFile = join(root, 'openapi.yaml');
  let coverage = false;
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--spec') specFile = argv[++i];
    else if (argv[i] === '--coverage') coverage = true;
    else files.push(argv[i]);
  }
  if (files.length !== 1) {
    console.error('usage: validate.mjs [--spec FILE] [--coverage] EXCHANGES.jsonl');
    return 2;
  }
  const ctx = loadSpec(specFile);
  const seen = new Map();  // key -> Map(status -> Set(types))
  const svcs = new Set();
  const types = new Set();
  let failed = 0;
  const lines = readFileSync(files[0], 'utf8').split('\n').filter(Boolean);
  for (const line of lines) {
    const x = JSON.parse(line);
    svcs.add(x.svc);
    let r;
    try { r = checkExchange(ctx, x); } catch (e) { r = { errs: [`validator: ${e.message}`] }; }
    const label = `contract: ${x.label} (${x.svc} ${x.method} ${x.path.slice(0, 80)} -> ${x.status})`;
    if (r.errs.length) { failed++; console.log(`FAIL ${label}: ${r.errs.join(' | ')}`); }
    else console.log(`PASS ${label}`);
    if (r.type) types.add(r.type.replace('urn:wpfs:problem:', ''));
    if (r.key) {
      if (!seen.has(r.key)) seen.set(r.key, new Map());
      const m = seen.get(r.key);
      if (!m.has(r.status)) m.set(r.status, new Set());
      if (r.type) m.get(r.status).add(r.type.replace('urn:wpfs:problem:', ''));
    }
  }
  if (coverage) {
    for (const svc of [...svcs].sort()) {
      for (const o of ctx.ops) {
        if (!(o.op.tags ?? []).some((t) => SVC_TAGS[svc]?.includes(t))) continue;
        const key = `${svc} ${o.op.operationId ?? o.method + ' ' + o.tmpl}`;
        const m = seen.get(key);
        if (!m) { failed++; console.log(`FAIL coverage: ${key} (${o.method} ${o.tmpl}) was never exercised`); continue; }
        console.log(`PASS coverage: ${key} exercised`);
        const got = [...m.entries()].sort((a, b) => a[0] - b[0])
          .map(([s, t]) => s + (t.size ? `(${[...t].sort().join(',')})` : '')).join(' ');
        const missing = Object.keys(o.op.responses ?? {}).filter((s) => !m.has(Number(s)));
        console.log(`# ${key}: ${got}${missing.length ? `; declared, not exercised: ${missing.join(' ')}` : ''}`);
      }
    }
    console.log(`# problem types seen: ${[...types].sort().join(' ')}`);
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
