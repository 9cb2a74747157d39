import { expect } from 'chai';
import { cacheTrimEnabled, kubeconfigSource } from '../../../src/cli/environment.js';

describe('cli/environment', () => {
  const cases: Record<string, { reason: string; env: NodeJS.ProcessEnv; want: boolean }> = {
    unset: { reason: 'trimming is the default', env: {}, want: true },
    false: { reason: 'the benchmark switch turns it off', env: { COMPOSITOR_CACHE_TRIM: 'false' }, want: false },
    true: { reason: 'any other value leaves it on', env: { COMPOSITOR_CACHE_TRIM: 'true' }, want: true },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`COMPOSITOR_CACHE_TRIM ${name}: ${c.reason}`, () => {
      expect(cacheTrimEnabled(c.env), c.reason).to.equal(c.want);
    });
  }

  it('hands loadKubeConfig the --kubeconfig path and the environment it reads $KUBECONFIG from', () => {
    const env = { KUBECONFIG: '/tmp/a' };
    expect(kubeconfigSource('/tmp/flag', env)).to.deep.equal({ path: '/tmp/flag', env });
  });
});
