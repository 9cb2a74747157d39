import { Option, type Command } from 'commander';
import type { Logger } from '../manager/index.js';
import { displayName, IGNORED_FLAGS, MAPPED_FLAGS } from './crossplaneFlags.js';
import type { IgnoredFlag } from './flags.js';
import { optionParser, type ValueKind } from './values.js';

/** A hidden option taking Crossplane's value form: `[bool]` (so `--flag` and `--flag=false` work) or one value. */
function hiddenOption(flags: string, kind: ValueKind): Option {
  const option = new Option(`${flags} ${kind === 'boolean' ? '[bool]' : '<value>'}`).hideHelp();
  option.argParser(optionParser(kind));
  if (kind === 'boolean') option.preset('true');
  return option;
}

/**
 * Adds the flags of `crossplane core start` that are not compositor flags already, hidden from --help. A mapped flag
 * sets its compositor flag as soon as it is parsed, as if that flag had been given in its place: so the later of the
 * two on the command line wins, and either beats the COMPOSITOR_<FLAG> environment variable.
 */
export function addCrossplaneFlags(command: Command): Command {
  for (const flag of MAPPED_FLAGS) {
    const option = hiddenOption(flag.flags, flag.kind);
    command.addOption(option);
    const target = new Option(`--${flag.sets}`).attributeName();
    // Registered after commander's own listener for this option, so the parsed value is already stored.
    command.on(`option:${option.name()}`, () => {
      const value = flag.value(command.getOptionValue(option.attributeName()));
      if (value !== undefined) command.setOptionValueWithSource(target, value, 'cli');
    });
  }
  for (const flag of IGNORED_FLAGS) command.addOption(hiddenOption(flag.flags, flag.kind));
  command.addHelpText(
    'after',
    '\nThe flags of `crossplane core start` are accepted too (docs/flags.md, "Flags from Crossplane"); those that mean nothing to compositor log a warning.',
  );
  return command;
}

/** The ignored Crossplane flags that the parsed options hold a value for: those given on the command line. */
export function ignoredFlagsGiven(options: Readonly<Record<string, unknown>>): IgnoredFlag[] {
  return IGNORED_FLAGS.filter((flag) => options[new Option(`${flag.flags} <value>`).attributeName()] !== undefined).map(
    (flag) => ({ flag: displayName(flag.flags), reason: flag.reason }),
  );
}

/** One warning per ignored flag, naming it and saying why it changes nothing; startup goes on. */
export function warnIgnoredFlags(flags: readonly IgnoredFlag[], log: Logger): void {
  for (const { flag, reason } of flags) {
    log.warn({ flag }, `${flag} (a Crossplane flag) has no effect: ${reason}`);
  }
}
