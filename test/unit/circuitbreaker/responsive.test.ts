import { expect } from 'chai';
import { describeSource, responsiveCondition } from '../../../src/circuitbreaker/index.js';

describe('circuitbreaker/responsiveCondition', () => {
  it('is True/WatchCircuitClosed with no message while closed', () => {
    expect(responsiveCondition({ open: false })).to.deep.equal({
      type: 'Responsive',
      status: 'True',
      reason: 'WatchCircuitClosed',
    });
  });

  it("is False/WatchCircuitOpen naming the source in Crossplane's words while open", () => {
    const state = { open: true, triggeredBy: 'ConfigMap/circuit-breaker-configmap (default)', closesAtMs: 1 };
    expect(responsiveCondition(state)).to.deep.equal({
      type: 'Responsive',
      status: 'False',
      reason: 'WatchCircuitOpen',
      message:
        'Too many watch events from ConfigMap/circuit-breaker-configmap (default). Allowing events periodically.',
    });
  });

  it('names cluster-scoped sources without a namespace', () => {
    expect(describeSource('Bucket', 'b', undefined)).to.equal('Bucket/b');
    expect(describeSource('Bucket', 'b', '')).to.equal('Bucket/b');
    expect(describeSource('ConfigMap', 'cm', 'ns')).to.equal('ConfigMap/cm (ns)');
  });
});
