import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/apis/index.js';
import { flagTableMarkdown, START_FLAGS } from '../../../src/cli/index.js';

// Prettier pads table cells; compare rows with runs of spaces and dashes collapsed.
const normalise = (text: string): string => text.replace(/ +/g, ' ').replace(/-{3,}/g, '---');

describe('cli/flagTable', () => {
  it('has one row per flag', () => {
    expect(flagTableMarkdown().split('\n')).to.have.length(START_FLAGS.length + 2);
  });

  it('matches the README (regenerate with: npx tsx scripts/flag-table.ts)', () => {
    const readme = normalise(readFileSync(join(packageRoot(), 'README.md'), 'utf8'));
    for (const row of flagTableMarkdown().split('\n')) expect(readme).to.include(normalise(row));
  });
});
