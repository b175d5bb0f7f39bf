'use strict';
/* Shared parts of the offline deployment checks (k8s-check.js and
 * image-check.js): reporting, the Dockerfile reader, the .dockerignore
 * matcher, and the programs' option tables read from their --help. */
const fs = require('fs');
const path = require('path');
const cp = require('child_process');

/* ---------------------------------------------------------------- report
 * Each check prints "ok - NAME" or "not ok - NAME" followed by "# " lines
 * with the findings; tests/e2e/deploy_*.sh turn these into TAP. */
class Report {
  /* only: a RegExp naming the checks to report; the others still run when
   * runAll is set (later checks use what they load), else they are skipped. */
  constructor(only, runAll) {
    this.checks = []; this.cur = null; this.failed = 0; this.only = only || null; this.runAll = !!runAll;
  }
  check(name, fn) {
    if (this.only && !this.runAll && !this.only.test(name)) return;
    const c = { name, problems: [], notes: [] };
    this.checks.push(c);
    this.cur = c;
    try {
      fn();
    } catch (e) {
      c.problems.push(`internal error: ${e && e.stack ? e.stack.split('\n').slice(0, 4).join(' | ') : e}`);
    }
    this.cur = null;
    if (this.only && !this.only.test(name)) return;
    if (c.problems.length) this.failed++;
    const line = c.problems.length ? `not ok - ${name}` : `ok - ${name}`;
    console.log(line);
    for (const p of c.problems) console.log(`#   ${p}`);
    for (const n of c.notes) console.log(`#   note: ${n}`);
  }
  problem(msg) { this.cur.problems.push(msg); }
  note(msg) { this.cur.notes.push(msg); }
}

/* ---------------------------------------------------------------- Dockerfile
 * Instructions with their line, flags (--from=build) and arguments; the exec
 * (JSON) form is kept as an array. Enough for linting our own file; the
 * grammar check proper is dockerfile-utils'. */
function parseDockerfile(text) {
  const lines = text.split('\n');
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const start = i;
    let l = lines[i];
    if (/^\s*(#|$)/.test(l)) { i++; continue; }
    let buf = '';
    for (;;) {
      const cont = /\\\s*$/.test(l);
      buf += (cont ? l.replace(/\\\s*$/, '') : l) + ' ';
      i++;
      if (!cont || i >= lines.length) break;
      l = lines[i];
      while (i < lines.length && /^\s*#/.test(l)) { i++; l = lines[i]; }  /* comments inside */
      if (i >= lines.length) break;
    }
    const m = /^\s*(\w+)\s*(.*?)\s*$/.exec(buf);
    if (!m) continue;
    const ins = { line: start + 1, keyword: m[1].toUpperCase(), raw: m[2], flags: {} };
    let rest = m[2];
    if (['COPY', 'ADD', 'RUN', 'FROM', 'HEALTHCHECK'].includes(ins.keyword)) {
      let fm;
      while ((fm = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(rest))) {
        ins.flags[fm[1]] = fm[2] === undefined ? true : fm[2];
        rest = rest.slice(fm[0].length);
      }
    }
    ins.rest = rest;
    if (/^\[/.test(rest)) {
      try { ins.exec = JSON.parse(rest); } catch (e) { ins.exec = null; ins.badJson = true; }
    }
    ins.args = rest.split(/\s+/).filter(Boolean);
    out.push(ins);
  }
  return out;
}

/* Stages: [{name, from, line, ins: [...]}] */
function dockerStages(instrs) {
  const stages = [];
  for (const ins of instrs) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.rest);
      stages.push({ from: m ? m[1] : ins.rest, name: m && m[2] ? m[2] : String(stages.length),
                    line: ins.line, ins: [] });
    } else if (stages.length) {
      stages[stages.length - 1].ins.push(ins);
    }
  }
  return stages;
}

