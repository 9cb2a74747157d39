import { expect } from 'chai';
import { tabulate } from '../../../src/cli/tabWriter.js';

describe('cli/tabWriter', () => {
  it('pads every cell but the last to the widest plus 3, at least 6, counting code points', () => {
    expect(
      tabulate([
        ['A', 'B', 'C'],
        ['└─ xyzw', '', 'last'],
      ]),
    ).to.equal('A         B     C\n└─ xyzw         last\n');
  });

  it('leaves an empty last cell after the padding of the cell before it', () => {
    expect(
      tabulate([
        ['NAME', 'READY', 'STATUS'],
        ['a', 'True', ''],
      ]),
    ).to.equal('NAME   READY   STATUS\na      True    \n');
  });
});
