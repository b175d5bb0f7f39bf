// Reads WARC files with warcio (an independent reader from npm) and prints
// one JSON line per record: file, offset, type, target URI, the digests
// the record claims and whether they match its content (recomputed here:
// SHA-1, base32), HTTP status. Then one summary line {"records":N,...}.
//   node tests/e2e/crawl_warc_list.mjs FILE.warc.gz...
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

let records = 0, bad = 0;
const types = {};
for (const file of process.argv.slice(2)) {
  // parseHttp off: the block comes whole, so both digests can be checked.
  const parser = new WARCParser(createReadStream(file), { parseHttp: false });
  for await (const record of parser) {
    const offset = parser.offset;
    const block = await record.readFully(false);
    const out = {
      file: basename(file),
      offset,
      type: record.warcType,
      uri: record.warcTargetURI ?? null,
      payload_digest: record.warcPayloadDigest ?? null,
      block_ok: record.warcBlockDigest ? record.warcBlockDigest === sha1(block) : null,
      length: record.warcContentLength,
    };
    if (record.warcType === 'response' || record.warcType === 'revisit') {
      const { head, body } = splitHttp(block);
      out.status = Number(head.split(' ')[1]);
      out.refers_to = record.warcRefersToTargetURI ?? null;
      // A revisit holds no body: its payload digest is the original's.
      out.payload_ok = record.warcType === 'response' ? out.payload_digest === sha1(body) : null;
      out.body_length = body.length;
      if (out.payload_ok === false) bad++;
    }
    if (out.block_ok === false) bad++;
    types[out.type] = (types[out.type] ?? 0) + 1;
    records++;
    console.log(JSON.stringify(out));
  }
}
console.log(JSON.stringify({ records, bad, types }));
