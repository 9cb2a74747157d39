// Prints the two generated tables of docs/flags.md, compositor's flags and then Crossplane's:
// npx tsx scripts/flag-table.ts
import { crossplaneFlagTableMarkdown, flagTableMarkdown } from '../src/cli/flagTable.js';

process.stdout.write(`${flagTableMarkdown()}\n\n${crossplaneFlagTableMarkdown()}\n`);
