// Reads WARC files with warcio (an independent reader from npm), prints
// one JSON line per record and checks the files as a whole, the way a
// replay or audit tool relies on them. Per record: file, offset, type,
// target URI, ids, the digests it claims and whether they match its
// content (recomputed here: SHA-1, base32), HTTP status, revisit fields,
// outlinks of a metadata record. Then one summary line
// {"records":N,"bad":N,"types":{...},"checks":{...}} where each member of
// checks counts the records that break one rule:
//   warcinfo        the first record of a file is not a warcinfo record, or a
//                   record's WARC-Warcinfo-ID is not its own file's warcinfo
//   digest          a block or payload digest does not match the content
//   revisit         a revisit lacks WARC-Profile, -Refers-To-Target-URI,
//                   -Refers-To-Date or WARC-Payload-Digest (WARC 1.1 6.7)
//   refers          a revisit's WARC-Refers-To names no record read here, or
//                   one of another URI, date or payload digest
//   unresolved      a revisit whose original (by URI and date) is not here
//   concurrent      a request or metadata record's WARC-Concurrent-To names
//                   no response or revisit of its file with its URI and date
//   unpaired        a response or revisit that no request record names
//   request         a request block that is not "GET target HTTP/1.1" with
//                   the Host of its target URI
//   metadata        a metadata block that is not warc-fields, or an outlink
//                   line that is not "outlink: URL HOP CONTEXT"
//   duplicate_id    a WARC-Record-ID seen before
//   node tests/e2e/crawl_warc_list.mjs FILE.warc.gz...
// Problems are described on stderr.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { WARCParser } from 'warcio';

function base32(bytes) {
  const alpha = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '', acc = 0, bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alpha[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= 0xff;  // keep the pending bits small
  }
  if (bits > 0) out += alpha[(acc << (5 - bits)) & 31];
  return out;
}

const sha1 = (buf) => 'sha1:' + base32(createHash('sha1').update(buf).digest());

function splitHttp(block) {
  const end = Buffer.from(block).indexOf('\r\n\r\n');
  if (end < 0) return { head: '', body: Buffer.alloc(0) };
  return {
    head: Buffer.from(block.subarray(0, end)).toString('latin1'),
    body: Buffer.from(block.subarray(end + 4)),
  };
}

const checks = {
  warcinfo: 0, digest: 0, revisit: 0, refers: 0, unresolved: 0, concurrent: 0,
  unpaired: 0, request: 0, metadata: 0, duplicate_id: 0,
};
function problem(check, rec, what) {
  checks[check]++;
  console.error(`${check}: ${rec.file}@${rec.offset} ${rec.type} ${rec.uri}: ${what}`);
}

// A request block: its request line and Host agree with the target URI.
function requestOk(rec, block) {
  const text = Buffer.from(block).toString('latin1');
  if (!text.endsWith('\r\n\r\n')) return false;
  const lines = text.slice(0, -4).split('\r\n');
  let u;
  try { u = new URL(rec.uri); } catch { return false; }
  const m = /^GET (\S+) HTTP\/1\.1$/.exec(lines[0]);
  const host = lines.find((l) => /^host:/i.test(l));
  return !!m && m[1] === u.pathname + u.search && host?.slice(5).trim() === u.host;
}

// warc-fields: "name: value" lines; outlinks "outlink: URL HOP CONTEXT".
function metadataFields(rec, block) {
  const text = Buffer.from(block).toString('utf8');
  const out = { outlinks: [], fields: {}, ok: text === '' || text.endsWith('\r\n') };
  for (const line of text.split('\r\n').slice(0, -1)) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+): (.*)$/.exec(line);
    if (!m) { out.ok = false; continue; }
    if (m[1] !== 'outlink') { out.fields[m[1]] = m[2]; continue; }
    const o = /^(\S+) ([A-Z]) (\S+)$/.exec(m[2]);
    if (!o) { out.ok = false; continue; }
    try { new URL(o[1]); } catch { out.ok = false; }
    out.outlinks.push(o[1]);
  }
  return out;
}

