#!/usr/bin/env node
'use strict';
/* Offline checks of the Kubernetes manifests (deploy/k8s): no cluster, no
 * network. Each object is validated against the Kubernetes 1.33 OpenAPI
 * schemas that the npm package kubernetes-models ships (types, formats,
 * enums, required fields), then against its field lists for unknown fields
 * (a misspelt key is silently dropped by a lenient apply), then
 * cross-checked: selectors against pod labels, ports, names of ConfigMaps,
 * Secrets and volumes, the programs' own option tables (their --help and
 * --print-config), shutdown timing, pod security, and what the network
 * policies let through, evaluated for a set of sources and destinations.
 *
 *   node deploy/tools/k8s-check.js [--bin DIR] [--dockerfile FILE]
 *        [--rendered FILE] [--only REGEX] [DIR]
 *
 * DIR defaults to deploy/k8s; --bin is where llfs and hlfs are built (their
 * option checks are skipped for a program that is not there); --rendered is
 * the output of `kubectl kustomize DIR`, validated as well. Prints one
 * "ok - CHECK" / "not ok - CHECK" line per check with "#" lines below;
 * exits 1 when a check failed. --only reports the checks whose name matches. */
const fs = require('fs');
const path = require('path');
const YAML = require('yaml');
const lib = require('./lib');

const ROOT = path.resolve(__dirname, '..', '..');
/* The schemas are those of kubernetes-models at the exact version that
 * package.json pins (checked below), generated from Kubernetes 1.33: a
 * newer package changes what passes, so moving it is a change of its own. */
const K8S_VERSION = '1.33';
const MODELS_PIN = '4.5.1';
const opts = lib.parseArgs(process.argv.slice(2), { bin: 'str', dockerfile: 'str', rendered: 'str', only: 'str' });
/* A directory of manifests with its kustomization.yaml, or one file: the
 * rendered output of an overlay (kubectl kustomize), checked as a whole. */
const INPUT = path.resolve(opts._[0] || path.join(ROOT, 'deploy', 'k8s'));
const STREAM = fs.existsSync(INPUT) && fs.statSync(INPUT).isFile();
const DIR = STREAM ? path.dirname(INPUT) : INPUT;
const BIN = opts.bin ? path.resolve(opts.bin) : path.join(ROOT, 'bin');
const DOCKERFILE = path.resolve(opts.dockerfile || path.join(ROOT, 'deploy', 'container', 'Dockerfile'));
const R = new lib.Report(opts.only ? new RegExp(opts.only, 'i') : null, true);
const rel = f => path.relative(process.cwd(), f) || f;

/* The programs of the wpfs image (entrypoint's first argument). */
const IMAGE_PROGRAMS = ['llfs', 'hlfs', 'wpfs-discover', 'wpfs-url', 'wpfs-robots', 'healthcheck'];
const SERVICES = { llfs: { port: 8081 }, hlfs: { port: 8080 } };
/* The crawl on several processes: wpfs-discover's options of the
 * partitioned crawl. A build that has none of them yet is not held to
 * them; one that has any is held to all. */
const DISCOVER = 'wpfs-discover';
/* Settings of the image's entrypoint, not of the program: the directory
 * of the members' gateway tokens (deploy/container/entrypoint.sh). */
const ENTRYPOINT_ENV = ['WPFS_MEMBER_TOKENS'];
const COORD_ENV = ['WPFS_CRAWL', 'WPFS_COORD_REDIS', 'WPFS_MEMBER', 'WPFS_PARTITIONS', 'WPFS_LEASE_MS'];
/* Seconds a member may need after SIGTERM: the write queue flushed, then
 * its checkpoint written (deploy/k8s/discover.yaml). */
const DISCOVER_MIN_GRACE_S = 60;

/* ------------------------------------------------------------------ load */
function loadYaml(file) {
  const text = fs.readFileSync(file, 'utf8');
  const lc = new YAML.LineCounter();
  /* YAML 1.1, as the API server's decoder reads it (yes/no/on/off are
   * booleans, 0440 is octal). */
  const ds = YAML.parseAllDocuments(text, { version: '1.1', lineCounter: lc, uniqueKeys: true });
  const out = [];
  const errors = [];
  (Array.isArray(ds) ? ds : []).forEach((doc, index) => {
    for (const e of doc.errors) errors.push(`${rel(file)}:${e.linePos ? e.linePos[0].line : '?'}: ${e.message.split('\n')[0]}`);
    for (const e of doc.warnings) errors.push(`${rel(file)}:${e.linePos ? e.linePos[0].line : '?'}: ${e.message.split('\n')[0]}`);
    if (doc.errors.length) return;
    const obj = doc.toJS();
    if (obj === null || obj === undefined) return;
    out.push({ file, index, doc, lc, obj });
  });
  return { docs: out, errors };
}

function lineOf(d, p) {
  const keys = p.slice();
  while (keys.length) {
    const n = d.doc.getIn(keys, true);
    if (n && n.range) return d.lc.linePos(n.range[0]).line;
    keys.pop();
  }
  const c = d.doc.contents;
  return c && c.range ? d.lc.linePos(c.range[0]).line : 1;
}
const idOf = o => `${o.kind}/${(o.metadata && o.metadata.name) || '?'}`;
function at(d, p, msg) {
  const w = `${rel(d.file)}:${lineOf(d, p)}: ${idOf(d.obj)}${p.length ? ' ' + p.join('.') : ''}`;
  return msg ? `${w}: ${msg}` : w;
}

/* ------------------------------------------------------------------ schemas */
function modelFor(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Za-z0-9.]+(\/[a-z0-9]+)?$/.test(apiVersion)) return null;
  const id = `kubernetes-models/${apiVersion}/${kind}`;
  try {
    const m = require(id);
    if (typeof m[kind] !== 'function') return null;
    return { cls: m[kind], dts: require.resolve(id).replace(/\.js$/, '.d.ts') };
  } catch (e) {
    return null;
  }
}

/* Field lists from the type declarations of the same package:
 * interface name -> Map(field -> type). */
let TYPES = null;
const FILE_ROOT = new Map();
function typeIndex() {
  if (TYPES) return TYPES;
  TYPES = new Map();
  const dirs = [path.dirname(require.resolve('kubernetes-models/package.json')),
    path.dirname(require.resolve('@kubernetes-models/apimachinery/package.json'))];
  const walk = d => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { if (e.name !== 'node_modules') walk(p); } else if (e.name.endsWith('.d.ts')) parseDts(p);
    }
  };
  dirs.forEach(walk);
  return TYPES;
}
function parseTypeExpr(s) {
  s = s.trim();
  let m;
  if ((m = /^Array<(.*)>$/.exec(s))) return { array: parseTypeExpr(m[1]) };
  if ((m = /^(I[A-Za-z0-9]+)$/.exec(s))) return { ref: m[1] };
  return { leaf: s };
}
function parseDts(file) {
  const text = fs.readFileSync(file, 'utf8');
  const local = new Map();
  const re = /^export interface (I\w+)(?: extends [^{]*)? \{\n([\s\S]*?)^\}/gm;
  let m;
  while ((m = re.exec(text))) {
    const props = new Map();
    const lines = m[2].split('\n');
    for (let i = 0; i < lines.length; i++) {
      const pm = /^ {4}"([^"]+)"\??: (.*?);?$/.exec(lines[i]);
      if (!pm) continue;
      if (pm[2] === '{') {
        let vt = { leaf: 'any' };
        for (i++; i < lines.length && !/^ {4}\};?$/.test(lines[i]); i++) {
          const km = /^\s+\[key: string\]: (.*);$/.exec(lines[i]);
          if (km) vt = parseTypeExpr(km[1]);
        }
        props.set(pm[1], { map: vt });
      } else {
        props.set(pm[1], parseTypeExpr(pm[2]));
      }
    }
    local.set(m[1], props);
  }
  const am = /^export \{ (I\w+) as (I\w+)/m.exec(text);
  for (const [name, props] of local) {
    TYPES.set(name, props);
    if (am && am[1] === name) TYPES.set(am[2], props);
  }
  if (am && local.has(am[1])) FILE_ROOT.set(file, am[2]);
}
function unknownFields(d, dtsFile) {
  const types = typeIndex();
  const rootName = FILE_ROOT.get(dtsFile);
  const out = [];
  const walkObj = (props, v, p) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return;
    for (const [k, sub] of Object.entries(v)) {
      const t = props.get(k);
      if (!t) {
        out.push(at(d, p.concat(k), `unknown field "${k}"${lib.suggest(k, [...props.keys()])}`));
        continue;
      }
      walkType(t, sub, p.concat(k));
    }
  };
  const walkType = (t, v, p) => {
    if (t.ref) { const props = types.get(t.ref); if (props) walkObj(props, v, p); } else if (t.array && Array.isArray(v)) v.forEach((e, i) => walkType(t.array, e, p.concat(i)));
    else if (t.map && v && typeof v === 'object') for (const [k, e] of Object.entries(v)) walkType(t.map, e, p.concat(k));
  };
  if (!rootName || !types.get(rootName)) return [`${rel(d.file)}: no field list for ${d.obj.apiVersion} ${d.obj.kind}`];
  walkObj(types.get(rootName), d.obj, []);
  return out;
}
/* Only generally available APIs: the models also carry beta versions and
 * versions that Kubernetes has since removed (autoscaling/v2beta2 in 1.26,
 * policy/v1beta1 in 1.25...), which an up-to-date cluster refuses. */
