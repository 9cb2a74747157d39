// Prints the README's flag table: npx tsx scripts/flag-table.ts
import { flagTableMarkdown } from '../src/cli/index.js';

process.stdout.write(`${flagTableMarkdown()}\n`);
