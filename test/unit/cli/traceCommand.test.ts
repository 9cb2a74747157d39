import { expect } from 'chai';
import { runProgram, type TraceOptions } from '../../../src/cli/index.js';
import { splitResourceAndName } from '../../../src/cli/traceCommand.js';

/** Runs `compositor trace ...` with a handler that records the options instead of reading a cluster. */
async function run(
  argv: string[],
  withHandler = true,
): Promise<{ code: number; stderr: string; options: TraceOptions | undefined }> {
  const seen = { stderr: '', options: undefined as TraceOptions | undefined };
  const code = await runProgram(
    ['trace', ...argv],
    {
      start: () => Promise.resolve(0),
      dev: () => Promise.resolve(0),
      ...(withHandler
        ? {
            trace: (options: TraceOptions) => {
              seen.options = options;
              return Promise.resolve(0);
            },
          }
        : {}),
    },
    { writeOut: () => undefined, writeErr: (text) => (seen.stderr += text) },
  );
  return { code, ...seen };
}

describe('cli/traceCommand', () => {
  const cases: Record<string, { reason: string; argv: string[]; want: TraceOptions }> = {
    typeAndName: {
      reason: 'TYPE NAME, with the default output',
      argv: ['xapp', 'shop'],
      want: { resource: 'xapp', name: 'shop', output: 'default' },
    },
    slash: {
      reason: 'TYPE/NAME as kubectl accepts it',
      argv: ['xapps.example.org/shop'],
      want: { resource: 'xapps.example.org', name: 'shop', output: 'default' },
    },
    everyFlag: {
      reason: 'every flag, short forms',
      argv: ['xapp', 'shop', '-n', 'team-a', '-o', 'wide', '-s', '--kubeconfig', '/tmp/kc'],
      want: {
        resource: 'xapp',
        name: 'shop',
        namespace: 'team-a',
        output: 'wide',
        showConnectionSecrets: true,
        kubeconfig: '/tmp/kc',
      },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      const result = await run(c.argv);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.options, c.reason).to.deep.equal(c.want);
    });
  }

  it('rejects a name given twice, a missing name and an unknown output with one line and exit code 2', async () => {
    for (const argv of [['xapp/shop', 'shop'], ['xapp'], ['xapp', 'shop', '-o', 'yaml']]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).to.equal(2);
      expect(result.stderr.trim().split('\n'), argv.join(' ')).to.have.length(1);
      expect(result.stderr, argv.join(' ')).to.match(/^compositor: /);
      expect(result.options).to.equal(undefined);
    }
  });

  it('is a usage error in a build without the handler', async () => {
    const result = await run(['xapp', 'shop'], false);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.equal('compositor: trace is not available in this build\n');
  });

  it('splits the arguments as upstream does', () => {
    expect(splitResourceAndName('xapp', 'shop')).to.deep.equal(['xapp', 'shop']);
    expect(splitResourceAndName('xapp/shop', undefined)).to.deep.equal(['xapp', 'shop']);
    expect(splitResourceAndName('a/b/c', undefined)).to.equal(
      "invalid resource, must be provided in the 'TYPE[.VERSION][.GROUP][/NAME]' format",
    );
    expect(splitResourceAndName('xapp/shop', 'shop')).to.match(/^name provided twice/);
  });
});
