#!/usr/bin/env node
// A deliberately wrong copy of the contract, to prove that the validator
// notices when answers and contract disagree.
//
//   node mutate.mjs SPEC MUTATION OUT
//
// Mutations:
//   drop-problem-type  not-found is no longer a Problem type
//   require-field      SiteState requires a member the gateway never sends
//   drop-status        fetchNow no longer declares 504
//   wrong-media-type   healthz answers text/plain
//   narrow-request     FetchRequest allows no `headers` member
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const YAML = require('yaml');
const [specFile, mutation, out] = process.argv.slice(2);
const spec = YAML.parse(readFileSync(specFile, 'utf8'));
const s = spec.components.schemas;
const mutations = {
  'drop-problem-type': () => {
    s.Problem.properties.type.enum = s.Problem.properties.type.enum
      .filter((t) => t !== 'urn:wpfs:problem:not-found');
  },
  'require-field': () => {
    s.SiteState.properties.no_such_member = { type: 'string' };
    s.SiteState.required.push('no_such_member');
  },
  'drop-status': () => { delete spec.paths['/v1/fetch'].post.responses['504']; },
  'wrong-media-type': () => {
    const r = spec.paths['/healthz'].get.responses['200'];
    r.content = { 'text/plain': r.content['application/json'] };
  },
  'narrow-request': () => { delete s.FetchRequest.properties.headers; },
};
if (!mutations[mutation]) {
  console.error(`unknown mutation ${mutation}: ${Object.keys(mutations).join(', ')}`);
  process.exit(2);
}
mutations[mutation]();
writeFileSync(out, YAML.stringify(spec));
