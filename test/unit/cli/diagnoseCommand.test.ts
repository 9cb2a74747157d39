import { expect } from 'chai';
import { runProgram, type DiagnoseOptions } from '../../../src/cli/index.js';

// `compositor diagnose`'s arguments: one resource, --stuck, or none at all for the overview that docs/migration.md
// has users run right after installing.

interface Run {
  code: number;
  stderr: string;
  options: DiagnoseOptions | undefined;
}

async function run(argv: string[]): Promise<Run> {
  const result: Run = { code: -1, stderr: '', options: undefined };
  result.code = await runProgram(
    argv,
    {
      start: () => Promise.resolve(0),
      dev: () => Promise.resolve(0),
      diagnose: (options) => {
        result.options = options;
        return Promise.resolve(0);
      },
    },
    { writeOut: () => undefined, writeErr: (text) => (result.stderr += text) },
  );
  return result;
}

describe('cli/program diagnose', () => {
  const cases: Record<string, { argv: string[]; want: Partial<DiagnoseOptions> }> = {
    'no arguments: the overview of stuck XRs and the leader': {
      argv: ['diagnose'],
      want: { resource: '', name: '', stuck: false, limit: 10, output: 'text' },
    },
    'the overview as JSON, listing more': {
      argv: ['diagnose', '-o', 'json', '--limit', '3'],
      want: { resource: '', name: '', stuck: false, limit: 3, output: 'json' },
    },
    'one resource in a namespace': {
      argv: ['diagnose', 'apps.example.compositor.crossplane.io', 'example', '-n', 'default'],
      want: { resource: 'apps.example.compositor.crossplane.io', name: 'example', namespace: 'default' },
    },
    '--stuck': { argv: ['diagnose', '--stuck'], want: { resource: '', name: '', stuck: true } },
  };
  for (const [reason, { argv, want }] of Object.entries(cases)) {
    it(`runs ${reason}`, async () => {
      const result = await run(argv);
      expect(result.code, `${reason}: ${result.stderr}`).to.equal(0);
      expect(result.options, reason).to.deep.include({
        leaderElectionNamespace: 'crossplane-system',
        ...want,
      });
    });
  }

  it('exits 2 with one line for a resource type without a name', async () => {
    const result = await run(['diagnose', 'apps']);
    expect(result.code).to.equal(2);
    expect(result.options).to.equal(undefined);
    expect(result.stderr).to.equal(
      'compositor: diagnose needs <resource> <name>, --stuck, or no arguments for an overview\n',
    );
  });
});
