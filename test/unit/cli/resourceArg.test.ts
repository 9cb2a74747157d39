import { expect } from 'chai';
import { matchResource, parseResourceArg, type ServedResource } from '../../../src/cli/resourceArg.js';

const resource = (group: string, version: string, kind: string, shortNames: string[] = []): ServedResource => ({
  group,
  version,
  kind,
  plural: `${kind.toLowerCase()}s`,
  singular: kind.toLowerCase(),
  shortNames,
  namespaced: true,
});

// Preferred versions first, core first, as resolveResourceArg lists them.
const SERVED = [
  resource('', 'v1', 'ConfigMap', ['cm']),
  resource('example.org', 'v2', 'XApp', ['xa']),
  resource('other.org', 'v1', 'XApp'),
];

describe('cli/resourceArg', () => {
  it('reads TYPE[.VERSION][.GROUP] as kubectl does, most specific reading first', () => {
    expect(parseResourceArg('XApp')).to.deep.equal([{ type: 'xapp' }]);
    expect(parseResourceArg('xapps.example.org')).to.deep.equal([
      { type: 'xapps', version: 'example', group: 'org' },
      { type: 'xapps', group: 'example.org' },
    ]);
    expect(parseResourceArg('xapps.v1.example.org')).to.deep.equal([
      { type: 'xapps', version: 'v1', group: 'example.org' },
      { type: 'xapps', group: 'v1.example.org' },
    ]);
    expect(parseResourceArg('cm.v1')).to.deep.equal([{ type: 'cm', group: 'v1' }]);
  });

  const cases: Record<string, { reason: string; argument: string; want: [string, string] | undefined }> = {
    plural: { reason: 'plural', argument: 'configmaps', want: ['', 'ConfigMap'] },
    singular: { reason: 'singular', argument: 'configmap', want: ['', 'ConfigMap'] },
    shortName: { reason: 'short name', argument: 'cm', want: ['', 'ConfigMap'] },
    kind: { reason: 'kind, any case', argument: 'XApp', want: ['example.org', 'XApp'] },
    firstGroup: {
      reason: 'without a group the first group serving it',
      argument: 'xapps',
      want: ['example.org', 'XApp'],
    },
    group: { reason: 'TYPE.GROUP picks the group', argument: 'xapps.other.org', want: ['other.org', 'XApp'] },
    wrongGroup: { reason: 'a group that does not serve it', argument: 'cm.example.org', want: undefined },
    unknown: { reason: 'an unknown type', argument: 'unicorns', want: undefined },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const found = parseResourceArg(c.argument)
        .map((query) => matchResource(SERVED, query))
        .find((r) => r !== undefined);
      expect(found && [found.group, found.kind], c.reason).to.deep.equal(c.want);
    });
  }

  it('matches a version only where it is served', () => {
    expect(matchResource(SERVED, { type: 'xapp', group: 'example.org', version: 'v2' })?.kind).to.equal('XApp');
    expect(matchResource(SERVED, { type: 'xapp', group: 'example.org', version: 'v1' })).to.equal(undefined);
  });
});
