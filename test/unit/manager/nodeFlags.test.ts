import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../../../src/apis/index.js';
import { NODE_FLAGS } from '../../../src/manager/index.js';

describe('manager/nodeFlags', () => {
  it("are the image's: the Dockerfile starts Node with exactly them", () => {
    const dockerfile = readFileSync(join(packageRoot(), 'Dockerfile'), 'utf8');
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(entrypoint, 'an exec-form ENTRYPOINT').to.be.a('string');
    expect(JSON.parse(entrypoint ?? '[]')).to.deep.equal(['node', ...NODE_FLAGS, 'bin/compositor.js']);
  });

  it('are flags Node accepts in NODE_OPTIONS too, the way to give them outside the image', () => {
    for (const flag of NODE_FLAGS) {
      expect(process.allowedNodeEnvironmentFlags.has(flag.split('=')[0] ?? flag), flag).to.equal(true);
    }
  });
});
