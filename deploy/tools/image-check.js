#!/usr/bin/env node
'use strict';
/* Checks of the container image without a container engine.
 *
 *   node deploy/tools/image-check.js [--bin DIR] [--extra NAME=PATH]...
 *        [--dockerignore FILE] [--full-build | --skip-build] [--only REGEX]
 *        [DOCKERFILE]
 *
 * - lint: dockerfile-utils (the grammar and instruction checks of the
 *   Dockerfile language service), every rule an error;
 * - stages, apt use and the runtime stage's contract (numeric non-root USER,
 *   EXPOSE of the services' ports, STOPSIGNAL, HEALTHCHECK, exec-form
 *   ENTRYPOINT, no compiler, curl or -dev package);
 * - context: every COPY source exists and passes .dockerignore, and .git,
 *   node_modules and build output never reach the builder;
 * - build: the build stage's COPYs are replayed into an empty directory with
 *   the .dockerignore rules, `make -n` must plan the named targets there and
 *   every compile command must preprocess (all headers present), the other
 *   compile commands of that RUN run as written; with --full-build the
 *   targets are built for real and those binaries are checked below;
 * - libraries: every shared library the programs copied into the runtime
 *   stage load (ldd) belongs to a Debian package (dpkg -S) that the runtime
 *   stage installs, directly or through its dependencies, or that every
 *   Debian base image has (Essential or Priority required); each library a
 *   program links directly must come from a package named in the stage.
 *   This is what shows the image would start: the host runs the same Debian
 *   release as the base images.
 * --bin is where the programs were built (bin/), --extra names a program
 * built elsewhere (wpfs-healthcheck, when --skip-build leaves out the
 * replayed build); --only reports the checks whose name matches. Output as
 * in k8s-check.js. */
const fs = require('fs');
const os = require('os');
const path = require('path');
const cp = require('child_process');
const lib = require('./lib');

const ROOT = path.resolve(__dirname, '..', '..');
const opts = lib.parseArgs(process.argv.slice(2), { bin: 'str', extra: 'list', 'full-build': 'bool', dockerignore: 'str', only: 'str', 'skip-build': 'bool' });
const DOCKERFILE = path.resolve(opts._[0] || path.join(ROOT, 'deploy', 'container', 'Dockerfile'));
const BIN = path.resolve(opts.bin || path.join(ROOT, 'bin'));
const EXTRA = new Map((opts.extra || []).map(s => [s.split('=')[0], path.resolve(s.slice(s.indexOf('=') + 1))]));
const SERVICES = ['llfs', 'hlfs'];
/* Programs the image may lack while they are being written. */
const OPTIONAL = new Set(['hlfs']);
const R = new lib.Report(opts.only ? new RegExp(opts.only, 'i') : null);
const rel = f => path.relative(process.cwd(), f) || f;
const at = (ins, msg) => `${rel(DOCKERFILE)}:${ins.line}: ${ins.keyword}: ${msg}`;
const sh = (cmd, o = {}) => cp.spawnSync('bash', ['-c', cmd], { encoding: 'utf8', maxBuffer: 64 << 20, ...o });

