import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/apis/index.js';
import { runProgram, type CommandHandlers } from '../../../src/cli/index.js';

// The commands README.md and docs/ tell users to run, as written: every `compositor ...` in a shell block parses and
// reaches its command (no usage error), and every `npm run <script>` names a script of package.json. What they do
// against a cluster is covered by each command's own tests.

const ROOT = packageRoot();
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((file) => join('docs', file))].filter((file) =>
  file.endsWith('.md'),
);

/** The lines of the page's sh/bash/shell blocks, a line continued with a trailing backslash joined to the next. */
function shellLines(text: string): string[] {
  const lines: string[] = [];
  let inBlock = false;
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) {
      inBlock = !inBlock && /```(sh|bash|shell|console)\s*$/.test(line);
      continue;
    }
    if (!inBlock) continue;
    pending += line.trim();
    if (pending.endsWith('\\')) {
      pending = `${pending.slice(0, -1)} `;
      continue;
    }
    lines.push(pending);
    pending = '';
  }
  return lines;
}

/**
 * Each compositor invocation in a line, as argv: after `npx compositor`, or after `-- compositor` (kubectl exec),
 * comments included (they show alternatives); an optional part in brackets is taken as given.
 */
function compositorCommands(line: string): string[][] {
  const found: string[][] = [];
  for (const match of line.matchAll(/(?:^|npx\s+|--\s+)compositor((?:\s[^|#&;]*)?)/g)) {
    const args = (match[1] ?? '').replaceAll(/[[\]]/g, ' ').trim();
    found.push(args === '' ? [] : args.split(/\s+/));
  }
  return found;
}

const commands = PAGES.flatMap((page) =>
  shellLines(readFileSync(join(ROOT, page), 'utf8')).flatMap((line) =>
    compositorCommands(line).map((argv) => ({ page, line, argv })),
  ),
);

async function run(argv: string[]): Promise<{ code: number; stderr: string; ran: string | undefined }> {
  let ran: string | undefined;
  const record = (name: string) => (): Promise<number> => {
    ran = name;
    return Promise.resolve(0);
  };
  const handlers: CommandHandlers = {
    start: record('start'),
    dev: record('dev'),
    render: record('render'),
    operationRender: record('operation'),
    diagnose: record('diagnose'),
    trace: record('trace'),
  };
  let stderr = '';
  const code = await runProgram(argv, handlers, {
    writeOut: () => undefined,
    writeErr: (text) => (stderr += text),
  });
  return { code, stderr, ran };
}

describe('commands in README.md and docs/', () => {
  it('finds the compositor commands the pages show', () => {
    expect(commands.map((c) => c.argv[0])).to.include.members(['diagnose', 'trace', 'render', 'start', '--help']);
  });

  for (const { page, line, argv } of commands) {
    it(`${page}: compositor ${argv.join(' ')}`, async () => {
      const result = await run(argv);
      expect(result.code, `${page}: ${line}\n${result.stderr}`).to.equal(0);
      expect(result.stderr).to.equal('');
      if (argv[0] !== '--help') expect(result.ran, `${page}: ${line}`).to.equal(argv[0]);
    });
  }

  it('names only npm scripts package.json has', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
    );
    const named = PAGES.flatMap((page) =>
      [...readFileSync(join(ROOT, page), 'utf8').matchAll(/npm run ([\w:-]+)/g)].map((m) => `${page}: ${m[1] ?? ''}`),
    );
    expect(named.length).to.be.above(10);
    const missing = named.filter((entry) => !scripts.includes(entry.split(': ')[1] ?? ''));
    expect(missing).to.deep.equal([]);
  });
});
