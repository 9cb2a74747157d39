// `npm run test:conformance [-- --json FILE]`: runs the conformance suites with mocha, then prints one line per
// failure and the final `N passed, N failed, N skipped` line; with --json the summary (counts by kind, one entry
// per vector) stays in FILE. Exits non-zero on any failure or a missing corpus.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../../src/apis/index.js';
import { reportLines, type Entry } from './report.js';

let json: string | undefined;
try {
  json = parseArgs({ options: { json: { type: 'string' } }, strict: true }).values.json;
} catch (err) {
  process.stderr.write(`test:conformance: ${(err as Error).message} (usage: test:conformance [--json FILE])\n`);
  process.exit(2);
}
const summaryFile =
  json === undefined ? join(mkdtempSync(join(tmpdir(), 'compositor-conformance-')), 'summary.json') : resolve(json);

// A summary left by an earlier run must not stand in for this one.
rmSync(summaryFile, { force: true });

const mocha = resolve(packageRoot(), 'node_modules', 'mocha', 'bin', 'mocha.js');
const child = spawnSync(process.execPath, [mocha, '--config', 'test/conformance/.mocharc.json'], {
  cwd: packageRoot(),
  stdio: 'inherit',
  env: { ...process.env, COMPOSITOR_CONFORMANCE_JSON: summaryFile },
});
// No summary means mocha stopped before the vectors ran (a missing corpus says so itself).
if (existsSync(summaryFile)) {
  const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as { entries: Entry[] };
  process.stdout.write(`${reportLines(summary.entries).join('\n')}\n`);
}
process.exit(child.status ?? 1);
