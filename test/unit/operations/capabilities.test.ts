import { expect } from 'chai';
import { hasCapability, missingCapability } from '../../../src/operations/index.js';

describe('operations/capabilities', () => {
  it('matches a capability exactly as written, as upstream compares them', () => {
    expect(hasCapability(['composition', 'operation'], 'operation')).to.equal(true);
    expect(hasCapability(['Operation'], 'operation')).to.equal(false);
    expect(hasCapability(['op-eration'], 'operation')).to.equal(false);
  });

  it("names the first function whose active revision lacks the capability, with upstream's message", async () => {
    const revisions: Record<string, string[]> = { ok: ['operation'], old: ['composition'] };
    const lookup = (name: string): Promise<{ name: string; capabilities: string[] } | undefined> =>
      Promise.resolve(revisions[name] ? { name: `${name}-abc`, capabilities: revisions[name] } : undefined);
    const signal = new AbortController().signal;
    expect(await missingCapability(['ok', 'unknown'], lookup, signal)).to.equal(undefined);
    expect(await missingCapability(['ok', 'old'], lookup, signal)).to.equal(
      'function "old" (active revision "old-abc") is missing required capabilities: operation',
    );
  });
});
