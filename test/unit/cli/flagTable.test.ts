import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/apis/index.js';
import { crossplaneFlagTableMarkdown, flagTableMarkdown, START_FLAGS } from '../../../src/cli/index.js';

// Prettier pads table cells; compare rows with runs of spaces and dashes collapsed.
const normalise = (text: string): string => text.replace(/ +/g, ' ').replace(/-{3,}/g, '---');

describe('cli/flagTable', () => {
  it('has one row per flag', () => {
    expect(flagTableMarkdown().split('\n')).to.have.length(START_FLAGS.length + 2);
  });

  it('matches docs/flags.md (regenerate with: npx tsx scripts/flag-table.ts)', () => {
    const doc = normalise(readFileSync(join(packageRoot(), 'docs', 'flags.md'), 'utf8'));
    for (const row of flagTableMarkdown().split('\n')) expect(doc).to.include(normalise(row));
  });

  it("lists Crossplane's flags in docs/flags.md (regenerate with: npx tsx scripts/flag-table.ts)", () => {
    const doc = normalise(readFileSync(join(packageRoot(), 'docs', 'flags.md'), 'utf8'));
    for (const row of crossplaneFlagTableMarkdown().split('\n')) expect(doc).to.include(normalise(row));
  });
});
