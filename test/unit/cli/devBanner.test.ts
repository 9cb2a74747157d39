import { expect } from 'chai';
import { readyBanner } from '../../../src/cli/devBanner.js';

describe('cli/devBanner', () => {
  it('says where the control plane is, with an export line to paste', () => {
    const text = readyBanner({ server: 'https://127.0.0.1:6443', kubeconfigPath: '/tmp/cp-1/kubeconfig' });
    expect(text.split('\n')).to.deep.equal([
      '',
      'compositor dev: ready; the control plane is up at https://127.0.0.1:6443',
      '  export KUBECONFIG=/tmp/cp-1/kubeconfig',
      "  kubectl get composite,claim -A    # the examples' XRs and claims",
      '  Ctrl-C stops compositor and the control plane.',
      '',
      '',
    ]);
  });

  it('quotes a kubeconfig path the shell would split', () => {
    const text = readyBanner({ server: 'https://127.0.0.1:6443', kubeconfigPath: "/tmp/my dir/it's/kubeconfig" });
    expect(text).to.include(`  export KUBECONFIG='/tmp/my dir/it'\\''s/kubeconfig'\n`);
  });
});
