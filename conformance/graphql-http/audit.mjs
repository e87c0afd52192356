// GraphQL-over-HTTP conformance: runs graphql-http's serverAudits against a running deskgraph server.
// Usage: DESKGRAPH_URL=http://127.0.0.1:8080/graphql DESKGRAPH_TOKEN=dg_... node audit.mjs [results.md]
// Exits 1 when any MUST audit fails; SHOULD and MAY results are reported (and written as Markdown when a
// path is given) but do not fail the run.
import { serverAudits } from 'graphql-http';
import { writeFileSync } from 'node:fs';

const url = process.env.DESKGRAPH_URL ?? 'http://127.0.0.1:8080/graphql';
const token = process.env.DESKGRAPH_TOKEN;
if (!token) {
  console.error('DESKGRAPH_TOKEN is required (an API token of any user)');
  process.exit(2);
}

// Every audit request carries the token, as a real client would.
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};

const results = [];
for (const audit of serverAudits({ url, fetchFn })) {
  results.push(await audit.fn());
}

const level = (name) => name.split(' ')[0];
let mustFailures = 0;
const lines = [];
for (const result of results) {
  const ok = result.status === 'ok';
  if (!ok && level(result.name) === 'MUST') mustFailures += 1;
  const mark = ok ? 'ok  ' : result.status.padEnd(6);
  console.log(`${mark} ${result.id} ${result.name}${ok ? '' : `\n       ${result.reason}`}`);
  lines.push(`| ${result.id} | ${result.name.replaceAll('|', '\\|')} | ${ok ? 'pass' : `**${result.status}**: ${result.reason.replaceAll('|', '\\|').replaceAll('\n', ' ')}`} |`);
}

const count = (lvl) => results.filter((r) => level(r.name) === lvl);
const summary = ['MUST', 'SHOULD', 'MAY']
  .map((lvl) => `${lvl}: ${count(lvl).filter((r) => r.status === 'ok').length}/${count(lvl).length} pass`)
  .join(', ');
console.log(`\n${summary}`);

const out = process.argv[2];
if (out) {
  const table = ['| id | audit | result |', '|---|---|---|', ...lines].join('\n');
  writeFileSync(out, `${summary}\n\n${table}\n`);
}
process.exit(mustFailures === 0 ? 0 : 1);
