import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../../src/apis/index.js';

// bin/compositor.js checks the Node.js version through bin/node-version.js, plain JavaScript without dependencies
// (it must run on the old Node.js it rejects), loaded here by path as the bin loads it.

interface NodeVersionCheck {
  REQUIRED_NODE_MAJOR: number;
  nodeVersionProblem(version: string, required?: number): string | undefined;
}

const BIN = join(packageRoot(), 'bin', 'compositor.js');
const check = (await import(pathToFileURL(join(packageRoot(), 'bin', 'node-version.js')).href)) as NodeVersionCheck;

describe('bin/node version check', () => {
  const cases: Record<string, { version: string; ok: boolean }> = {
    'the pinned major': { version: '24.0.0', ok: true },
    'a later major': { version: '25.1.0', ok: true },
    'the previous major': { version: '23.11.1', ok: false },
    'the system Node.js of this machine': { version: '20.20.2', ok: false },
    'a version it cannot read': { version: 'unknown', ok: false },
  };
  for (const [name, { version, ok }] of Object.entries(cases)) {
    it(`${ok ? 'accepts' : 'rejects'} ${name} (${version})`, () => {
      expect(check.nodeVersionProblem(version) === undefined, name).to.equal(ok);
    });
  }

  it('says in one line what it needs, what it found and how to run compositor', () => {
    expect(check.nodeVersionProblem('20.20.2')).to.equal(
      'compositor needs Node.js >= 24 (found v20.20.2); run it with npx compositor ..., which uses the Node.js ' +
        'pinned in this repository, or install Node.js 24',
    );
  });

  it('needs the major of the Node.js package.json pins, and package.json has no "engines" for npm to warn about', () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      engines?: unknown;
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies.node?.split('.')[0]).to.equal(String(check.REQUIRED_NODE_MAJOR));
    expect(manifest.engines, 'npx prints EBADENGINE for "engines" when the machine\'s node is older').to.equal(
      undefined,
    );
  });

  it('stops bin/compositor.js on an old Node.js before it loads anything else, exit code 1', () => {
    // This Node.js, made to report an old version before the bin runs: the bin must print only the check's line.
    const pretendOld = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.20.2"})`;
    const run = spawnSync(process.execPath, ['--import', pretendOld, BIN, '--help'], { encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(1);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal(`${check.nodeVersionProblem('20.20.2') ?? ''}\n`);
  });
});
