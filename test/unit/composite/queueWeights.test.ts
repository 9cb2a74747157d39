import { expect } from 'chai';
import pino from 'pino';
import { NamespaceWeights, parseQueueWeight, QUEUE_WEIGHT_LABEL } from '../../../src/composite/queueWeights.js';
import type { KubeObject } from '../../../src/kube/index.js';

function namespace(name: string, weight?: string): KubeObject {
  const labels = weight === undefined ? {} : { [QUEUE_WEIGHT_LABEL]: weight };
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

/** A logger that keeps its warnings, so a test can count them. */
function recordingLogger(): { logger: pino.Logger; warnings: Record<string, unknown>[] } {
  const warnings: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => warnings.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, warnings };
}

describe('composite/queueWeights', () => {
  const cases: Record<
    string,
    { reason: string; value: string | undefined; want: { weight: number; invalid: boolean } }
  > = {
    absent: { reason: 'no label: the default weight', value: undefined, want: { weight: 1, invalid: false } },
    one: { reason: 'the smallest weight', value: '1', want: { weight: 1, invalid: false } },
    five: { reason: 'a plain integer', value: '5', want: { weight: 5, invalid: false } },
    zero: { reason: 'below 1', value: '0', want: { weight: 1, invalid: true } },
    negative: { reason: 'below 1', value: '-2', want: { weight: 1, invalid: true } },
    fraction: { reason: 'not an integer', value: '2.5', want: { weight: 1, invalid: true } },
    word: { reason: 'not a number', value: 'high', want: { weight: 1, invalid: true } },
    empty: { reason: 'an empty label value', value: '', want: { weight: 1, invalid: true } },
    leadingZero: { reason: 'not the canonical spelling', value: '07', want: { weight: 1, invalid: true } },
    huge: { reason: 'beyond a safe integer', value: '99999999999999999999', want: { weight: 1, invalid: true } },
  };
  for (const [name, { reason, value, want }] of Object.entries(cases)) {
    it(`parseQueueWeight: ${name}`, () => {
      expect(parseQueueWeight(value), reason).to.deep.equal(want);
    });
  }

  it('reads the weight from the cached Namespace on every call, 1 for unknown namespaces and cluster scope', () => {
    const cache = new Map([['prod', namespace('prod', '3')]]);
    const weights = new NamespaceWeights({ namespace: (name) => cache.get(name), logger: recordingLogger().logger });
    expect(weights.weightOf('prod')).to.equal(3);
    expect(weights.weightOf('unknown')).to.equal(1);
    expect(weights.weightOf('')).to.equal(1);
    cache.set('prod', namespace('prod', '2'));
    expect(weights.weightOf('prod')).to.equal(2);
  });

  it('counts an invalid value as 1 and logs it once per namespace and value', () => {
    const cache = new Map([['dev', namespace('dev', 'lots')]]);
    const { logger, warnings } = recordingLogger();
    const weights = new NamespaceWeights({ namespace: (name) => cache.get(name), logger });
    for (let i = 0; i < 5; i++) expect(weights.weightOf('dev')).to.equal(1);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ namespace: 'dev', value: 'lots', label: QUEUE_WEIGHT_LABEL });
    cache.set('dev', namespace('dev', '0'));
    weights.weightOf('dev');
    weights.weightOf('dev');
    expect(warnings).to.have.length(2);
    // Fixed, then broken the same way again: worth a new line.
    cache.set('dev', namespace('dev', '2'));
    expect(weights.weightOf('dev')).to.equal(2);
    cache.set('dev', namespace('dev', '0'));
    weights.weightOf('dev');
    expect(warnings).to.have.length(3);
  });
});