function main() {
  const text = fs.readFileSync(DOCKERFILE, 'utf8');
  const instrs = lib.parseDockerfile(text);
  const stages = lib.dockerStages(instrs);
  const runtime = stages[stages.length - 1];
  const build = stages.find(s => s.name === 'build');
  const IGNORE_FILE = path.resolve(opts.dockerignore || path.join(ROOT, '.dockerignore'));
  const ignore = lib.readDockerignore(IGNORE_FILE);

  R.check(`${rel(DOCKERFILE)} lints clean (dockerfile-utils, every rule an error)`, () => {
    const du = require('dockerfile-utils');
    const E = du.ValidationSeverity.ERROR;
    const settings = {
      deprecatedMaintainer: E, directiveCasing: E, emptyContinuationLine: E, instructionCasing: E,
      instructionCmdMultiple: E, instructionEntrypointMultiple: E, instructionHealthcheckMultiple: E,
      instructionJSONInSingleQuotes: E, instructionWorkdirRelative: E,
    };
    for (const dg of du.validate(text, settings)) R.problem(`${rel(DOCKERFILE)}:${dg.range.start.line + 1}: ${dg.message}`);
    for (const ins of instrs) if (ins.badJson) R.problem(at(ins, 'looks like the exec form but is not valid JSON'));
  });

  R.check('stages: pinned Debian bookworm bases, build then runtime, references resolve', () => {
    if (!build) R.problem('no stage named "build"');
    if (!stages.length) return;
    const names = new Set();
    for (const st of stages) {
      if (names.has(st.name)) R.problem(`${rel(DOCKERFILE)}:${st.line}: stage name ${st.name} used twice`);
      names.add(st.name);
      const m = /^([^:@]+)(?::([\w.-]+))?(@sha256:[0-9a-f]{64})?$/.exec(st.from);
      if (names.has(st.from)) continue;  /* FROM an earlier stage */
      if (!m || (!m[2] && !m[3]) || m[2] === 'latest') R.problem(`${rel(DOCKERFILE)}:${st.line}: FROM ${st.from}: pin a tag or digest`);
      else if (!/^debian$/.test(m[1]) || !/^bookworm(-slim)?$/.test(m[2] || '')) R.problem(`${rel(DOCKERFILE)}:${st.line}: FROM ${st.from}: the programs are built and checked on Debian bookworm`);
    }
    if (build && build.from !== 'debian:bookworm') R.problem(`${rel(DOCKERFILE)}:${build.line}: the build stage should start from debian:bookworm`);
    if (runtime.from !== 'debian:bookworm-slim') R.problem(`${rel(DOCKERFILE)}:${runtime.line}: the last (default) stage is the runtime image, from debian:bookworm-slim (got ${runtime.from})`);
    for (const st of stages) {
      const before = new Set(stages.slice(0, stages.indexOf(st)).map(s => s.name));
      for (const ins of st.ins) {
        if (ins.keyword === 'COPY' && ins.flags.from && !before.has(ins.flags.from)) R.problem(at(ins, `--from=${ins.flags.from} is not an earlier stage`));
        if (ins.keyword === 'ADD' && /https?:\/\//.test(ins.rest)) R.problem(at(ins, 'downloads at build time; use apt or COPY'));
        if (ins.keyword === 'ENV' && /\bDEBIAN_FRONTEND\b/.test(ins.rest)) R.problem(at(ins, 'ENV DEBIAN_FRONTEND stays in the image; use ARG'));
        if (ins.keyword === 'WORKDIR' && !ins.rest.startsWith('/')) R.problem(at(ins, 'relative WORKDIR'));
      }
    }
  });

  R.check('apt: update, install without recommends, and clean up in one RUN', () => {
    for (const st of stages) {
      for (const ins of st.ins.filter(i => i.keyword === 'RUN' && /apt-get\s+install/.test(i.rest))) {
        const r = ins.rest;
        if (!/apt-get\s+update[\s\S]*apt-get\s+install/.test(r)) R.problem(at(ins, 'apt-get install without apt-get update in the same RUN (a cached stale index)'));
        if (!/--no-install-recommends/.test(r)) R.problem(at(ins, 'apt-get install without --no-install-recommends'));
        if (!/apt-get\s+install\s+(-y|--yes|-[a-z]*y)/.test(r)) R.problem(at(ins, 'apt-get install without -y'));
        if (!/rm -rf \/var\/lib\/apt\/lists/.test(r)) R.problem(at(ins, 'the apt lists stay in the layer (rm -rf /var/lib/apt/lists/*)'));
        if (/apt-get\s+upgrade|dist-upgrade/.test(r)) R.problem(at(ins, 'upgrade in an image build: pin the base instead'));
      }
    }
  });

  const runtimePkgs = runtime ? runtime.ins.filter(i => i.keyword === 'RUN').flatMap(i => lib.aptInstalls(i.rest)) : [];
  /* Files the runtime stage copies from the build stage: image path -> build path */
  const copied = new Map();
  const imagePaths = new Set();
  for (const ins of runtime ? runtime.ins.filter(i => i.keyword === 'COPY') : []) {
    const a = ins.args;
    const dest = a[a.length - 1];
    for (const s of a.slice(0, -1)) {
      const target = dest.endsWith('/') ? path.posix.join(dest, path.posix.basename(s)) : dest;
      imagePaths.add(target);
      if (ins.flags.from) copied.set(target, s);
    }
  }

  R.check('runtime stage: non-root, ports, stop signal, healthcheck, entrypoint, nothing to build with', () => {
    const last = k => runtime.ins.filter(i => i.keyword === k).pop();
    const user = last('USER');
    if (!user) R.problem(`${rel(DOCKERFILE)}:${runtime.line}: no USER: the image would run as root`);
    else {
      const [u, g] = user.args[0].split(':');
      if (!/^\d+$/.test(u) || Number(u) === 0) R.problem(at(user, `"${user.args[0]}": a numeric non-zero uid (Kubernetes verifies runAsNonRoot only for numeric users)`));
      if (g !== undefined && (!/^\d+$/.test(g) || Number(g) === 0)) R.problem(at(user, 'numeric non-zero gid'));
      const made = runtime.ins.find(i => i.keyword === 'RUN' && new RegExp(`useradd[^&]*--uid\\s+${u}\\b`).test(i.rest));
      if (!made) R.problem(at(user, `no useradd --uid ${u} in this stage (the user has no name or home in /etc/passwd)`));
    }
    const exposed = new Set(runtime.ins.filter(i => i.keyword === 'EXPOSE').flatMap(i => i.args.map(a => Number(a.split('/')[0]))));
    for (const s of SERVICES) {
      const opt = lib.programOptions(path.join(BIN, s));
      if (!opt) { R.note(`${s} is not built: its port not compared with EXPOSE`); continue; }
      const port = [...opt.values()].find(o => o.flag === 'listen-port');
      if (port && !exposed.has(Number(port.def))) R.problem(`${rel(DOCKERFILE)}: ${s} listens on ${port.def} by default but the runtime stage does not EXPOSE it`);
    }
    const stop = last('STOPSIGNAL');
    if (!stop || stop.args[0] !== 'SIGTERM') R.problem(`${rel(DOCKERFILE)}: runtime stage needs STOPSIGNAL SIGTERM (the services stop gracefully on it)`);
    const hc = last('HEALTHCHECK');
    if (!hc) R.problem(`${rel(DOCKERFILE)}: runtime stage has no HEALTHCHECK`);
    else {
      const m = /^CMD\s+(\[.*\])\s*$/.exec(hc.rest);
      let argv = null;
      try { argv = m && JSON.parse(m[1]); } catch (e) { argv = null; }
      if (!argv) R.problem(at(hc, 'CMD in exec form (no shell needed)'));
      else if (!imagePaths.has(argv[0])) R.problem(at(hc, `${argv[0]} is not copied into the image`));
      if (!hc.flags.timeout || !hc.flags.interval) R.problem(at(hc, 'set --interval and --timeout'));
    }
    const ep = last('ENTRYPOINT');
    if (!ep || !Array.isArray(ep.exec)) R.problem(`${rel(DOCKERFILE)}: runtime stage needs an exec-form ENTRYPOINT (the program is PID 1 and gets SIGTERM)`);
    else if (!imagePaths.has(ep.exec[0])) R.problem(at(ep, `${ep.exec[0]} is not copied into the image`));
    if (!runtimePkgs.includes('ca-certificates')) R.problem(`${rel(DOCKERFILE)}: runtime stage lacks ca-certificates (TLS verification needs the CA store)`);
    for (const p of runtimePkgs) {
      if (/-dev$|^build-essential$|^gcc|^clang|^make$|^curl$|^wget$|^pkg-config$/.test(p)) R.problem(`${rel(DOCKERFILE)}: runtime stage installs ${p}`);
    }
    for (const s of SERVICES) if (![...copied.keys()].some(k => path.posix.basename(k) === s)) R.problem(`${rel(DOCKERFILE)}: runtime stage does not copy ${s}`);
  });

  R.check('build context: COPY sources exist and pass .dockerignore; .git, node_modules and build output stay out', () => {
    if (!fs.existsSync(IGNORE_FILE)) R.problem('no .dockerignore: the whole tree (.git, node_modules, build) would be sent');
    for (const p of ['.git', 'node_modules', 'build', 'bin', 'tests', 'build/rel/x.o']) if (lib.contextIncludes(ignore, p)) R.problem(`.dockerignore lets ${p} into the build context`);
    const files = [];
    const walk = (d, r) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const rp = r ? `${r}/${e.name}` : e.name;
        if (rp === '.git' || rp === 'node_modules') continue;
        if (e.isDirectory()) walk(path.join(d, e.name), rp); else files.push(rp);
      }
    };
    walk(ROOT, '');
    const ctx = files.filter(f => lib.contextIncludes(ignore, f));
    let bytes = 0;
    for (const f of ctx) bytes += fs.statSync(path.join(ROOT, f)).size;
    R.note(`context: ${ctx.length} files, ${(bytes / 1024).toFixed(0)} KiB`);
    for (const st of stages) {
      for (const ins of st.ins.filter(i => (i.keyword === 'COPY' || i.keyword === 'ADD') && !i.flags.from)) {
        for (const s of ins.args.slice(0, -1)) {
          const src = s.replace(/^\.\//, '').replace(/\/$/, '');
          const abs = path.join(ROOT, src);
          if (!fs.existsSync(abs)) { R.problem(at(ins, `${s} does not exist`)); continue; }
          const inside = fs.statSync(abs).isDirectory() ? ctx.filter(f => f.startsWith(src + '/')) : ctx.filter(f => f === src);
          if (!inside.length) R.problem(at(ins, `${s} is excluded by .dockerignore`));
        }
      }
    }
  });

  const fullBuilt = new Map();
  if (!opts['skip-build']) R.check(`build stage: its COPYs alone are enough to ${opts['full-build'] ? 'build' : 'plan and preprocess'} the named targets`, () => {
    if (!build) { R.problem('no build stage'); return; }
    const workdir = (build.ins.filter(i => i.keyword === 'WORKDIR').pop() || { rest: '/' }).rest;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wpfs-ctx-'));
    try {
      for (const ins of build.ins.filter(i => i.keyword === 'COPY' && !i.flags.from)) {
        const dest = ins.args[ins.args.length - 1];
        const absDest = dest.startsWith('/') ? dest : path.posix.join(workdir, dest);
        if (!(absDest + '/').startsWith(workdir.replace(/\/?$/, '/')) && absDest !== workdir) continue;  /* outside the source tree */
        const relDest = path.posix.relative(workdir, absDest);
        for (const s of ins.args.slice(0, -1)) {
          const src = s.replace(/^\.\//, '').replace(/\/$/, '');
          const abs = path.join(ROOT, src);
          if (!fs.existsSync(abs)) continue;
          const copyFile = (from, to) => { fs.mkdirSync(path.dirname(to), { recursive: true }); fs.copyFileSync(from, to); };
          if (fs.statSync(abs).isDirectory()) {
            const walk = (d, r) => {
              for (const e of fs.readdirSync(d, { withFileTypes: true })) {
                const rp = `${r}/${e.name}`;
                if (!lib.contextIncludes(ignore, rp)) continue;
                if (e.isDirectory()) walk(path.join(d, e.name), rp); else copyFile(path.join(d, e.name), path.join(tmp, relDest, rp.slice(src.length + 1)));
              }
            };
            walk(abs, src);
          } else if (lib.contextIncludes(ignore, src)) {
            copyFile(abs, dest.endsWith('/') || relDest === '' ? path.join(tmp, relDest, path.basename(src)) : path.join(tmp, relDest));
          }
        }
      }
      const runs = build.ins.filter(i => i.keyword === 'RUN' && /\bmake\b/.test(i.rest));
      if (!runs.length) { R.problem('the build stage runs no make'); return; }
      for (const run of runs) {
        for (const part of run.rest.split('&&').map(s => s.trim())) {
          if (/^make\b/.test(part)) {
            const targets = part.split(/\s+/).slice(1).filter(w => !w.startsWith('-') && !w.includes('='));
            if (!targets.length) R.problem(at(run, '`make` without named targets would run `make deps` (package installs) and build the tests'));
            const vars = part.split(/\s+/).slice(1).filter(w => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
            const plan = sh(`make -n V=1 ${vars.join(' ')} ${targets.join(' ')}`, { cwd: tmp });
            if (plan.status !== 0) { R.problem(at(run, `make -n ${targets.join(' ')} fails in the replayed context: ${(plan.stderr || plan.stdout).trim().split('\n').slice(-3).join(' | ')}`)); continue; }
            if (opts['full-build']) {
              const b = sh(`${part.replace(/\$\(nproc\)/g, String(Math.max(1, os.cpus().length)))}`, { cwd: tmp });
              if (b.status !== 0) R.problem(at(run, `build failed: ${(b.stderr || '').trim().split('\n').slice(-5).join(' | ')}`));
              for (const t of targets) if (fs.existsSync(path.join(tmp, t))) fullBuilt.set(path.posix.join(workdir, t), path.join(tmp, t));
              continue;
            }
            // Sources make generates (under build/) do not exist before the
            // build; that their inputs were in the context, make -n proved.
            const cmds = plan.stdout.split('\n').filter(l => /\s-c\s/.test(l) && /\.c(\s|$)/.test(l) && !/^\s*(echo|@)/.test(l)
              && !/\s-c\s+build\//.test(l));
            if (!cmds.length) { R.problem(at(run, 'make -n planned no compilation')); continue; }
            const pre = cmds.map(c => c.replace(/\s-MMD\b|\s-MP\b/g, '').replace(/\s-c\s/, ' -E ').replace(/\s-o\s+\S+/, ' -o /dev/null'));
            const script = pre.map(c => `( ${c} ) 2>&1 | head -3 | sed 's/^/E: /'`).join('\n');
            const res = sh(`cd ${JSON.stringify(tmp)} && cat <<'EOF' | xargs -d '\\n' -P 2 -I{} bash -c {}\n${script}\nEOF`);
            const errs = (res.stdout || '').split('\n').filter(l => l.startsWith('E: '));
            errs.slice(0, 10).forEach(e => R.problem(at(run, `in the replayed context: ${e.slice(3)}`)));
            R.note(`${cmds.length} compile commands preprocess in the replayed context`);
          } else if (/^(cc|gcc|clang)\b/.test(part)) {
            const out = /-o\s+(\S+)/.exec(part);
            const res = sh(`mkdir -p ${out ? path.dirname(out[1]) : '.'} && ${part}`, { cwd: tmp });
            if (res.status !== 0) R.problem(at(run, `\`${part.slice(0, 60)}...\` fails in the replayed context: ${(res.stderr || '').trim().split('\n').slice(0, 3).join(' | ')}`));
            else if (out) fullBuilt.set(path.posix.join(workdir, out[1]), path.join(tmp, out[1]));
          }
        }
      }
    } finally {
      /* Programs built here are checked below. */
      process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
    }
  });

  R.check('runtime stage installs every shared library the programs load (ldd, dpkg -S)', () => {
    const codename = (fs.readFileSync('/etc/os-release', 'utf8').match(/^VERSION_CODENAME=(\S+)/m) || [])[1];
    if (codename !== 'bookworm') R.note(`this machine runs ${codename}, the image bookworm: package names may differ`);
    /* The host's package database: dependencies, priorities, what provides what. */
    const q = sh("dpkg-query -W -f='${Package}\\t${db:Status-Abbrev}\\t${Priority}\\t${Essential}\\t${Pre-Depends}\\t${Depends}\\t${Provides}\\n'");
    if (q.status !== 0) { R.problem(`dpkg-query failed: ${q.stderr}`); return; }
    const pkgs = new Map();
    const providers = new Map();
    for (const l of q.stdout.split('\n').filter(Boolean)) {
      const [name, status, prio, ess, pre, dep, prov] = l.split('\t');
      if (!/^ii/.test(status)) continue;
      const deps = [pre, dep].filter(Boolean).join(', ').split(',').map(s => s.trim()).filter(Boolean)
        .map(alt => alt.split('|').map(a => a.trim().replace(/\s*\(.*\)$/, '').replace(/:any$/, '')));
      pkgs.set(name, { prio, ess: ess === 'yes', deps });
      for (const p of (prov || '').split(',').map(s => s.trim().replace(/\s*\(.*\)$/, '')).filter(Boolean)) {
        if (!providers.has(p)) providers.set(p, []);
        providers.get(p).push(name);
      }
    }
    const closure = roots => {
      const seen = new Set();
      const stack = [...roots];
      while (stack.length) {
        const p = stack.pop();
        if (seen.has(p)) continue;
        seen.add(p);
        const info = pkgs.get(p);
        if (!info) continue;
        for (const alts of info.deps) {
          /* apt takes the first alternative; the host shows which is installed. */
          const pick = alts.find(a => pkgs.has(a)) || alts.flatMap(a => providers.get(a) || [])[0];
          if (pick) stack.push(pick);
        }
      }
      return seen;
    };
    const base = [...pkgs].filter(([, i]) => i.ess || i.prio === 'required').map(([n]) => n);
    const baseSet = closure(base);
    const explicit = new Set(runtimePkgs);
    const imageSet = closure([...base, ...runtimePkgs]);
    for (const p of runtimePkgs) {
      if (pkgs.has(p)) continue;
      const pol = sh(`apt-cache policy ${p} 2>/dev/null`);
      if (!/Candidate: (?!\(none\))/.test(pol.stdout)) R.problem(`${rel(DOCKERFILE)}: runtime package ${p} is not a Debian package known here`);
      else R.note(`${p} is not installed here: its dependencies are not followed`);
    }
    /* Programs in the image and where their builds are. */
    const progs = [];
    for (const [imgPath, buildPath] of copied) {
      const name = path.posix.basename(imgPath);
      const local = fullBuilt.get(buildPath) || EXTRA.get(name) || path.join(BIN, path.posix.basename(buildPath));
      if (!fs.existsSync(local)) {
        if (OPTIONAL.has(name)) R.note(`${name} is not built yet: its libraries are not checked`);
        else R.problem(`${imgPath}: no build at ${rel(local)} to check (make, or --extra ${name}=PATH)`);
        continue;
      }
      progs.push({ name, local });
    }
    /* Every library file of every program, then one dpkg -S for all. */
    const loads = new Map();
    for (const pr of progs) {
      const l = sh(`ldd ${JSON.stringify(pr.local)}`);
      if (l.status !== 0) { R.problem(`ldd ${pr.name}: ${(l.stderr || l.stdout).trim()}`); continue; }
      const libs = [];
      for (const line of l.stdout.split('\n')) {
        let m;
        if ((m = /^\s*(\S+) => not found/.exec(line))) R.problem(`${pr.name}: ${m[1]} not found even here`);
        else if ((m = /^\s*(\S+) => (\/\S+)/.exec(line))) {
          /* make test SANITIZE=1 checks instrumented programs: the sanitizer
           * runtimes are the test build's, never the image's. */
          if (!/^lib(asan|ubsan)\.so/.test(m[1])) libs.push({ so: m[1], file: m[2] });
        }
        else if ((m = /^\s*(\/\S+) \(0x/.exec(line))) libs.push({ so: path.basename(m[1]), file: m[1] });
      }
      loads.set(pr, libs);
    }
    const owner = new Map();
    const variantsOf = new Map();
    for (const libs of loads.values()) {
      for (const x of libs) {
        if (variantsOf.has(x.file)) continue;
        const real = fs.realpathSync(x.file);
        const v = new Set([x.file, real]);
        for (const f of [x.file, real]) v.add(f.startsWith('/usr/') ? f.slice(4) : `/usr${f}`);
        variantsOf.set(x.file, [...v]);
      }
    }
    const all = [...new Set([...variantsOf.values()].flat())];
    if (all.length) {
      const d = sh(`dpkg -S ${all.map(v => JSON.stringify(v)).join(' ')} 2>/dev/null`);
      for (const line of d.stdout.split('\n')) {
        const m = /^([^:,\s]+)(?::[a-z0-9]+)?(?:, [^:]+)?: (\/.*)$/.exec(line);
        if (m) owner.set(m[2], m[1]);
      }
    }
    const libPkg = new Map([...variantsOf].map(([f, vs]) => [f, vs.map(v => owner.get(v)).find(Boolean) || null]));
    const needed = new Map();
    for (const [pr, libs] of loads) {
      const ne = sh(`readelf -d ${JSON.stringify(pr.local)}`);
      const direct = new Set([...ne.stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map(x => x[1]));
      for (const x of libs) {
        const pkg = libPkg.get(x.file);
        if (!pkg) { R.problem(`${pr.name}: ${x.file} belongs to no Debian package (built by hand? it cannot be installed in the image)`); continue; }
        if (!needed.has(pkg)) needed.set(pkg, { libs: new Set(), direct: false, by: new Set() });
        const n = needed.get(pkg);
        n.libs.add(x.so);
        n.by.add(pr.name);
        if (direct.has(x.so)) n.direct = true;
      }
    }
    for (const [pkg, n] of [...needed].sort()) {
      const libs = [...n.libs].join(', ');
      const who = `${[...n.by].join(', ')} ${n.by.size > 1 ? 'load' : 'loads'}`;
      if (!imageSet.has(pkg)) R.problem(`${who} ${libs} from ${pkg}, which the runtime stage does not install (add it to its apt-get install)`);
      else if (n.direct && !explicit.has(pkg) && !baseSet.has(pkg)) R.problem(`${[...n.by].join(', ')} ${n.by.size > 1 ? 'link' : 'links'} ${libs} directly; name ${pkg} in the runtime stage rather than relying on another package's dependencies`);
    }
    const used = new Set(needed.keys());
    const unused = runtimePkgs.filter(p => p !== 'ca-certificates' && !used.has(p));
    if (unused.length) R.note(`installed but loaded by no program: ${unused.join(', ')}`);
    R.note(`${progs.length} programs load ${libPkg.size} libraries from ${needed.size} packages`);
  });

  process.exitCode = R.failed ? 1 : 0;
}

main();
