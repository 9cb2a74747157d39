import { envName, START_FLAGS } from './flags.js';

/** The flag table of docs/flags.md, generated from the flag definitions so the two never drift (a unit test checks). */
export function flagTableMarkdown(): string {
  const rows = START_FLAGS.map((flag) => {
    const fallback = flag.default === undefined ? '' : `\`${flag.default}\``;
    return `| \`--${flag.name}\` | \`${envName(flag)}\` | ${fallback} | ${flag.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| flag | environment | default | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