async function readFile(file, all) {
  const parser = new WARCParser(createReadStream(file), { parseHttp: false });
  let info = null, first = true;
  for await (const record of parser) {
    const offset = parser.offset;
    const block = await record.readFully(false);
    const rec = {
      file: basename(file),
      offset,
      type: record.warcType,
      uri: record.warcTargetURI ?? null,
      id: record.warcHeader('WARC-Record-ID') ?? null,
      date: record.warcDate ?? null,
      warcinfo_id: record.warcHeader('WARC-Warcinfo-ID') ?? null,
      concurrent_to: record.warcConcurrentTo ?? [],
      payload_digest: record.warcPayloadDigest ?? null,
      block_ok: record.warcBlockDigest ? record.warcBlockDigest === sha1(block) : null,
      length: record.warcContentLength,
    };
    if (first && rec.type !== 'warcinfo') problem('warcinfo', rec, 'first record is not warcinfo');
    if (first) info = rec.type === 'warcinfo' ? rec.id : null;
    else if (rec.type === 'warcinfo') problem('warcinfo', rec, 'a second warcinfo record');
    else if (rec.warcinfo_id !== info)
      problem('warcinfo', rec, `WARC-Warcinfo-ID ${rec.warcinfo_id}, file's is ${info}`);
    first = false;
    if (rec.type === 'response' || rec.type === 'revisit') {
      const { head, body } = splitHttp(block);
      rec.status = Number(head.split(' ')[1]);
      rec.refers_to = record.warcRefersToTargetURI ?? null;
      rec.refers_to_date = record.warcRefersToDate ?? null;
      rec.refers_to_id = record.warcHeader('WARC-Refers-To') ?? null;
      rec.profile = record.warcHeader('WARC-Profile') ?? null;
      // A revisit holds no body: its payload digest is the original's.
      rec.payload_ok = rec.type === 'response' ? rec.payload_digest === sha1(body) : null;
      rec.body_length = body.length;
      if (rec.payload_ok === false) problem('digest', rec, 'payload digest');
    }
    if (rec.type === 'request' && !requestOk(rec, block))
      problem('request', rec, JSON.stringify(Buffer.from(block).toString('latin1')));
    if (rec.type === 'metadata') {
      const m = metadataFields(rec, block);
      rec.outlinks = m.outlinks;
      rec.fields = m.fields;
      if (!m.ok || record.warcContentType !== 'application/warc-fields')
        problem('metadata', rec, 'not warc-fields with well-formed outlink lines');
    }
    if (rec.block_ok === false) problem('digest', rec, 'block digest');
    all.push(rec);
  }
}

const all = [];
for (const file of process.argv.slice(2)) await readFile(file, all);

const byId = new Map();
for (const r of all) {
  if (r.id && byId.has(r.id)) problem('duplicate_id', r, r.id);
  if (r.id) byId.set(r.id, r);
}
const captures = new Set(all.filter((r) => r.type === 'response' || r.type === 'revisit')
  .map((r) => `${r.uri} ${r.date}`));
const named = new Set();
for (const r of all) {
  if (r.type !== 'request' && r.type !== 'metadata') continue;
  const to = r.concurrent_to.map((id) => byId.get(id)).filter(Boolean);
  const ok = to.length === 1 && to[0].file === r.file && to[0].uri === r.uri &&
    to[0].date === r.date && (to[0].type === 'response' || to[0].type === 'revisit');
  if (!ok) problem('concurrent', r, `WARC-Concurrent-To ${r.concurrent_to}`);
  else if (r.type === 'request') named.add(to[0].id);
}
for (const r of all) {
  if (r.type !== 'response' && r.type !== 'revisit') continue;
  if (!named.has(r.id)) problem('unpaired', r, 'no request record names it');
  if (r.type !== 'revisit') continue;
  if (!r.profile || !r.refers_to || !r.refers_to_date || !r.payload_digest)
    problem('revisit', r, 'WARC-Profile, -Refers-To-Target-URI, -Refers-To-Date, payload digest');
  if (r.refers_to_id) {
    const o = byId.get(r.refers_to_id);
    if (!o || o.uri !== r.refers_to || o.date !== r.refers_to_date ||
        (r.profile?.endsWith('identical-payload-digest') && o.payload_digest !== r.payload_digest))
      problem('refers', r, `WARC-Refers-To ${r.refers_to_id}`);
  }
  if (!captures.has(`${r.refers_to} ${r.refers_to_date}`))
    problem('unresolved', r, `no record of ${r.refers_to} at ${r.refers_to_date}`);
}

const types = {};
for (const r of all) {
  types[r.type] = (types[r.type] ?? 0) + 1;
  console.log(JSON.stringify(r));
}
const bad = checks.digest;
console.log(JSON.stringify({ records: all.length, bad, types, checks }));
