// Prints the flag table of docs/flags.md: npx tsx scripts/flag-table.ts
import { flagTableMarkdown } from '../src/cli/index.js';

process.stdout.write(`${flagTableMarkdown()}\n`);
