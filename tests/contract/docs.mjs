#!/usr/bin/env node
// The generated parts of docs/operations.md: configuration tables (from
// each program's own config table) and metrics tables (from a real
// /metrics scrape). A generated part sits between
//   <!-- generated: NAME -->  and  <!-- end generated: NAME -->
//
//   node docs.mjs (--check | --write) DOC NAME=SOURCE...
//   node docs.mjs --curl-examples API_DOC SPEC
// SOURCE is "config:BINARY" (the table of `BINARY --help-markdown`, or,
// when the program has no such flag, its `--help` turned into the same
// table) or "metrics:FILE" (a scrape of /metrics). --check prints
// "PASS NAME" or "FAIL NAME: ..." per part and exits 1 when one is stale or
// missing; --write replaces the parts in DOC.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

function run(bin, args) {
  try {
    return { ok: true, out: execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    return { ok: false, out: e.stdout ?? '' };
  }
}

const cell = (s) => s.replace(/\|/g, '\\|').trim();

// `--help` lines: "  --name <type>  (ENV, default D)" then "      help".
export function helpToMarkdown(text) {
  const rows = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {2}--([a-z0-9-]+) <([a-z]+)> {2}\(([A-Z0-9_]+), default (.*)\)$/.exec(lines[i]);
    if (!m) continue;
    const help = (lines[i + 1] ?? '').trim();
    rows.push(`| \`--${m[1]}\` | \`${m[3]}\` | ${m[2]} | ${cell(m[4])} |  | ${cell(help)} |`);
  }
  if (!rows.length) throw new Error('no option found in --help output');
  return '| flag | environment | type | default | bounds | meaning |\n| --- | --- | --- | --- | --- | --- |\n' +
    rows.join('\n') + '\n';
}

export function configTable(bin) {
  const md = run(bin, ['--help-markdown']);
  if (md.ok && md.out.startsWith('| flag')) return md.out;
  const help = run(bin, ['--help']);
  if (!help.ok) throw new Error(`${bin} --help failed`);
  return helpToMarkdown(help.out);
}

// Prometheus text: every family with its type, help and label names.
export function metricsTable(text) {
  const fam = new Map();
  const get = (n) => {
    if (!fam.has(n)) fam.set(n, { type: '', help: '', labels: new Set() });
    return fam.get(n);
  };
  const names = [];
  for (const l of text.split('\n')) {
    let m;
    if ((m = /^# HELP (\S+) (.*)$/.exec(l))) { get(m[1]).help = m[2]; names.push(m[1]); }
    else if ((m = /^# TYPE (\S+) (\S+)$/.exec(l))) get(m[1]).type = m[2];
    else if ((m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(l))) {
      const base = [...fam.keys()].find((f) => m[1] === f ||
        (fam.get(f).type === 'histogram' && /^(_bucket|_sum|_count)$/.test(m[1].slice(f.length)) && m[1].startsWith(f)));
      if (!base || !m[2]) continue;
      for (const kv of m[2].match(/[a-zA-Z_][a-zA-Z0-9_]*(?==")/g) ?? [])
        if (kv !== 'le') fam.get(base).labels.add(kv);
    }
  }
  const rows = [...new Set(names)].sort().map((n) => {
    const f = fam.get(n);
    const labels = [...f.labels].sort().map((x) => `\`${x}\``).join(', ');
    return `| \`${n}\` | ${f.type} | ${labels} | ${cell(f.help)} |`;
  });
  return '| metric | type | labels | meaning |\n| --- | --- | --- | --- |\n' + rows.join('\n') + '\n';
}

function generate(source) {
  const [kind, arg] = [source.slice(0, source.indexOf(':')), source.slice(source.indexOf(':') + 1)];
  if (kind === 'config') return configTable(arg);
  if (kind === 'metrics') return metricsTable(readFileSync(arg, 'utf8'));
  throw new Error(`unknown source ${source}`);
}

// docs/api.md: one curl command per operation of the contract, with a
// body for methods that take one. Continued lines ("\\" at the end) are
// joined; a URL is $VARIABLE or host:port, then the path.
function curlExamples(doc, specFile) {
  const require = createRequire(import.meta.url);
  const spec = require('yaml').parse(readFileSync(specFile, 'utf8'));
  const cmds = readFileSync(doc, 'utf8').replace(/\\\n\s*/g, ' ').split('\n')
    .filter((l) => /^\s*(\$ )?curl\b/.test(l));
  let bad = 0;
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const m of ['get', 'put', 'post', 'delete', 'patch']) {
      if (!item[m]) continue;
      const p = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/?"\' ]+');
      const re = new RegExp(`(\\$\\{?[A-Z_]+\\}?|:[0-9]+)${p}(?=$|[?"' ])`);
      const hits = cmds.filter((c) => re.test(c) &&
        (m === 'get' ? !/ -X (?!GET)/.test(c) : new RegExp(` (-d|--data[a-z-]*|-X ${m.toUpperCase()}) `, 'i').test(c)));
      const what = `${m.toUpperCase()} ${path}`;
      if (hits.length) console.log(`PASS curl example of ${what}`);
      else { bad++; console.log(`FAIL curl example of ${what}: none in ${doc}`); }
    }
  }
  return bad ? 1 : 0;
}

function main(argv) {
  const mode = argv[0];
  if (mode === '--curl-examples') return curlExamples(argv[1], argv[2]);
  const doc = argv[1];
  if (!['--check', '--write'].includes(mode) || !doc) {
    console.error('usage: docs.mjs (--check | --write) DOC NAME=SOURCE...');
    return 2;
  }
  let text = readFileSync(doc, 'utf8');
  let bad = 0;
  for (const spec of argv.slice(2)) {
    const name = spec.slice(0, spec.indexOf('='));
    const want = generate(spec.slice(spec.indexOf('=') + 1));
    const begin = `<!-- generated: ${name} -->\n`, end = `<!-- end generated: ${name} -->`;
    const i = text.indexOf(begin), j = text.indexOf(end);
    if (i < 0 || j < i) {
      bad++;
      console.log(`FAIL ${name}: no "${begin.trim()}" ... "${end}" part in ${doc}`);
      continue;
    }
    const have = text.slice(i + begin.length, j);
    if (mode === '--write') {
      text = text.slice(0, i + begin.length) + want + text.slice(j);
      continue;
    }
    if (have === want) { console.log(`PASS ${name}: ${doc} is up to date`); continue; }
    bad++;
    const h = new Set(have.split('\n')), w = new Set(want.split('\n'));
    const missing = [...w].filter((l) => !h.has(l)), extra = [...h].filter((l) => !w.has(l));
    console.log(`FAIL ${name}: ${doc} is stale (${missing.length} line(s) to add, ${extra.length} to remove)`);
    for (const l of missing.slice(0, 10)) console.log(`  + ${l}`);
    for (const l of extra.slice(0, 10)) console.log(`  - ${l}`);
  }
  if (mode === '--write') writeFileSync(doc, text);
  return bad ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
