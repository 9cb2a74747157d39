import { expect } from 'chai';
import {
  RevisionPendingError,
  selectComposition,
  selectRevision,
  SelectionError,
  type CompositionObject,
  type RevisionObject,
} from '../../../src/composite/index.js';

const XR_TYPE = { apiVersion: 'example.org/v1', kind: 'XApp' };

function composition(name: string, labels: Record<string, string> = {}, type = XR_TYPE): CompositionObject {
  return { metadata: { name, uid: `uid-${name}`, labels }, spec: { compositeTypeRef: type, pipeline: [] } };
}

function revision(comp: string, number: number, extra: Partial<RevisionObject['spec']> = {}): RevisionObject {
  return {
    metadata: {
      name: `${comp}-${number}`,
      labels: { 'crossplane.io/composition-name': comp, channel: number > 1 ? 'dev' : 'stable' },
      ownerReferences: [{ uid: `uid-${comp}`, controller: true }],
    },
    spec: {
      revision: number,
      compositeTypeRef: XR_TYPE,
      mode: 'Pipeline',
      pipeline: [{ step: 's', functionRef: { name: 'f' } }],
      ...extra,
    },
  };
}

describe('composition selection', () => {
  const compositions = [
    composition('a', { tier: 'gold' }),
    composition('b'),
    composition('other', {}, { apiVersion: 'x/v1', kind: 'Y' }),
  ];

  it('keeps the XR reference and reports no change', () => {
    const choice = selectComposition({
      machinery: { compositionRef: { name: 'b' } },
      xrd: {},
      xrType: XR_TYPE,
      compositions,
      random: () => 0,
    });
    expect(choice.compositionRef).to.deep.equal({ name: 'b' });
    expect(choice.events).to.deep.equal([]);
  });

  it('enforces the XRD composition over the XR reference', () => {
    const choice = selectComposition({
      machinery: { compositionRef: { name: 'b' } },
      xrd: { enforcedCompositionRef: { name: 'a' } },
      xrType: XR_TYPE,
      compositions,
      random: () => 0,
    });
    expect(choice.compositionRef.name).to.equal('a');
    expect(choice.events.map((e) => e.message)).to.deep.equal([
      'Enforced composition has been selected',
      'Successfully selected composition: a',
    ]);
  });

  it('uses the XRD default only when the XR has neither a reference nor a selector', () => {
    const defaulted = selectComposition({
      machinery: {},
      xrd: { defaultCompositionRef: { name: 'b' } },
      xrType: XR_TYPE,
      compositions,
      random: () => 0,
    });
    expect(defaulted.compositionRef.name).to.equal('b');
    const selected = selectComposition({
      machinery: { compositionSelector: { matchLabels: { tier: 'gold' } } },
      xrd: { defaultCompositionRef: { name: 'b' } },
      xrType: XR_TYPE,
      compositions,
      random: () => 0.99,
    });
    expect(selected.compositionRef.name).to.equal('a');
  });

  it('picks among compatible Compositions only, and says what to fix when there are none', () => {
    const picked = selectComposition({ machinery: {}, xrd: {}, xrType: XR_TYPE, compositions, random: () => 0.99 });
    expect(['a', 'b']).to.include(picked.compositionRef.name);
    expect(() =>
      selectComposition({
        machinery: { compositionSelector: { matchLabels: { tier: 'none' } } },
        xrd: {},
        xrType: XR_TYPE,
        compositions,
        random: () => 0,
      }),
    ).to.throw(SelectionError, /no compatible Compositions found for XApp \(example.org\/v1\) matching/);
  });
});

describe('revision selection', () => {
  const comp = composition('a');
  const revisions = [
    revision('a', 1),
    revision('a', 2),
    { ...revision('a', 3), metadata: { ...revision('a', 3).metadata, ownerReferences: [] } },
  ];

  it('follows the highest revision the Composition controls under Automatic', () => {
    const chosen = selectRevision({
      machinery: {},
      compositionRef: { name: 'a' },
      revisionSelector: undefined,
      composition: comp,
      revisions,
      xrType: XR_TYPE,
    });
    expect(chosen.metadata.name).to.equal('a-2');
  });

  it('filters by the revision selector under Automatic', () => {
    const chosen = selectRevision({
      machinery: {},
      compositionRef: { name: 'a' },
      revisionSelector: { matchLabels: { channel: 'stable' } },
      composition: comp,
      revisions,
      xrType: XR_TYPE,
    });
    expect(chosen.metadata.name).to.equal('a-1');
  });

  it('stays on the pinned revision under Manual', () => {
    const chosen = selectRevision({
      machinery: { compositionUpdatePolicy: 'Manual', compositionRevisionRef: { name: 'a-1' } },
      compositionRef: { name: 'a' },
      revisionSelector: undefined,
      composition: comp,
      revisions,
      xrType: XR_TYPE,
    });
    expect(chosen.metadata.name).to.equal('a-1');
  });

  it('waits, without an error, for the first revision of a new Composition', () => {
    expect(() =>
      selectRevision({
        machinery: {},
        compositionRef: { name: 'b' },
        revisionSelector: undefined,
        composition: composition('b'),
        revisions,
        xrType: XR_TYPE,
      }),
    ).to.throw(RevisionPendingError);
  });

  it('refuses a missing Composition, mode Resources and an invalid pipeline with what to fix', () => {
    const base = { machinery: {}, compositionRef: { name: 'a' }, revisionSelector: undefined, xrType: XR_TYPE };
    expect(() => selectRevision({ ...base, composition: undefined, revisions })).to.throw(
      /not found; create it or fix compositionRef/,
    );
    expect(() =>
      selectRevision({ ...base, composition: comp, revisions: [revision('a', 1, { mode: 'Resources' })] }),
    ).to.throw(/uses mode Resources.*convert the Composition to mode Pipeline/);
    const invalid = {
      ...revision('a', 1),
      status: {
        conditions: [
          {
            type: 'ValidPipeline',
            status: 'False' as const,
            reason: 'MissingCapabilities',
            message: 'f lacks composition',
          },
        ],
      },
    };
    expect(() => selectRevision({ ...base, composition: comp, revisions: [invalid] })).to.throw(
      /does not have a valid function pipeline: f lacks composition/,
    );
  });
});
