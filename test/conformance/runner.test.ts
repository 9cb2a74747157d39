// The runner itself, on temporary copies of the corpus: changing one vector's expected value fails exactly that
// vector, and a missing corpus is a one-line error with a non-zero exit, never a silent pass.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { packageRoot } from '../../src/apis/index.js';
import { corpusDir } from './corpus.js';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The one real-world render case the runner's own run keeps. */
const KEPT_REALWORLD = 'rw-docs-conn-pt';

/** Set in the child run, whose copy of this suite must not start runs of its own. */
const CHILD = 'COMPOSITOR_CONFORMANCE_RUNNER_CHILD';

/** Runs `npm run test:conformance` (run.ts) against the given corpus, as CI runs it. */
function runConformance(dir: string, json: string): Run {
  const root = packageRoot();
  const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/conformance/run.ts', '--json', json], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, COMPOSITOR_CONFORMANCE_DIR: dir, [CHILD]: '1' },
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('conformance runner', function () {
  this.timeout(120_000);
  before(function () {
    if (process.env[CHILD] === '1') this.skip();
  });

  it('fails exactly the vector and the scenario whose expected values were changed, and says so in the summary', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compositor-corpus-'));
    cpSync(corpusDir(), dir, { recursive: true });
    // Live scenarios take minutes each; the render ones exercise the scenario runner in seconds.
    const scenarios = join(dir, 'scenarios');
    for (const id of readdirSync(scenarios)) {
      const spec = parse(readFileSync(join(scenarios, id, 'expected.yaml'), 'utf8')) as { steps?: unknown };
      if (spec.steps !== undefined) rmSync(join(scenarios, id), { recursive: true });
    }
    // The real-world folder holds a hundred renders; one of them shows the runner reads that folder too.
    const realworld = join(dir, 'realworld');
    for (const id of readdirSync(realworld))
      if (id !== KEPT_REALWORLD) rmSync(join(realworld, id), { recursive: true });
    const folder = join(dir, 'engine-vectors');
    const file = join(folder, readdirSync(folder).sort()[0] ?? '');
    const vector = parse(readFileSync(file, 'utf8')) as { id: string; expect: { name: string } };
    vector.expect.name = `${vector.expect.name}-changed`;
    writeFileSync(file, stringify(vector));
    const scenarioFile = join(scenarios, 'render-empty-pipeline', 'expected.yaml');
    writeFileSync(
      scenarioFile,
      readFileSync(scenarioFile, 'utf8').replace('bucket-composition', 'another-composition'),
    );
    const json = join(dir, 'summary.json');

    const run = runConformance(dir, json);

    expect(run.status, run.stderr).to.not.equal(0);
    const summary = JSON.parse(readFileSync(json, 'utf8')) as {
      failed: number;
      passed: number;
      unsupported: number;
      entries: { id: string; status: string }[];
    };
    const failed = summary.entries.filter((e) => e.status === 'failed').map((e) => e.id);
    expect(failed.sort()).to.deep.equal([vector.id, 'render-empty-pipeline'].sort());
    expect(summary.failed).to.equal(2);
    expect(summary.entries.find((e) => e.id === KEPT_REALWORLD)?.status).to.equal('passed');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.find((l) => l.startsWith(`FAIL ${vector.id} (ChildName): (root): got "`))).to.not.equal(undefined);
    expect(
      lines.find((l) => l.startsWith('FAIL render-empty-pipeline (RenderScenario): events[0].message: got')),
    ).to.not.equal(undefined);
    expect(lines.at(-1)).to.equal(`${summary.passed} passed, 2 failed, ${summary.unsupported} skipped`);
  });

  it('stops with one line naming the path when the corpus is missing', () => {
    const missing = join(tmpdir(), 'compositor-no-such-corpus');
    const run = runConformance(missing, join(tmpdir(), 'compositor-no-summary.json'));
    expect(run.status).to.equal(1);
    expect(run.stderr.trim().split('\n')).to.deep.equal([
      `cannot read conformance corpus ${missing}: ENOENT: no such file or directory, stat '${missing}'`,
    ]);
  });
});