const GA_API = /^(v1|[a-z0-9.-]+\/v1|autoscaling\/v2)$/;
function schemaErrors(d) {
  if (!GA_API.test(String(d.obj.apiVersion))) return { model: null, errors: [at(d, ['apiVersion'], `"${d.obj.apiVersion}" is not a generally available API of Kubernetes ${K8S_VERSION} (beta, or since removed); use the v1 (autoscaling/v2) version`)] };
  const m = modelFor(d.obj.apiVersion, d.obj.kind);
  if (!m) return { model: null, errors: [at(d, ['kind'], `no Kubernetes ${K8S_VERSION} schema for apiVersion "${d.obj.apiVersion}" kind "${d.obj.kind}"`)] };
  const errors = [];
  const obj = JSON.parse(JSON.stringify(d.obj));
  /* The API server decodes base64 ("format: byte") with Go's decoder, which
   * skips line breaks: kustomize folds a long Secret value over lines. */
  if (obj.kind === 'Secret' && obj.data && typeof obj.data === 'object')
    for (const k of Object.keys(obj.data))
      if (typeof obj.data[k] === 'string') obj.data[k] = obj.data[k].replace(/[\r\n]/g, '');
  try {
    new m.cls(obj).validate();
  } catch (e) {
    const list = Array.isArray(e.errors) ? e.errors : [{ instancePath: '', message: e.message }];
    const seen = new Set();
    for (const x of list) {
      if (x.keyword === 'oneOf' || x.keyword === 'anyOf') continue;  /* restates its branches */
      const p = (x.instancePath || '').split('/').filter(Boolean).map(s => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
      let msg = x.message;
      if (x.params && x.params.allowedValues) msg += `: ${x.params.allowedValues.join(', ')}`;
      if (x.params && x.params.missingProperty) msg = `missing required field "${x.params.missingProperty}"`;
      const line = at(d, p, msg);
      if (!seen.has(line)) { seen.add(line); errors.push(line); }
    }
  }
  return { model: m, errors };
}

/* ------------------------------------------------------------------ helpers */
const ns = o => (o.metadata && o.metadata.namespace) || 'default';
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass', 'PriorityClass', 'CustomResourceDefinition']);
function podTemplateOf(o) {
  switch (o.kind) {
    case 'Deployment': case 'StatefulSet': case 'DaemonSet': case 'ReplicaSet': case 'Job':
      return { tpl: o.spec && o.spec.template, base: ['spec', 'template'] };
    case 'CronJob':
      return { tpl: o.spec && o.spec.jobTemplate && o.spec.jobTemplate.spec && o.spec.jobTemplate.spec.template, base: ['spec', 'jobTemplate', 'spec', 'template'] };
    case 'Pod':
      return { tpl: o, base: [] };
    default:
      return null;
  }
}
function selects(sel, labels) {
  if (!sel) return false;
  labels = labels || {};
  for (const [k, v] of Object.entries(sel.matchLabels || {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions || []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const vals = e.values || [];
    if (e.operator === 'In' && !(has && vals.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && vals.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}
const selectsAll = sel => sel && !Object.keys(sel.matchLabels || {}).length && !(sel.matchExpressions || []).length;
/* Duration of a preStop handler, seconds (0 when there is none). */
function preStopSeconds(c) {
  const h = c.lifecycle && c.lifecycle.preStop;
  if (!h) return 0;
  if (h.sleep) return Number(h.sleep.seconds) || 0;
  if (h.exec && Array.isArray(h.exec.command)) {
    const cmd = h.exec.command.join(' ');
    const m = /(?:^|\/|\s)sleep\s+(\d+(?:\.\d+)?)/.exec(cmd);
    return m ? Number(m[1]) : 0;
  }
  return 0;
}
function parseQuantity(q) {
  if (q === undefined || q === null) return null;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(q));
  if (!m) return null;
  const mult = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 }[m[2]];
  return mult === undefined ? null : Number(m[1]) * mult;
}
/* Redis configuration directives: Map(name -> [args]). */
function redisConf(text) {
  const m = new Map();
  for (const l of text.split('\n')) {
    const s = l.trim();
    if (!s || s.startsWith('#')) continue;
    const parts = s.split(/\s+/);
    m.set(parts[0].toLowerCase(), parts.slice(1).map(x => x.replace(/^"(.*)"$/, '$1')));
  }
  return m;
}

/* IPv4/IPv6 CIDR arithmetic for the network policy model. */
function ipToBig(ip) {
  if (ip.includes(':')) {
    let [head, tail] = ip.split('::');
    const toWords = s => (s ? s.split(':') : []).flatMap(w => {
      if (w.includes('.')) { const b = w.split('.').map(Number); return [((b[0] << 8) | b[1]).toString(16), ((b[2] << 8) | b[3]).toString(16)]; }
      return [w];
    });
    const h = toWords(head), t = tail === undefined ? [] : toWords(tail);
    const words = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    return { v: 6, n: words.reduce((a, w) => (a << 16n) | BigInt(parseInt(w || '0', 16)), 0n) };
  }
  return { v: 4, n: ip.split('.').reduce((a, b) => (a << 8n) | BigInt(Number(b)), 0n) };
}
function inCidr(ip, cidr) {
  const [net, len] = cidr.split('/');
  const a = ipToBig(ip), b = ipToBig(net);
  if (a.v !== b.v) return false;
  const bits = a.v === 4 ? 32n : 128n;
  const l = BigInt(len === undefined ? Number(bits) : Number(len));
  return (a.n >> (bits - l)) === (b.n >> (bits - l)) || l === 0n;
}

/* The ConfigMaps kustomization.yaml generates (configMapGenerator: envs
 * files of KEY=VALUE lines, files as "key=path" or "path"), as documents
 * like the others, so that every check sees them; their name is the one
 * the manifests use (kustomize adds the content hash and rewrites the
 * references, which the rendered check below proves). */
function generatedConfigMaps(kust, namespace, errors) {
  const out = [];
  for (const g of kust.configMapGenerator || []) {
    const data = {};
    const read = f => {
      const p = path.join(DIR, f);
      if (!fs.existsSync(p)) { errors.push(`kustomization.yaml: configMapGenerator ${g.name}: ${f} does not exist`); return null; }
      return fs.readFileSync(p, 'utf8');
    };
    for (const f of g.envs || []) {
      const text = read(f);
      for (const line of (text || '').split('\n')) {
        if (!line.trim() || /^\s*#/.test(line)) continue;
        const eq = line.indexOf('=');
        if (eq < 1) { errors.push(`${f}: "${line}" is not KEY=VALUE`); continue; }
        data[line.slice(0, eq)] = line.slice(eq + 1);
      }
    }
    for (const spec of g.files || []) {
      const eq = spec.indexOf('=');
      const key = eq > 0 ? spec.slice(0, eq) : path.basename(spec);
      const text = read(eq > 0 ? spec.slice(eq + 1) : spec);
      if (text !== null) data[key] = text;
    }
    const obj = { apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: g.name, namespace: g.namespace || namespace, labels: (g.options || {}).labels || {} }, data };
    const lc = new YAML.LineCounter();
    const doc = YAML.parseDocument(YAML.stringify(obj), { version: '1.1', lineCounter: lc });
    out.push({ file: path.join(DIR, (g.envs || g.files || ['kustomization.yaml'])[0].replace(/^[^=]*=/, '')), index: 0, doc, lc, obj, generated: true });
  }
  return out;
}

/* ------------------------------------------------------------------ main */
function main() {
  const files = STREAM ? [path.basename(INPUT)] : fs.readdirSync(DIR).filter(f => /\.ya?ml$/.test(f)).sort();
  let docs = [];
  let kust = null;
  let kustDoc = null;
  const kustFile = files.find(f => /^kustomization\.ya?ml$/.test(f));

  R.check(`manifests in ${rel(DIR)} parse as YAML (1.1, as the API server reads them)`, () => {
    if (!files.length) R.problem(`no YAML file in ${rel(DIR)}`);
    const seen = new Map();
    for (const f of files) {
      const { docs: ds, errors } = loadYaml(path.join(DIR, f));
      errors.forEach(e => R.problem(e));
      for (const d of ds) {
        if (f === kustFile && !STREAM) { kust = d.obj; kustDoc = d; continue; }
        if (STREAM && d.obj && d.obj.kind === 'ConfigMap' && /-[a-z0-9]{10}$/.test((d.obj.metadata || {}).name || '')) d.generated = true;
        const o = d.obj;
        if (!o || typeof o !== 'object' || Array.isArray(o)) { R.problem(`${f}: document ${d.index + 1} is not a mapping`); continue; }
        for (const k of ['apiVersion', 'kind']) if (typeof o[k] !== 'string') R.problem(at(d, [k], 'missing'));
        if (!o.metadata || typeof o.metadata.name !== 'string') { R.problem(at(d, ['metadata'], 'missing metadata.name')); continue; }
        const key = `${o.kind}/${CLUSTER_SCOPED.has(o.kind) ? '' : ns(o)}/${o.metadata.name}`;
        if (seen.has(key)) R.problem(at(d, ['metadata', 'name'], `defined twice (also ${seen.get(key)})`));
        seen.set(key, `${f}:${lineOf(d, [])}`);
        docs.push(d);
      }
    }
    if (kust) {
      const errors = [];
      const gen = generatedConfigMaps(kust, kust.namespace, errors);
      errors.forEach(e => R.problem(e));
      docs.push(...gen);
      R.note(`${docs.length} objects in ${files.length} files, ${gen.length} of them generated ConfigMaps`);
    } else {
      R.note(`${docs.length} objects in ${files.length} files`);
    }
  });

  R.check('kustomization.yaml names every manifest, each once, and only known fields', () => {
    if (STREAM) { R.note('a rendered stream: its kustomization was applied already'); return; }
    if (!kust) { R.problem(`no kustomization.yaml in ${rel(DIR)}`); return; }
    const known = ['apiVersion', 'kind', 'namespace', 'namePrefix', 'nameSuffix', 'resources', 'components', 'images',
      'labels', 'commonLabels', 'commonAnnotations', 'configMapGenerator', 'secretGenerator', 'generatorOptions',
      'patches', 'replicas', 'replacements', 'buildMetadata', 'openapi', 'crds', 'helmCharts', 'sortOptions'];
    for (const k of Object.keys(kust)) if (!known.includes(k)) R.problem(at(kustDoc, [k], `unknown kustomization field "${k}"${lib.suggest(k, known)}`));
    if (kust.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || kust.kind !== 'Kustomization') R.problem(at(kustDoc, ['kind'], 'want apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization'));
    const listed = kust.resources || [];
    const counts = new Map();
    listed.forEach((r, i) => {
      counts.set(r, (counts.get(r) || 0) + 1);
      if (counts.get(r) === 2) R.problem(at(kustDoc, ['resources', i], `${r} listed twice`));
      if (!fs.existsSync(path.join(DIR, r))) R.problem(at(kustDoc, ['resources', i], `${r} does not exist`));
    });
    for (const f of files) if (f !== kustFile && !listed.includes(f)) R.problem(`${rel(path.join(DIR, kustFile))}: ${f} is not in resources (kubectl apply -k would skip it)`);
    const nsObj = docs.find(d => d.obj.kind === 'Namespace');
    if (kust.namespace && nsObj && kust.namespace !== nsObj.obj.metadata.name) R.problem(at(kustDoc, ['namespace'], `"${kust.namespace}" but the Namespace object is "${nsObj.obj.metadata.name}"`));
    const used = new Set();
    docs.forEach(d => { const pt = podTemplateOf(d.obj); if (pt && pt.tpl && pt.tpl.spec) [...(pt.tpl.spec.containers || []), ...(pt.tpl.spec.initContainers || [])].forEach(c => used.add(String(c.image).replace(/[:@].*$/, ''))); });
    (kust.images || []).forEach((im, i) => { if (!used.has(im.name)) R.problem(at(kustDoc, ['images', i, 'name'], `image "${im.name}" is used by no container`)); });
  });

  R.check(`the schemas are the pinned ones (kubernetes-models ${MODELS_PIN}, Kubernetes ${K8S_VERSION})`, () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const want = (pkg.dependencies || {})['kubernetes-models'] || (pkg.devDependencies || {})['kubernetes-models'];
    const have = require('kubernetes-models/package.json').version;
    if (want !== MODELS_PIN) R.problem(`package.json asks for kubernetes-models "${want}": pin exactly ${MODELS_PIN}, or move MODELS_PIN and K8S_VERSION with it`);
    if (have !== MODELS_PIN) R.problem(`node_modules holds kubernetes-models ${have}, not ${MODELS_PIN} (npm ci)`);
  });

  const models = new Map();
  R.check(`every object validates against the Kubernetes ${K8S_VERSION} OpenAPI schemas`, () => {
    for (const d of docs) {
      const { model, errors } = schemaErrors(d);
      errors.forEach(e => R.problem(e));
      if (model) models.set(d, model);
    }
  });

  R.check('no unknown or misspelt fields', () => {
    for (const [d, m] of models) unknownFields(d, m.dts).forEach(e => R.problem(e));
  });

  /* Namespace of the stack and the objects that live in it. */
  const nsDoc = docs.find(d => d.obj.kind === 'Namespace');
  const NS = nsDoc ? nsDoc.obj.metadata.name : (kust && kust.namespace) || 'default';
  R.check(`namespaced objects are in the stack's namespace (${NS})`, () => {
    if (!nsDoc) R.problem('no Namespace object');
    for (const d of docs) {
      if (CLUSTER_SCOPED.has(d.obj.kind)) continue;
      if (d.obj.metadata.namespace !== NS) R.problem(at(d, ['metadata', 'namespace'], `is "${d.obj.metadata.namespace || ''}", want "${NS}"`));
    }
  });

  const byKind = k => docs.filter(d => d.obj.kind === k);
  const find = (k, name) => docs.find(d => d.obj.kind === k && d.obj.metadata.name === name);
  const workloads = [];
  for (const d of docs) {
    const pt = podTemplateOf(d.obj);
    if (!pt || !pt.tpl || !pt.tpl.spec) continue;
    workloads.push({ d, tpl: pt.tpl, spec: pt.tpl.spec, base: pt.base, labels: (pt.tpl.metadata && pt.tpl.metadata.labels) || {} });
  }
  const containersOf = w => (w.spec.containers || []).map((c, i) => ({ c, p: w.base.concat(['spec', 'containers', i]) }));
  const portsOf = w => {
    const m = new Map();
    for (const { c } of containersOf(w)) for (const p of c.ports || []) m.set(p.name || String(p.containerPort), { port: p.containerPort, proto: p.protocol || 'TCP', name: p.name });
    return m;
  };
  const resolvePort = (w, port) => {
    const ports = [...portsOf(w).values()];
    return typeof port === 'number' ? ports.find(p => p.port === port) : ports.find(p => p.name === port);
  };

  R.check('selectors select the pods they are meant for', () => {
    for (const w of workloads) {
      const sel = w.d.obj.spec && w.d.obj.spec.selector;
      if (w.d.obj.kind !== 'Pod' && w.d.obj.kind !== 'Job' && w.d.obj.kind !== 'CronJob') {
        if (!sel || selectsAll(sel)) R.problem(at(w.d, ['spec', 'selector'], 'empty selector'));
        else if (!selects(sel, w.labels)) R.problem(at(w.d, ['spec', 'selector'], 'does not match the pod template labels'));
      }
      for (const [i, t] of (w.spec.topologySpreadConstraints || []).entries()) {
        if (!selects(t.labelSelector, w.labels)) R.problem(at(w.d, w.base.concat(['spec', 'topologySpreadConstraints', i, 'labelSelector']), 'does not select this workload\'s own pods'));
      }
      const others = workloads.filter(o => o !== w && o.d.obj.kind !== 'Job' && o.d.obj.kind !== 'CronJob' && selects(sel, o.labels));
      if (sel && others.length) R.problem(at(w.d, ['spec', 'selector'], `also selects the pods of ${others.map(o => idOf(o.d.obj)).join(', ')}`));
    }
    for (const d of byKind('Service')) {
      const sel = d.obj.spec && d.obj.spec.selector;
      if (!sel) { R.note(`${idOf(d.obj)} has no selector (endpoints managed by hand)`); continue; }
      const hit = workloads.filter(w => selects({ matchLabels: sel }, w.labels));
      if (!hit.length) R.problem(at(d, ['spec', 'selector'], 'selects no pod of any workload'));
      if (hit.length > 1) R.problem(at(d, ['spec', 'selector'], `selects pods of several workloads: ${hit.map(w => idOf(w.d.obj)).join(', ')}`));
    }
    for (const d of byKind('PodDisruptionBudget')) {
      const hit = workloads.filter(w => selects(d.obj.spec.selector, w.labels));
      if (hit.length !== 1) R.problem(at(d, ['spec', 'selector'], `selects the pods of ${hit.length} workloads, want 1`));
    }
    for (const d of byKind('HorizontalPodAutoscaler')) {
      const t = d.obj.spec.scaleTargetRef || {};
      const w = find(t.kind, t.name);
      if (!w) R.problem(at(d, ['spec', 'scaleTargetRef'], `${t.kind}/${t.name} does not exist`));
      else if (w.obj.apiVersion !== t.apiVersion) R.problem(at(d, ['spec', 'scaleTargetRef', 'apiVersion'], `is ${t.apiVersion}, the target is ${w.obj.apiVersion}`));
      if (byKind('HorizontalPodAutoscaler').filter(o => o !== d && o.obj.spec.scaleTargetRef && o.obj.spec.scaleTargetRef.name === t.name && o.obj.spec.scaleTargetRef.kind === t.kind).length) R.problem(at(d, ['spec', 'scaleTargetRef'], 'scaled by two autoscalers'));
    }
    for (const d of byKind('StatefulSet')) {
      const svc = find('Service', d.obj.spec.serviceName);
      if (!svc) R.problem(at(d, ['spec', 'serviceName'], `Service "${d.obj.spec.serviceName}" does not exist`));
      else {
        if (svc.obj.spec.clusterIP !== 'None') R.problem(at(svc, ['spec', 'clusterIP'], `the governing Service of ${idOf(d.obj)} must be headless (clusterIP: None)`));
        const w = workloads.find(x => x.d === d);
        if (w && !selects({ matchLabels: svc.obj.spec.selector }, w.labels)) R.problem(at(svc, ['spec', 'selector'], `does not select the pods of ${idOf(d.obj)}`));
      }
    }
    for (const d of byKind('NetworkPolicy')) {
      const sel = d.obj.spec.podSelector;
      if (!selectsAll(sel) && !workloads.some(w => selects(sel, w.labels))) R.problem(at(d, ['spec', 'podSelector'], 'selects no pod'));
      for (const dir of ['ingress', 'egress']) {
        (d.obj.spec[dir] || []).forEach((rule, i) => (rule[dir === 'ingress' ? 'from' : 'to'] || []).forEach((peer, j) => {
          if (peer.podSelector && !peer.namespaceSelector && !selectsAll(peer.podSelector) && !workloads.some(w => selects(peer.podSelector, w.labels))) R.problem(at(d, ['spec', dir, i, dir === 'ingress' ? 'from' : 'to', j, 'podSelector'], 'selects no pod of this namespace'));
        }));
      }
    }
  });

  R.check('ports: Services, probes, policies and scrape annotations name ports the containers open', () => {
    for (const w of workloads) {
      const names = new Set();
      for (const { c, p } of containersOf(w)) {
        for (const [i, port] of (c.ports || []).entries()) {
          if (port.name && names.has(port.name)) R.problem(at(w.d, p.concat(['ports', i, 'name']), `port name "${port.name}" used twice`));
          names.add(port.name);
        }
        for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
          const pr = c[probe];
          if (!pr) continue;
          const h = pr.httpGet || pr.tcpSocket || pr.grpc;
          if (!h || h.port === undefined) continue;
          if (!(c.ports || []).some(x => (typeof h.port === 'number' ? x.containerPort === h.port : x.name === h.port))) R.problem(at(w.d, p.concat([probe, pr.httpGet ? 'httpGet' : pr.tcpSocket ? 'tcpSocket' : 'grpc', 'port']), `port ${h.port} is not a port of container ${c.name}`));
        }
      }
      const ann = (w.tpl.metadata && w.tpl.metadata.annotations) || {};
      if (ann['prometheus.io/scrape'] === 'true') {
        const port = Number(ann['prometheus.io/port']);
        if (!resolvePort(w, port)) R.problem(at(w.d, w.base.concat(['metadata', 'annotations', 'prometheus.io/port']), `${ann['prometheus.io/port']} is not a container port`));
        if (ann['prometheus.io/path'] && ann['prometheus.io/path'] !== '/metrics') R.problem(at(w.d, w.base.concat(['metadata', 'annotations', 'prometheus.io/path']), 'the services expose /metrics'));
      }
    }
    for (const d of byKind('Service')) {
      const sel = d.obj.spec.selector;
      if (!sel) continue;
      const hit = workloads.filter(w => selects({ matchLabels: sel }, w.labels));
      (d.obj.spec.ports || []).forEach((sp, i) => {
        const tp = sp.targetPort === undefined ? sp.port : sp.targetPort;
        for (const w of hit) {
          const cp = resolvePort(w, tp);
          if (!cp) R.problem(at(d, ['spec', 'ports', i, 'targetPort'], `${tp} is not a port of ${idOf(w.d.obj)}`));
          else if ((sp.protocol || 'TCP') !== cp.proto) R.problem(at(d, ['spec', 'ports', i, 'protocol'], `${sp.protocol || 'TCP'} but the container port is ${cp.proto}`));
        }
      });
    }
    for (const d of byKind('NetworkPolicy')) {
      (d.obj.spec.ingress || []).forEach((rule, i) => (rule.ports || []).forEach((pp, j) => {
        if (pp.port === undefined) return;
        const hit = workloads.filter(w => selects(d.obj.spec.podSelector, w.labels));
        for (const w of hit) if (!resolvePort(w, pp.port)) R.problem(at(d, ['spec', 'ingress', i, 'ports', j, 'port'], `${pp.port} is not a port of ${idOf(w.d.obj)}`));
      }));
      (d.obj.spec.egress || []).forEach((rule, i) => {
        const dests = (rule.to || []).filter(p => p.podSelector && !p.namespaceSelector).flatMap(p => workloads.filter(w => selects(p.podSelector, w.labels)));
        (rule.ports || []).forEach((pp, j) => {
          if (pp.port === undefined) return;
          for (const w of dests) if (!resolvePort(w, pp.port)) R.problem(at(d, ['spec', 'egress', i, 'ports', j, 'port'], `${pp.port} is not a port of ${idOf(w.d.obj)}`));
        });
      });
    }
  });

  R.check('ConfigMaps, Secrets, volumes and claims that are referenced exist (with their keys)', () => {
    const cmKeys = name => { const d = find('ConfigMap', name); return d ? new Set([...Object.keys(d.obj.data || {}), ...Object.keys(d.obj.binaryData || {})]) : null; };
    const secKeys = name => { const d = find('Secret', name); return d ? new Set([...Object.keys(d.obj.data || {}), ...Object.keys(d.obj.stringData || {})]) : null; };
    const need = (d, p, kind, name, key, optional) => {
      const keys = kind === 'ConfigMap' ? cmKeys(name) : secKeys(name);
      if (!keys) { if (!optional) R.problem(at(d, p, `${kind} "${name}" does not exist`)); return; }
      if (key !== undefined && !keys.has(key) && !optional) R.problem(at(d, p, `${kind} "${name}" has no key "${key}"`));
    };
    for (const w of workloads) {
      const vols = new Map((w.spec.volumes || []).map(v => [v.name, v]));
      const claims = new Set(((w.d.obj.spec && w.d.obj.spec.volumeClaimTemplates) || []).map(c => c.metadata && c.metadata.name));
      (w.spec.volumes || []).forEach((v, i) => {
        const p = w.base.concat(['spec', 'volumes', i]);
        if (v.configMap) { need(w.d, p.concat('configMap'), 'ConfigMap', v.configMap.name, undefined, v.configMap.optional); (v.configMap.items || []).forEach((it, j) => need(w.d, p.concat(['configMap', 'items', j]), 'ConfigMap', v.configMap.name, it.key, v.configMap.optional)); }
        if (v.secret) { need(w.d, p.concat('secret'), 'Secret', v.secret.secretName, undefined, v.secret.optional); (v.secret.items || []).forEach((it, j) => need(w.d, p.concat(['secret', 'items', j]), 'Secret', v.secret.secretName, it.key, v.secret.optional)); }
        if (v.persistentVolumeClaim && !find('PersistentVolumeClaim', v.persistentVolumeClaim.claimName)) R.problem(at(w.d, p, `PersistentVolumeClaim "${v.persistentVolumeClaim.claimName}" does not exist`));
        if (claims.has(v.name)) R.problem(at(w.d, p, `volume "${v.name}" shadows the volumeClaimTemplate of the same name`));
      });
      const all = [...(w.spec.initContainers || []).map((c, i) => ({ c, p: w.base.concat(['spec', 'initContainers', i]) })), ...containersOf(w)];
      const cnames = new Set();
      for (const { c, p } of all) {
        if (cnames.has(c.name)) R.problem(at(w.d, p.concat('name'), `container name "${c.name}" used twice`));
        cnames.add(c.name);
        (c.envFrom || []).forEach((e, i) => {
          if (e.configMapRef) need(w.d, p.concat(['envFrom', i, 'configMapRef']), 'ConfigMap', e.configMapRef.name, undefined, e.configMapRef.optional);
          if (e.secretRef) need(w.d, p.concat(['envFrom', i, 'secretRef']), 'Secret', e.secretRef.name, undefined, e.secretRef.optional);
        });
        (c.env || []).forEach((e, i) => {
          const vf = e.valueFrom || {};
          if (vf.configMapKeyRef) need(w.d, p.concat(['env', i, 'valueFrom']), 'ConfigMap', vf.configMapKeyRef.name, vf.configMapKeyRef.key, vf.configMapKeyRef.optional);
          if (vf.secretKeyRef) need(w.d, p.concat(['env', i, 'valueFrom']), 'Secret', vf.secretKeyRef.name, vf.secretKeyRef.key, vf.secretKeyRef.optional);
          if (vf.fieldRef && !/^(metadata\.(name|namespace|uid|labels|annotations)(\['[^']+'\])?|spec\.(nodeName|serviceAccountName)|status\.(hostIP|hostIPs|podIP|podIPs))$/.test(vf.fieldRef.fieldPath)) R.problem(at(w.d, p.concat(['env', i, 'valueFrom', 'fieldRef', 'fieldPath']), `"${vf.fieldRef.fieldPath}" is not a field the downward API offers`));
        });
        const mounts = new Set();
        (c.volumeMounts || []).forEach((m, i) => {
          if (!vols.has(m.name) && !claims.has(m.name)) R.problem(at(w.d, p.concat(['volumeMounts', i, 'name']), `no volume or claim template "${m.name}"`));
          if (mounts.has(m.mountPath)) R.problem(at(w.d, p.concat(['volumeMounts', i, 'mountPath']), `${m.mountPath} mounted twice`));
          mounts.add(m.mountPath);
        });
      }
      for (const v of w.spec.volumes || []) if (!all.some(({ c }) => (c.volumeMounts || []).some(m => m.name === v.name))) R.problem(at(w.d, w.base.concat(['spec', 'volumes']), `volume "${v.name}" is mounted by no container`));
    }
  });

  /* wpfs containers: the program named by the entrypoint's argument. */
  const OPTIONS = {};
  for (const prog of [...Object.keys(SERVICES), DISCOVER]) OPTIONS[prog] = lib.programOptions(path.join(BIN, prog));
  const envOf = (w, c) => {
    const env = {};
    const from = {};
    for (const e of c.envFrom || []) {
      const src = e.configMapRef ? find('ConfigMap', e.configMapRef.name) : e.secretRef ? find('Secret', e.secretRef.name) : null;
      if (!src) continue;
      const data = e.configMapRef ? src.obj.data || {} : { ...(src.obj.stringData || {}), ...Object.fromEntries(Object.entries(src.obj.data || {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()])) };
      for (const [k, v] of Object.entries(data)) { env[(e.prefix || '') + k] = String(v); from[(e.prefix || '') + k] = { d: src, p: [e.configMapRef ? 'data' : 'stringData', k] }; }
    }
    (c.env || []).forEach((e, i) => {
      const p = w.base.concat(['spec', 'containers', w.spec.containers.indexOf(c), 'env', i, 'name']);
      from[e.name] = { d: w.d, p };
      if (e.value !== undefined) env[e.name] = String(e.value);
      else if (e.valueFrom && e.valueFrom.fieldRef) env[e.name] = `${w.d.obj.metadata.name}-0`;
      else if (e.valueFrom && e.valueFrom.configMapKeyRef) { const cm = find('ConfigMap', e.valueFrom.configMapKeyRef.name); if (cm) env[e.name] = String((cm.obj.data || {})[e.valueFrom.configMapKeyRef.key]); } else env[e.name] = 'x';
    });
    return { env, from };
  };
  const wpfsContainers = [];
  for (const w of workloads) {
    for (const x of containersOf(w)) {
      const img = String(x.c.image || '').replace(/[:@].*$/, '');
      if (img !== 'wpfs' && !img.endsWith('/wpfs')) continue;
      wpfsContainers.push({ w, ...x, prog: (x.c.args || [])[0] });
    }
  }
  const service = (name) => find('Service', name);
  const effective = new Map();
  /* wpfs-discover: its settings against its option table. */
  const discoverEnv = new Map();
  const discoverSettings = x => {
    const { w, c, p } = x;
    const { env, from } = envOf(w, c);
    discoverEnv.set(x, env);
    const opt = OPTIONS[DISCOVER];
    if (!opt) { R.note(`${path.join(rel(BIN), DISCOVER)} is not built: its option names and values not checked`); return; }
    const coord = COORD_ENV.some(k => opt.has(k));
    if (!coord) R.note(`${DISCOVER} of ${rel(BIN)} has no partitioned crawl yet: ${COORD_ENV.join(', ')} not checked against it`);
    for (const name of Object.keys(env)) {
      if (opt.has(name) || ENTRYPOINT_ENV.includes(name) || (!coord && COORD_ENV.includes(name))) continue;
      const f = from[name];
      R.problem(`${f ? at(f.d, f.p, '') : at(w.d, p, '')}: ${name} is not an option of ${DISCOVER}${lib.suggest(name, [...opt.keys()])}`);
    }
    const known = Object.fromEntries(Object.entries(env).filter(([k]) => opt.has(k)));
    const pc = lib.printConfig(path.join(BIN, DISCOVER), known, (c.args || []).slice(1));
    if (pc.error) R.problem(`${at(w.d, p, '')}: ${DISCOVER} refuses these settings: ${pc.error}`);
  };

  R.check('wpfs containers: WPFS_* settings are options of the program, with values it accepts', () => {
    if (!wpfsContainers.length) R.problem('no container runs the wpfs image');
    for (const x of wpfsContainers) {
      const { w, c, p, prog } = x;
      if (c.command) R.problem(at(w.d, p.concat('command'), 'replaces the image entrypoint; name the program in args instead'));
      if (!IMAGE_PROGRAMS.includes(prog)) { R.problem(at(w.d, p.concat('args'), `first argument must be one of ${IMAGE_PROGRAMS.join(', ')} (the image's entrypoint chooses the program by it)`)); continue; }
      if (prog === DISCOVER) { discoverSettings(x); continue; }
      if (!SERVICES[prog]) continue;
      const { env, from } = envOf(w, c);
      const opt = OPTIONS[prog];
      if (!opt) {
        R.note(`${path.join(rel(BIN), prog)} is not built: option names and values of ${prog} not checked (defaults assumed)`);
        effective.set(x, { listen_port: SERVICES[prog].port, listen_addr: env[`WPFS_${prog.toUpperCase()}_LISTEN_ADDR`] || '127.0.0.1', shutdown_grace_ms: 10000, env });
        continue;
      }
      for (const name of Object.keys(env)) {
        if (opt.has(name)) continue;
        const f = from[name];
        const where = f ? at(f.d, f.p, '') : at(w.d, p, '');
        R.problem(`${where}: ${name} is not an option of ${prog}${lib.suggest(name, [...opt.keys()])}`);
      }
      const known = Object.fromEntries(Object.entries(env).filter(([k]) => opt.has(k)));
      const pc = lib.printConfig(path.join(BIN, prog), known, (c.args || []).slice(1));
      if (pc.error) { R.problem(`${at(w.d, p, '')}: ${prog} refuses these settings: ${pc.error}`); continue; }
      effective.set(x, { ...pc.config, env });
    }
  });

  R.check('wpfs containers listen where the Service, probes and peers expect them', () => {
    for (const [x, cfg] of effective) {
      const { w, c, p, prog } = x;
      if (!/^(0\.0\.0\.0|::|\[::\])$/.test(cfg.listen_addr)) R.problem(at(w.d, p, `${prog} listens on ${cfg.listen_addr}: unreachable from outside the pod (set WPFS_${prog.toUpperCase()}_LISTEN_ADDR=0.0.0.0)`));
      const http = (c.ports || []).find(q => q.name === 'http');
      if (!http) R.problem(at(w.d, p.concat('ports'), 'no container port named "http"'));
      else if (http.containerPort !== cfg.listen_port) R.problem(at(w.d, p.concat(['ports']), `containerPort ${http.containerPort} but ${prog} listens on ${cfg.listen_port}`));
      if (prog === 'hlfs') {
        const addr = cfg.env.WPFS_HLFS_REDIS || cfg.redis;
        const m = /^([^:]+):(\d+)$/.exec(addr || '');
        const svc = m && service(m[1].split('.')[0]);
        if (!m || !svc) R.problem(at(w.d, p, `WPFS_HLFS_REDIS "${addr}" does not name a Service of this stack`));
        else if (!(svc.obj.spec.ports || []).some(q => q.port === Number(m[2]))) R.problem(at(svc, ['spec', 'ports'], `Service ${m[1]} has no port ${m[2]} (WPFS_HLFS_REDIS)`));
        const caddr = cfg.env.WPFS_HLFS_CACHE_REDIS || cfg.cache_redis;
        const cm2 = /^([^:]+):(\d+)$/.exec(caddr || '');
        const csvc = cm2 && service(cm2[1].split('.')[0]);
        const cacheComp = csvc && csvc.obj.spec.selector && csvc.obj.spec.selector['app.kubernetes.io/component'];
        if (!caddr) R.problem(at(w.d, p, 'WPFS_HLFS_CACHE_REDIS is unset: pages would fill the state Redis, which must never evict'));
        else if (!cm2 || !csvc) R.problem(at(w.d, p, `WPFS_HLFS_CACHE_REDIS "${caddr}" does not name a Service of this stack`));
        else if (cacheComp !== 'redis-cache') R.problem(at(w.d, p, `WPFS_HLFS_CACHE_REDIS "${caddr}" is the Service of ${cacheComp}, not of the page cache (redis-cache)`));
        else if (!(csvc.obj.spec.ports || []).some(q => q.port === Number(cm2[2]))) R.problem(at(csvc, ['spec', 'ports'], `Service ${cm2[1]} has no port ${cm2[2]} (WPFS_HLFS_CACHE_REDIS)`));
        const sen = String(cfg.env.WPFS_HLFS_REDIS_SENTINELS || cfg.redis_sentinels || '').split(',').filter(Boolean);
        for (const a of sen) {
          /* pod-N.service:port of the state Redis set, N below its replicas */
          const sm = /^([a-z0-9-]+)-(\d+)\.([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)$/.exec(a.trim());
          const sts = sm && find('StatefulSet', sm[1]);
          const ssvc = sm && service(sm[3]);
          if (!sm || !sts || !ssvc || sts.obj.spec.serviceName !== sm[3]) R.problem(at(w.d, p, `WPFS_HLFS_REDIS_SENTINELS "${a}" is not a pod of a StatefulSet behind its headless Service`));
          else if (Number(sm[2]) >= (sts.obj.spec.replicas || 1)) R.problem(at(sts, ['spec', 'replicas'], `WPFS_HLFS_REDIS_SENTINELS names pod ${sm[2]}, past the set's ${sts.obj.spec.replicas || 1} replicas`));
          else if (!(ssvc.obj.spec.ports || []).some(q => q.port === Number(sm[4]))) R.problem(at(ssvc, ['spec', 'ports'], `Service ${sm[3]} has no port ${sm[4]} (WPFS_HLFS_REDIS_SENTINELS)`));
        }
        for (const u of String(cfg.env.WPFS_HLFS_LLFS || cfg.llfs || '').split(',').filter(Boolean)) {
          const um = /^http:\/\/([^:/]+)(?::(\d+))?\/?$/.exec(u.trim());
          const s = um && service(um[1].split('.')[0]);
          if (!um || !s) R.problem(at(w.d, p, `WPFS_HLFS_LLFS "${u}" does not name a Service of this stack`));
          else if (!(s.obj.spec.ports || []).some(q => q.port === Number(um[2] || 80))) R.problem(at(s, ['spec', 'ports'], `Service ${um[1]} has no port ${um[2] || 80} (WPFS_HLFS_LLFS)`));
        }
        const tf = cfg.env.WPFS_HLFS_TOKENS_FILE;
        if (tf) {
          const mount = (c.volumeMounts || []).find(m => tf.startsWith(m.mountPath.replace(/\/?$/, '/')));
          const vol = mount && (w.spec.volumes || []).find(v => v.name === mount.name);
          const sec = vol && vol.secret && find('Secret', vol.secret.secretName);
          if (!sec) R.problem(at(w.d, p, `WPFS_HLFS_TOKENS_FILE ${tf} is not inside a mounted Secret`));
          else {
            const fileName = tf.slice(mount.mountPath.replace(/\/?$/, '/').length);
            const items = vol.secret.items;
            const key = items ? (items.find(it => it.path === fileName) || {}).key : fileName;
            const data = { ...(sec.obj.stringData || {}), ...Object.fromEntries(Object.entries(sec.obj.data || {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()])) };
            if (!key || data[key] === undefined) R.problem(at(sec, ['metadata', 'name'], `has no key for ${fileName} (WPFS_HLFS_TOKENS_FILE)`));
            else {
              try {
                const j = JSON.parse(data[key]);
                if (!j || !Array.isArray(j.clients)) throw new Error('no "clients" array');
              } catch (e) { R.problem(at(sec, ['stringData', key], `not a tokens file: ${e.message}`)); }
            }
            const mode = (items && (items.find(it => it.path === fileName) || {}).mode) || vol.secret.defaultMode || 0o644;
            const sc = { ...(w.spec.securityContext || {}), ...(c.securityContext || {}) };
            const readable = (mode & 0o004) || (sc.runAsUser === 0) || ((mode & 0o040) && w.spec.securityContext && w.spec.securityContext.fsGroup !== undefined);
            if (!readable) R.problem(at(w.d, w.base.concat(['spec', 'volumes']), `${tf} (mode ${mode.toString(8)}) is not readable by user ${sc.runAsUser} (no fsGroup)`));
          }
        }
      }
    }
  });

  R.check('graceful stop: terminationGracePeriodSeconds covers preStop plus the shutdown grace', () => {
    for (const [x, cfg] of effective) {
      const { w, c, p, prog } = x;
      const pre = preStopSeconds(c);
      const tgps = w.spec.terminationGracePeriodSeconds === undefined ? 30 : w.spec.terminationGracePeriodSeconds;
      const grace = cfg.shutdown_grace_ms / 1000;
      if (!(tgps > pre + grace)) R.problem(at(w.d, w.base.concat(['spec', 'terminationGracePeriodSeconds']), `${tgps} s but preStop takes ${pre} s and ${prog} may take ${grace} s after SIGTERM (the period counts both)`));
      const behindService = byKind('Service').some(s => s.obj.spec.selector && selects({ matchLabels: s.obj.spec.selector }, w.labels));
      if (behindService && pre < 2) R.problem(at(w.d, p.concat(['lifecycle']), 'behind a Service: a preStop delay (a few seconds) lets endpoints drain before SIGTERM'));
      const exec = c.lifecycle && c.lifecycle.preStop && c.lifecycle.preStop.exec;
      if (exec && !String(exec.command[0]).startsWith('/')) R.problem(at(w.d, p.concat(['lifecycle', 'preStop', 'exec', 'command']), 'use an absolute path (the image has no shell PATH guarantees)'));
    }
  });

  R.check('pod security: the restricted standard, read-only root, no service account token', () => {
    for (const w of workloads) {
      const ps = w.spec.securityContext || {};
      const sp = w.base.concat('spec');
      for (const k of ['hostNetwork', 'hostPID', 'hostIPC']) if (w.spec[k]) R.problem(at(w.d, sp.concat(k), 'not allowed'));
      if (w.spec.automountServiceAccountToken !== false) R.problem(at(w.d, sp, 'automountServiceAccountToken: false (no wpfs program talks to the Kubernetes API)'));
      (w.spec.volumes || []).forEach((v, i) => {
        const allowed = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
        const t = Object.keys(v).find(k => k !== 'name');
        if (!allowed.includes(t)) R.problem(at(w.d, sp.concat(['volumes', i]), `volume type ${t} is not allowed by the restricted standard`));
      });
      const all = [...(w.spec.initContainers || []).map((c, i) => ({ c, p: sp.concat(['initContainers', i]) })), ...containersOf(w)];
      for (const { c, p } of all) {
        const sc = c.securityContext || {};
        const eff = k => (sc[k] !== undefined ? sc[k] : ps[k]);
        if (sc.privileged) R.problem(at(w.d, p.concat(['securityContext', 'privileged']), 'not allowed'));
        if (sc.allowPrivilegeEscalation !== false) R.problem(at(w.d, p.concat('securityContext'), 'allowPrivilegeEscalation must be false'));
        if (eff('runAsNonRoot') !== true) R.problem(at(w.d, p.concat('securityContext'), 'runAsNonRoot must be true'));
        if (eff('runAsUser') === 0) R.problem(at(w.d, p.concat('securityContext'), 'runAsUser 0'));
        const seccomp = eff('seccompProfile');
        if (!seccomp || !['RuntimeDefault', 'Localhost'].includes(seccomp.type)) R.problem(at(w.d, p.concat('securityContext'), 'seccompProfile must be RuntimeDefault (or Localhost)'));
        const caps = sc.capabilities || {};
        if (!(caps.drop || []).includes('ALL')) R.problem(at(w.d, p.concat('securityContext'), 'capabilities must drop ALL'));
        for (const a of caps.add || []) if (a !== 'NET_BIND_SERVICE') R.problem(at(w.d, p.concat(['securityContext', 'capabilities', 'add']), `adds ${a}`));
        if (sc.readOnlyRootFilesystem !== true) R.problem(at(w.d, p.concat('securityContext'), 'readOnlyRootFilesystem must be true'));
        for (const port of c.ports || []) if (port.hostPort) R.problem(at(w.d, p.concat('ports'), 'hostPort not allowed'));
      }
    }
  });

  R.check('resources, probes and autoscaling are set and consistent', () => {
    for (const w of workloads) {
      for (const { c, p } of containersOf(w)) {
        const r = c.resources || {};
        for (const k of ['cpu', 'memory']) {
          const rq = parseQuantity((r.requests || {})[k]), lm = parseQuantity((r.limits || {})[k]);
          if (rq === null) R.problem(at(w.d, p.concat(['resources']), `no ${k} request`));
          if (lm === null) R.problem(at(w.d, p.concat(['resources']), `no ${k} limit`));
          if (rq !== null && lm !== null && rq > lm) R.problem(at(w.d, p.concat(['resources', 'requests', k]), `request above the limit`));
        }
        /* a worker that opens no port (the crawler) has nothing to ask */
        if ((c.ports || []).length) for (const probe of ['readinessProbe', 'livenessProbe']) if (!c[probe]) R.problem(at(w.d, p, `no ${probe}`));
      }
    }
    for (const x of wpfsContainers) {
      if (!SERVICES[x.prog]) continue;
      const want = { readinessProbe: '/readyz', livenessProbe: '/healthz' };
      for (const [probe, pth] of Object.entries(want)) {
        const g = x.c[probe] && x.c[probe].httpGet;
        if (!g || g.path !== pth) R.problem(at(x.w.d, x.p.concat(probe), `want httpGet ${pth}`));
      }
    }
    for (const d of byKind('HorizontalPodAutoscaler')) {
      const s = d.obj.spec;
      const t = find(s.scaleTargetRef.kind, s.scaleTargetRef.name);
      const w = workloads.find(x => x.d === t);
      if ((s.minReplicas || 1) < 2) R.problem(at(d, ['spec', 'minReplicas'], 'at least 2, so that one pod can be lost'));
      if (t && t.obj.spec.replicas !== undefined) R.problem(at(t, ['spec', 'replicas'], `set, but ${idOf(d.obj)} owns the count (every apply would reset it)`));
      for (const [i, m] of (s.metrics || []).entries()) {
        if (m.type !== 'Resource' || !w) continue;
        for (const { c, p } of containersOf(w)) if (!((c.resources || {}).requests || {})[m.resource.name]) R.problem(at(w.d, p.concat('resources'), `${idOf(d.obj)} scales on ${m.resource.name} utilization (metrics[${i}]) but the container requests none`));
      }
      const pdb = byKind('PodDisruptionBudget').find(b => w && selects(b.obj.spec.selector, w.labels));
      if (w && !pdb) R.problem(at(t, [], 'replicated workload without a PodDisruptionBudget'));
      if (pdb && pdb.obj.spec.minAvailable !== undefined && Number(pdb.obj.spec.minAvailable) >= (s.minReplicas || 1)) R.problem(at(pdb, ['spec', 'minAvailable'], `≥ minReplicas ${s.minReplicas}: no node could ever be drained`));
      if (pdb && pdb.obj.spec.maxUnavailable !== undefined && (pdb.obj.spec.maxUnavailable === 0 || pdb.obj.spec.maxUnavailable === '0%')) R.problem(at(pdb, ['spec', 'maxUnavailable'], '0: no node could ever be drained'));
    }
    for (const w of workloads) {
      if (w.d.obj.kind === 'Deployment' && !byKind('HorizontalPodAutoscaler').some(h => h.obj.spec.scaleTargetRef.name === w.d.obj.metadata.name) && (w.d.obj.spec.replicas || 1) < 2) R.problem(at(w.d, ['spec', 'replicas'], 'a single replica and no autoscaler'));
    }
  });

  R.check('images: tagged, and run as the user their Dockerfile stage declares', () => {
    let stages = null;
    if (fs.existsSync(DOCKERFILE)) stages = lib.dockerStages(lib.parseDockerfile(fs.readFileSync(DOCKERFILE, 'utf8')));
    else R.note(`${rel(DOCKERFILE)} not found: image users not compared`);
    const stageUser = st => { const u = st && st.ins.filter(i => i.keyword === 'USER').pop(); return u ? u.args[0].split(':').map(Number) : null; };
    for (const w of workloads) {
      for (const { c, p } of containersOf(w)) {
        const img = String(c.image || '');
        const m = /^(.*?)(?::([\w][\w.-]*))?(@sha256:[a-f0-9]{64})?$/.exec(img);
        if (!m || (!m[2] && !m[3]) || m[2] === 'latest') R.problem(at(w.d, p.concat('image'), `"${img}": pin a tag (not latest) or a digest`));
        if (!stages) continue;
        const base = m ? m[1].replace(/^.*\//, '') : '';
        const st = base === 'wpfs' ? stages[stages.length - 1] : base === 'wpfs-redis' ? stages.find(s => s.name === 'redis') : null;
        if (!st) continue;
        const u = stageUser(st);
        if (!u || !(u[0] > 0)) { R.problem(`${rel(DOCKERFILE)}:${st.line}: stage ${st.name} has no numeric non-root USER`); continue; }
        const sc = { ...(w.spec.securityContext || {}), ...(c.securityContext || {}) };
        if (sc.runAsUser !== undefined && sc.runAsUser !== u[0]) R.problem(at(w.d, p, `runAsUser ${sc.runAsUser} but image ${base} (stage ${st.name}) runs as ${u[0]}`));
        if (sc.runAsGroup !== undefined && u[1] !== undefined && sc.runAsGroup !== u[1]) R.problem(at(w.d, p, `runAsGroup ${sc.runAsGroup} but image ${base} (stage ${st.name}) runs as group ${u[1]}`));
      }
    }
  });

  /* The Redis StatefulSet whose pods carry the component label comp, its
   * container and the redis.conf its first argument names (a file of a
   * mounted ConfigMap); null after reporting what is missing. */
  const redisOf = comp => {
    const sts = byKind('StatefulSet').find(d => ((d.obj.spec.template.metadata || {}).labels || {})['app.kubernetes.io/component'] === comp);
    if (!sts) { R.problem(`no StatefulSet of component ${comp}`); return null; }
    const w = workloads.find(x => x.d === sts);
    const cont = containersOf(w).find(x => /redis/.test(String(x.c.image)));
    if (!cont) { R.problem(at(sts, [], 'runs no Redis image')); return null; }
    const { c, p } = cont;
    const confPath = (c.args || [])[0];
    const mount = confPath && (c.volumeMounts || []).find(m => confPath.startsWith(m.mountPath.replace(/\/?$/, '/')));
    const vol = mount && (w.spec.volumes || []).find(v => v.name === mount.name);
    if (!vol || !vol.configMap) { R.problem(at(sts, p.concat('args'), `${confPath} is not a file of a mounted ConfigMap`)); return null; }
    const fileName = confPath.slice(mount.mountPath.replace(/\/?$/, '/').length);
    const key = vol.configMap.items ? (vol.configMap.items.find(it => it.path === fileName) || {}).key : fileName;
    const cm = find('ConfigMap', vol.configMap.name);
    const text = cm && (cm.obj.data || {})[key];
    if (!text) { R.problem(at(sts, p.concat('args'), `ConfigMap ${vol.configMap.name} has no ${key}`)); return null; }
    const conf = redisConf(text);
    const port = Number((conf.get('port') || [])[0] || 6379);
    if (!(c.ports || []).some(x => x.containerPort === port)) R.problem(at(sts, p.concat('ports'), `redis.conf says port ${port}`));
    return { sts, w, c, p, cm, key, text, get: k => (conf.get(k) || [])[0] };
  };
  /* The image's redis stage copies the very file the ConfigMap is made of. */
  const sameAsImage = (r, file) => {
    const src = `deploy/k8s/config/${file}`;  /* the build context's path */
    const copies = fs.existsSync(DOCKERFILE) && fs.readFileSync(DOCKERFILE, 'utf8').split('\n')
      .some(l => /^COPY\s/.test(l) && l.split(/\s+/).includes(src));
    if (!r.cm.generated) R.problem(at(r.cm, ['data', r.key], `not generated from config/${file} (kustomization.yaml configMapGenerator): a change would not roll the pods`));
    else if (!copies) R.problem(`${rel(DOCKERFILE)}: the redis stage does not COPY ${src}, which the ConfigMap is made of`);
  };

  R.check('redis: AOF on, on a persistent volume, configured from the same file as the image', () => {
    const r = redisOf('redis');
    if (!r) return;
    const { sts, c, cm, key, get } = r;
    if (get('appendonly') !== 'yes') R.problem(at(cm, ['data', key], 'appendonly yes is required: accepted work must survive a restart'));
    if (!['everysec', 'always'].includes(get('appendfsync') || 'everysec')) R.problem(at(cm, ['data', key], `appendfsync ${get('appendfsync')} may lose more than a second of work`));
    if (get('maxmemory-policy') && get('maxmemory-policy') !== 'noeviction') R.problem(at(cm, ['data', key], `maxmemory-policy ${get('maxmemory-policy')} would evict queued work`));
    const dataDir = get('dir') || '/data';
    const dm = (c.volumeMounts || []).find(m => m.mountPath.replace(/\/$/, '') === dataDir.replace(/\/$/, ''));
    const claims = (sts.obj.spec.volumeClaimTemplates || []).map(x => x.metadata.name);
    if (!dm || !claims.includes(dm.name)) R.problem(at(sts, ['spec', 'volumeClaimTemplates'], `the data dir ${dataDir} is not a mounted volumeClaimTemplate (the AOF would die with the pod)`));
    sameAsImage(r, 'redis.conf');
  });

  R.check('redis: a Sentinel set (an odd number of pods, each a server and a sentinel, started by the image\'s redis-ha.sh)', () => {
    const r = redisOf('redis');
    if (!r) return;
    const { sts, w, cm } = r;
    const n = sts.obj.spec.replicas || 1;
    if (n < 3 || n % 2 === 0) R.problem(at(sts, ['spec', 'replicas'], `${n}: a quorum of sentinels needs an odd number, at least 3`));
    if (!(cm.obj.data || {})['redis-ha.sh']) R.problem(at(cm, ['data'], 'no redis-ha.sh'));
    const conts = containersOf(w);
    const started = conts.filter(x => (x.c.command || []).some(a => /redis-ha\.sh$/.test(a)));
    if (!conts.some(x => (x.c.command || []).includes('sentinel'))) R.problem(at(sts, ['spec', 'template', 'spec', 'containers'], 'no sentinel container (redis-ha.sh sentinel)'));
    if (started.length !== conts.length) R.problem(at(sts, ['spec', 'template', 'spec', 'containers'], 'every container is started by redis-ha.sh (it finds the master first)'));
    const want = Array.from({ length: n }, (x, i) => `${sts.obj.metadata.name}-${i}.${sts.obj.spec.serviceName}`).join(' ');
    for (const { c, p } of started) {
      const hosts = ((c.env || []).find(e => e.name === 'WPFS_REDIS_HOSTS') || {}).value;
      if (hosts !== want) R.problem(at(sts, p.concat('env'), `WPFS_REDIS_HOSTS "${hosts}": want the set's pods, "${want}"`));
    }
  });

  R.check('redis-cache: memory capped with allkeys-lru, nothing persisted, one replica, configured from the same file as the image', () => {
    const r = redisOf('redis-cache');
    if (!r) return;
    const { sts, c, p, cm, key, get } = r;
    /* Redis sizes: 1kb = 1024 but 1k = 1000 (and so on for m, g). */
    const max = parseQuantity(String(get('maxmemory') || '0').toLowerCase().replace(/^(\d+)(k|m|g)(b?)$/, (x, n, u, b) => n + (b ? { k: 'Ki', m: 'Mi', g: 'Gi' } : { k: 'k', m: 'M', g: 'G' })[u]));
    if (!max) R.problem(at(cm, ['data', key], 'maxmemory is required: the page cache must be bounded'));
    if (get('maxmemory-policy') !== 'allkeys-lru') R.problem(at(cm, ['data', key], `maxmemory-policy ${get('maxmemory-policy') || 'noeviction'}: want allkeys-lru (pages carry a TTL but must go before it when memory is full)`));
    if ((get('appendonly') || 'no') !== 'no' || (get('save') !== undefined && get('save') !== '')) R.problem(at(cm, ['data', key], 'a cache persists nothing: appendonly no and save ""'));
    const lim = parseQuantity(((c.resources || {}).limits || {}).memory);
    if (max && lim !== null && lim < max * 1.25) R.problem(at(sts, p.concat(['resources', 'limits', 'memory']), `below maxmemory plus a quarter (${Math.ceil(max * 1.25 / 2 ** 20)}Mi): fragmentation and client buffers would get it OOM-killed`));
    if ((sts.obj.spec.replicas || 1) !== 1) R.problem(at(sts, ['spec', 'replicas'], 'one cache: every gateway must see the same pages (a purge holds for all)'));
    sameAsImage(r, 'redis-cache.conf');
  });

  R.check('redis-coord: AOF on a persistent volume, never evicts, one replica, configured from the same file as the image', () => {
    const r = redisOf('redis-coord');
    if (!r) return;
    const { sts, c, cm, key, get } = r;
    if (get('appendonly') !== 'yes') R.problem(at(cm, ['data', key], 'appendonly yes is required: a lease or snapshot lost to a restart hands a partition to two members'));
    if ((get('maxmemory-policy') || 'noeviction') !== 'noeviction') R.problem(at(cm, ['data', key], `maxmemory-policy ${get('maxmemory-policy')} would evict leases and snapshots`));
    const dataDir = get('dir') || '/data';
    const dm = (c.volumeMounts || []).find(m => m.mountPath.replace(/\/$/, '') === dataDir.replace(/\/$/, ''));
    const claims = (sts.obj.spec.volumeClaimTemplates || []).map(x => x.metadata.name);
    if (!dm || !claims.includes(dm.name)) R.problem(at(sts, ['spec', 'volumeClaimTemplates'], `the data dir ${dataDir} is not a mounted volumeClaimTemplate (the AOF would die with the pod)`));
    if ((sts.obj.spec.replicas || 1) !== 1) R.problem(at(sts, ['spec', 'replicas'], 'one: every member must see the same leases'));
    sameAsImage(r, 'redis-coord.conf');
  });

  /* host:port of a URL of a Service of this stack, or null. */
  const serviceAt = (u, scheme) => {
    const m = new RegExp(`^(?:${scheme}://)?([a-z0-9-]+)(?:\\.[a-z0-9.-]+)?:(\\d+)/?$`).exec(String(u || '').trim());
    const svc = m && service(m[1]);
    if (!svc) return null;
    const hit = workloads.filter(x => svc.obj.spec.selector && selects({ matchLabels: svc.obj.spec.selector }, x.labels));
    return { svc, port: Number(m[2]), w: hit.length === 1 ? hit[0] : null, hasPort: (svc.obj.spec.ports || []).some(q => q.port === Number(m[2])) };
  };
  /* A Secret's keys and values, stringData and data (base64) alike. */
  const secretData = d => ({ ...(d.obj.stringData || {}), ...Object.fromEntries(Object.entries(d.obj.data || {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()])) });
  /* The gateway's clients: tokens.json of the Secret that holds one. */
  const gatewayTokens = () => {
    const d = byKind('Secret').find(x => 'tokens.json' in secretData(x));
    if (!d) return null;
    try { return new Set((JSON.parse(secretData(d)['tokens.json']).clients || []).map(x => x.token)); } catch (e) { return null; }
  };
  /* Each member's own gateway token (the gateway hands a client's results
   * to whoever reads with its token: members sharing one take each
   * other's): a file named like the pod in WPFS_MEMBER_TOKENS, a Secret
   * volume with a key for every replica, no two alike, each a client of
   * the gateway. */
  const memberTokens = (w, c, p, env) => {
    const sp = w.d.obj.spec || {};
    if (env.WPFS_TOKEN !== undefined) R.problem(at(w.d, p, 'WPFS_TOKEN is set alike for every member: each member needs its own token (WPFS_MEMBER_TOKENS: a Secret with one key per member)'));
    const dir = env.WPFS_MEMBER_TOKENS;
    const norm = x => String(x).replace(/\/$/, '');
    const m = dir && (c.volumeMounts || []).find(v => norm(v.mountPath) === norm(dir));
    const vol = m && (w.spec.volumes || []).find(v => v.name === m.name);
    if (!dir) { R.problem(at(w.d, p, 'WPFS_MEMBER_TOKENS is not set: each member reads its own gateway token from the file named like its pod there')); return; }
    if (!vol || !vol.secret) { R.problem(at(w.d, p.concat('volumeMounts'), `WPFS_MEMBER_TOKENS ${dir} is not the mount of a Secret volume`)); return; }
    if (vol.secret.items) R.problem(at(w.d, w.base.concat(['spec', 'volumes', w.spec.volumes.indexOf(vol), 'secret', 'items']), 'items: every key of the tokens Secret must be there (a member per key)'));
    const sec = find('Secret', vol.secret.secretName);
    if (!sec) return;  /* reported as a missing reference */
    const data = secretData(sec);
    const n = sp.replicas === undefined ? 1 : sp.replicas;
    const names = Array.from({ length: n }, (_, i) => `${w.d.obj.metadata.name}-${i}`);
    const missing = names.filter(k => !(k in data));
    if (missing.length) R.problem(at(sec, [], `no token for member ${missing.join(', ')} (${n} replicas): a key per member, named like its pod, before scaling up`));
    const owner = new Map();
    const gw = gatewayTokens();
    for (const k of names) {
      const v = data[k];
      if (!v) continue;  /* shipped empty: set by the private overlay */
      if (owner.has(v)) R.problem(at(sec, [], `members ${owner.get(v)} and ${k} share one token: the gateway would hand each the other's results`));
      else owner.set(v, k);
      if (gw && !gw.has(v)) R.problem(at(sec, [], `the token of member ${k} is not a client in the gateway's tokens.json`));
    }
  };
  R.check('discover: one crawl over a StatefulSet (members by pod name, a gateway token per member, --out on each pod\'s claim, Parallel, rolling, no --resume, a budget of one, a grace period for the checkpoint)', () => {
    const xs = wpfsContainers.filter(x => x.prog === DISCOVER);
    if (!xs.length) { R.problem(`no container runs ${DISCOVER}`); return; }
    for (const x of xs) {
      const { w, c, p } = x;
      const sp = w.d.obj.spec || {};
      const env = discoverEnv.get(x) || envOf(w, c).env;
      const own = (c.env || []).find(e => e.name === 'WPFS_MEMBER');
      const envPath = own ? p.concat(['env', c.env.indexOf(own)]) : p;
      if (w.d.obj.kind !== 'StatefulSet') { R.problem(at(w.d, ['kind'], 'a StatefulSet: each member keeps its name and its volume across restarts')); continue; }
      if (sp.podManagementPolicy !== 'Parallel') R.problem(at(w.d, ['spec', 'podManagementPolicy'], `${sp.podManagementPolicy || 'OrderedReady'}: want Parallel (members join in any order; none waits for another)`));
      if (!sp.updateStrategy || sp.updateStrategy.type !== 'RollingUpdate') R.problem(at(w.d, ['spec', 'updateStrategy'], 'want type RollingUpdate: a change restarts one member at a time'));
      if (!own || !own.valueFrom || !own.valueFrom.fieldRef || own.valueFrom.fieldRef.fieldPath !== 'metadata.name') R.problem(at(w.d, envPath, 'WPFS_MEMBER must come from the pod\'s name (valueFrom.fieldRef metadata.name): unique, and the same after a restart'));
      const out = env.WPFS_OUT;
      const claims = (sp.volumeClaimTemplates || []).map(t => t.metadata && t.metadata.name);
      const mount = (c.volumeMounts || []).find(m => out && m.mountPath.replace(/\/$/, '') === String(out).replace(/\/$/, ''));
      if (!out) R.problem(at(w.d, p, 'WPFS_OUT is not set'));
      else if (!mount || !claims.includes(mount.name)) R.problem(at(w.d, p.concat('volumeMounts'), `WPFS_OUT ${out} is not the mount of a volumeClaimTemplate (the member's WARC files and checkpoint would die with the pod)`));
      if (!/^[A-Za-z0-9._-]{1,128}$/.test(env.WPFS_CRAWL || '')) R.problem(at(w.d, p, `WPFS_CRAWL "${env.WPFS_CRAWL || ''}": want the crawl's name (letters, digits, . _ -)`));
      if (env.WPFS_RESUME !== undefined && !/^(false|0|no|off)$/i.test(env.WPFS_RESUME)) R.problem(at(w.d, p, `WPFS_RESUME "${env.WPFS_RESUME}": a member of a crawl on several processes does not --resume (a restarted member takes partitions over from their snapshots; wpfs-discover refuses --resume with --crawl)`));
      memberTokens(w, c, p, env);
      const gw = serviceAt(env.WPFS_GATEWAY, 'http');
      if (!gw || !gw.hasPort) R.problem(at(w.d, p, `WPFS_GATEWAY "${env.WPFS_GATEWAY}" does not name a Service and port of this stack`));
      else if (!gw.w || !wpfsContainers.some(y => y.w === gw.w && y.prog === 'hlfs')) R.problem(at(w.d, p, `WPFS_GATEWAY "${env.WPFS_GATEWAY}" is not the gateway's Service`));
      const co = serviceAt(env.WPFS_COORD_REDIS, 'redis');
      const coComp = co && co.w && co.w.labels['app.kubernetes.io/component'];
      if (!co || !co.hasPort) R.problem(at(w.d, p, `WPFS_COORD_REDIS "${env.WPFS_COORD_REDIS}" does not name a Service and port of this stack`));
      else if (!co.w || !containersOf(co.w).some(y => /redis/.test(String(y.c.image)))) R.problem(at(w.d, p, `WPFS_COORD_REDIS "${env.WPFS_COORD_REDIS}" is not a Redis of this stack`));
      else if (coComp !== 'redis-coord') R.problem(at(w.d, p, `WPFS_COORD_REDIS "${env.WPFS_COORD_REDIS}" is the Redis of ${coComp}, not the coordination Redis (redis-coord)`));
      const tgps = w.spec.terminationGracePeriodSeconds === undefined ? 30 : w.spec.terminationGracePeriodSeconds;
      if (tgps < DISCOVER_MIN_GRACE_S) R.problem(at(w.d, w.base.concat(['spec', 'terminationGracePeriodSeconds']), `${tgps} s: a member needs at least ${DISCOVER_MIN_GRACE_S} s after SIGTERM to flush its writes and checkpoint`));
      const pdbs = byKind('PodDisruptionBudget').filter(b => selects(b.obj.spec.selector, w.labels));
      if (pdbs.length !== 1) R.problem(at(w.d, [], `${pdbs.length} PodDisruptionBudgets select its pods, want 1`));
      else if (pdbs[0].obj.spec.maxUnavailable !== 1) R.problem(at(pdbs[0], ['spec'], 'want maxUnavailable: 1 (one member evicted at a time, whatever the count)'));
    }
  });

  R.check('network policies: default deny, and exactly the intended paths are open', () => {
    const pols = byKind('NetworkPolicy');
    const nsLabels = { ...(nsDoc ? nsDoc.obj.metadata.labels || {} : {}), 'kubernetes.io/metadata.name': NS };
    if (!pols.some(d => selectsAll(d.obj.spec.podSelector) && (d.obj.spec.policyTypes || []).includes('Ingress') && (d.obj.spec.policyTypes || []).includes('Egress') && !(d.obj.spec.ingress || []).length && !(d.obj.spec.egress || []).length)) R.problem(`no default-deny policy (podSelector {} with Ingress and Egress and no rule) in ${NS}`);
    /* A model of the cluster: the stack's pods, a few pods elsewhere, and
     * addresses outside. Pod addresses are in the cluster's private range. */
    const comp = c => workloads.find(w => w.labels['app.kubernetes.io/component'] === c);
    const ep = {};
    let n = 10;
    for (const w of workloads) {
      const name = w.labels['app.kubernetes.io/component'] || w.d.obj.metadata.name;
      ep[name] = { ns: NS, nsLabels, labels: w.labels, ip: `10.244.1.${n++}`, w };
    }
    const other = (nsName, labels, podLabels, ip) => ({ ns: nsName, nsLabels: { ...labels, 'kubernetes.io/metadata.name': nsName }, labels: podLabels, ip });
    ep.crawler = other('crawl', { 'wpfs-client': 'true' }, { app: 'crawler' }, '10.244.2.10');
    ep.prometheus = other('monitoring', { 'wpfs-metrics': 'true' }, { app: 'prometheus' }, '10.244.3.10');
    ep.stranger = other('elsewhere', {}, { app: 'x' }, '10.244.4.10');
    ep.dns = other('kube-system', {}, { 'k8s-app': 'kube-dns' }, '10.244.0.10');
    const ext = ip => ({ ip });
    const portMatch = (rulePorts, dst, port, proto) => {
      if (!rulePorts || !rulePorts.length) return true;
      return rulePorts.some(rp => {
        if ((rp.protocol || 'TCP') !== proto) return false;
        if (rp.port === undefined) return true;
        let num = rp.port;
        if (typeof num === 'string') { const cp = dst.w && resolvePort(dst.w, num); if (!cp) return false; num = cp.port; }
        return rp.endPort ? port >= num && port <= rp.endPort : port === num;
      });
    };
    const peerMatch = (peer, polNs, x) => {
      if (peer.ipBlock) {
        if (!x.ip || !inCidr(x.ip, peer.ipBlock.cidr)) return false;
        return !(peer.ipBlock.except || []).some(e => inCidr(x.ip, e));
      }
      if (!x.ns) return false;
      const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, x.nsLabels) : x.ns === polNs;
      const podOk = peer.podSelector ? selects(peer.podSelector, x.labels) : true;
      return nsOk && podOk;
    };
    const allowedDir = (x, other, dir, port, proto, dst) => {
      if (!x.ns || x.ns !== NS) return true;  /* only this namespace has policies */
      const type = dir === 'ingress' ? 'Ingress' : 'Egress';
      const apply = pols.filter(d => selects(d.obj.spec.podSelector, x.labels) || selectsAll(d.obj.spec.podSelector))
        .filter(d => (d.obj.spec.policyTypes || (dir === 'ingress' ? ['Ingress'] : [])).includes(type));
      if (!apply.length) return true;
      return apply.some(d => (d.obj.spec[dir] || []).some(rule => {
        const peers = rule[dir === 'ingress' ? 'from' : 'to'];
        const who = !peers || !peers.length || peers.some(pe => peerMatch(pe, d.obj.metadata.namespace || NS, other));
        return who && portMatch(rule.ports, dst, port, proto);
      }));
    };
    const allowed = (src, dst, port, proto = 'TCP') => allowedDir(src, dst, 'egress', port, proto, dst) && allowedDir(dst, src, 'ingress', port, proto, dst);
    const expect = [];
    const yes = (a, b, port, proto) => expect.push([a, b, port, proto || 'TCP', true]);
    const no = (a, b, port, proto) => expect.push([a, b, port, proto || 'TCP', false]);
    if (!['hlfs', 'llfs', 'redis', 'redis-cache', 'discover', 'redis-coord'].every(comp)) { R.problem('want workloads labelled app.kubernetes.io/component hlfs, llfs, redis, redis-cache, discover and redis-coord'); return; }
    yes('crawler', 'hlfs', 8080); yes('prometheus', 'hlfs', 8080); yes('prometheus', 'llfs', 8081);
    yes('hlfs', 'llfs', 8081); yes('hlfs', 'redis', 6379); yes('hlfs', 'redis', 26379); yes('hlfs', 'redis-cache', 6380);
    yes('redis', 'redis', 6379); yes('redis', 'redis', 26379);
    no('llfs', 'redis', 26379); no('crawler', 'redis', 26379); no('redis-cache', 'redis', 26379); no('redis', 'redis-cache', 6380);
    no('crawler', 'redis-cache', 6380); no('llfs', 'redis-cache', 6380); no('prometheus', 'redis-cache', 6380);
    no('redis-cache', 'redis', 6379); no('redis-cache', '93.184.215.14', 443);
    for (const s of ['hlfs', 'llfs']) { yes(s, 'dns', 53, 'UDP'); yes(s, 'dns', 53, 'TCP'); }
    yes('llfs', '93.184.215.14', 80); yes('llfs', '93.184.215.14', 443); yes('llfs', '2606:2800:21f:cb07::1', 443);
    no('stranger', 'hlfs', 8080); no('crawler', 'llfs', 8081); no('crawler', 'redis', 6379); no('stranger', 'llfs', 8081);
    no('llfs', 'redis', 6379); no('llfs', 'hlfs', 8080); no('prometheus', 'redis', 6379); no('redis', 'hlfs', 8080);
    no('redis', '93.184.215.14', 443); no('hlfs', '93.184.215.14', 443); no('hlfs', '93.184.215.14', 80);
    no('llfs', '93.184.215.14', 22); no('llfs', '93.184.215.14', 25);
    for (const ip of ['10.0.0.5', '10.96.0.1', '172.16.0.1', '172.31.255.254', '192.168.1.1', '169.254.169.254', '127.0.0.1', '100.64.0.1', '0.0.0.1', 'fd00::1', 'fe80::1', '::1', '::ffff:10.0.0.1', '::ffff:169.254.169.254']) { no('llfs', ip, 80); no('llfs', ip, 443); }
    no('llfs', 'crawler', 8080); no('llfs', 'prometheus', 9090); no('llfs', 'stranger', 443);
    /* the partitioned crawl: the gateway and its coordination Redis only */
    yes('discover', 'hlfs', 8080); yes('discover', 'redis-coord', 6381);
    yes('discover', 'dns', 53, 'UDP'); yes('discover', 'dns', 53, 'TCP');
    no('discover', 'redis', 6379); no('discover', 'redis', 26379); no('discover', 'redis-cache', 6380);
    no('discover', 'llfs', 8081); no('discover', '93.184.215.14', 80); no('discover', '93.184.215.14', 443);
    no('discover', '10.0.0.5', 6379); no('discover', 'crawler', 8080);
    for (const s of ['hlfs', 'llfs', 'redis', 'redis-cache', 'crawler', 'prometheus', 'stranger']) no(s, 'redis-coord', 6381);
    no('redis-coord', 'hlfs', 8080); no('redis-coord', 'redis', 6379); no('redis-coord', '93.184.215.14', 443);
    for (const s of ['hlfs', 'crawler', 'stranger', 'prometheus']) no(s, 'discover', 8080);
    for (const [a, b, port, proto, want] of expect) {
      const src = ep[a] || ext(a), dst = ep[b] || ext(b);
      const got = allowed(src, dst, port, proto);
      if (got !== want) R.problem(`${a} -> ${b}:${port}/${proto} is ${got ? 'allowed' : 'denied'}, want ${want ? 'allowed' : 'denied'}`);
    }
    R.note(`${expect.length} paths evaluated (${expect.filter(e => e[4]).length} open, ${expect.filter(e => !e[4]).length} closed)`);
  });

  if (opts.rendered) {
    R.check(`kustomize output (${rel(opts.rendered)}) validates and keeps every object`, () => {
      const { docs: out, errors } = loadYaml(path.resolve(opts.rendered));
      errors.forEach(e => R.problem(e));
      for (const d of out) {
        schemaErrors(d).errors.forEach(e => R.problem(e));
        const m = modelFor(d.obj.apiVersion, d.obj.kind);
        if (m) unknownFields(d, m.dts).forEach(e => R.problem(e));
        if (!CLUSTER_SCOPED.has(d.obj.kind) && d.obj.metadata.namespace !== NS) R.problem(at(d, ['metadata', 'namespace'], `want ${NS}`));
      }
      /* a generated ConfigMap is rendered as name-<hash of its content>,
       * and every reference to it uses that name: a change rolls its pods */
      const gen = new Set(docs.filter(d => d.generated).map(d => d.obj.metadata.name));
      const hashed = new Map();
      for (const d of out) {
        const m = d.obj.kind === 'ConfigMap' && /^(.*)-([a-z0-9]{10})$/.exec(d.obj.metadata.name);
        if (m && gen.has(m[1])) hashed.set(m[1], d.obj.metadata.name);
      }
      for (const g of gen) if (!hashed.has(g)) R.problem(`ConfigMap ${g} is rendered without its content hash`);
      const key = o => `${o.kind}/${o.kind === 'ConfigMap' ? ([...hashed].find(([, h]) => h === o.metadata.name) || [o.metadata.name])[0] : o.metadata.name}`;
      const a = new Set(docs.map(d => key(d.obj))), b = new Set(out.map(d => key(d.obj)));
      for (const k of a) if (!b.has(k)) R.problem(`${k} is missing from the kustomize output`);
      for (const k of b) if (!a.has(k)) R.problem(`${k} appears in the kustomize output only`);
      const refs = [];
      const walk = (v, k) => {
        if (Array.isArray(v)) v.forEach(x => walk(x));
        else if (v && typeof v === 'object') {
          if (['configMapRef', 'configMap', 'configMapKeyRef'].includes(k) && typeof v.name === 'string') refs.push(v.name);
          for (const [kk, vv] of Object.entries(v)) walk(vv, kk);
        }
      };
      out.filter(d => d.obj.kind !== 'ConfigMap').forEach(d => walk(d.obj));
      for (const r of refs) if (gen.has(r)) R.problem(`a workload refers to ConfigMap ${r} without its hash`);
      if (!refs.length) R.problem('no workload refers to a ConfigMap');
      R.note(`${out.length} objects rendered; generated ConfigMaps: ${[...hashed.values()].join(', ')}`);
    });
  }
  process.exitCode = R.failed ? 1 : 0;
}

main();
