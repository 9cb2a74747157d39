import { IGNORED_FLAGS, MAPPED_FLAGS, SAME_NAME_FLAGS } from './crossplaneFlags.js';
import { envName, START_FLAGS } from './flags.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const spelled = (flags: string): string =>
  flags
    .split(/,\s*/)
    .map((name) => `\`${name}\``)
    .join(', ');

/** docs/flags.md's flag table, generated from the flag definitions so the two never drift (a unit test checks). */
export function flagTableMarkdown(): string {
  const rows = START_FLAGS.map((flag) => {
    const fallback = flag.default === undefined ? '' : `\`${flag.default}\``;
    return `| \`--${flag.name}\` | \`${envName(flag)}\` | ${fallback} | ${cell(flag.description)} |`;
  });
  return ['| flag | environment | default | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** docs/flags.md's table of the `crossplane core start` flags and what each does in compositor. */
export function crossplaneFlagTableMarkdown(): string {
  const rows = [
    ...SAME_NAME_FLAGS.map((name) => `| \`--${name}\` | the same flag |`),
    ...MAPPED_FLAGS.map((flag) => `| ${spelled(flag.flags)} | \`${flag.means}\` |`),
    ...IGNORED_FLAGS.map((flag) => `| ${spelled(flag.flags)} | no effect (a warning): ${cell(flag.reason)} |`),
  ];
  return ['| Crossplane flag | in compositor |', '| --- | --- |', ...rows].join('\n');
}