/* Packages named by "apt-get install" in a RUN command (flags and
 * command substitutions left out). */
function aptInstalls(run) {
  const pk = [];
  const re = /apt-get\s+install\s+([^&|;]*)/g;
  let m;
  while ((m = re.exec(run))) {
    const words = m[1].replace(/\$\([^)]*\)/g, ' ').split(/\s+/).filter(Boolean);
    for (const w of words) if (!w.startsWith('-')) pk.push(w);
  }
  return pk;
}

/* ---------------------------------------------------------------- .dockerignore
 * The builder's rules: patterns relative to the context root, "*" and "?"
 * stay within one path element, "**" spans any number, a pattern that
 * matches a directory covers everything below it, "!" re-includes, the last
 * matching pattern decides. */
function globRe(p) {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*') {
      if (p[i + 1] === '*') {
        i++;
        if (p[i + 1] === '/') { i++; re += '(?:.*/)?'; } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}
function readDockerignore(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').map(s => s.trim())
    .filter(s => s && !s.startsWith('#'))
    .map(s => {
      const neg = s.startsWith('!');
      let p = (neg ? s.slice(1) : s).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      p = path.posix.normalize(p);
      return { neg, re: globRe(p), text: s };
    });
}
/* True when rel (a path inside the context) is sent to the builder. */
function contextIncludes(rules, rel) {
  const parts = rel.split('/');
  let excluded = false;
  for (const r of rules) {
    let hit = false;
    for (let k = 1; k <= parts.length && !hit; k++) hit = r.re.test(parts.slice(0, k).join('/'));
    if (hit) excluded = !r.neg;
  }
  return !excluded;
}

/* ---------------------------------------------------------------- programs
 * A program's settings as its --help lists them:
 *   --name <type>  (ENV, default X)  */
function programOptions(bin) {
  if (!bin || !fs.existsSync(bin)) return null;
  const r = cp.spawnSync(bin, ['--help'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (r.status !== 0) throw new Error(`${bin} --help exited ${r.status}: ${r.stderr}`);
  const env = new Map();
  const re = /^\s+--([a-z0-9-]+)(?: <([a-z]+)>)?\s+\(([A-Z0-9_]+), default (.*)\)\s*$/;
  for (const l of r.stdout.split('\n')) {
    const m = re.exec(l);
    if (m) env.set(m[3], { flag: m[1], type: m[2], def: m[4] });
  }
  if (env.size === 0) throw new Error(`${bin} --help lists no option`);
  return env;
}

/* The effective configuration (--print-config) of a program run with env
 * and args: {config} or {error}. */
function printConfig(bin, env, args) {
  const r = cp.spawnSync(bin, [...args, '--print-config'],
    { encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, timeout: 10000 });
  if (r.status !== 0) return { error: (r.stderr || r.stdout || `exit ${r.status}`).trim() };
  try { return { config: JSON.parse(r.stdout) }; } catch (e) { return { error: `bad JSON: ${e.message}` }; }
}

function levenshtein(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1,
        d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}
function suggest(word, candidates) {
  let best = null, bd = Infinity;
  for (const c of candidates) {
    const dd = levenshtein(word, c);
    if (dd < bd) { bd = dd; best = c; }
  }
  return best && bd <= Math.max(2, Math.floor(word.length / 4)) ? ` (did you mean "${best}"?)` : '';
}

function parseArgs(argv, spec) {
  const o = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const k = a.slice(2);
      if (!(k in spec)) throw new Error(`unknown option ${a}`);
      if (spec[k] === 'list') (o[k] = o[k] || []).push(argv[++i]);
      else if (spec[k] === 'bool') o[k] = true;
      else o[k] = argv[++i];
    } else o._.push(a);
  }
  return o;
}

module.exports = {
  Report, parseDockerfile, dockerStages, aptInstalls, readDockerignore, contextIncludes,
  programOptions, printConfig, suggest, parseArgs,
};
