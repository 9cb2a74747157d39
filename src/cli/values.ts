import { InvalidArgumentError } from 'commander';
import { DURATION_FORM, parseDuration } from '../apis/index.js';
import { isPackageLocation, LOCATION_FORM } from '../functions/index.js';

// Value parsers for flags. Each throws a FlagValueError whose message is the accepted form, so the CLI can print
// one line naming the flag, the rejected value and what would have been accepted.

export class FlagValueError extends Error {
  constructor(readonly acceptedForm: string) {
    super(`expected ${acceptedForm}`);
    this.name = 'FlagValueError';
  }
}

export type ValueKind =
  | 'duration'
  | 'positiveDuration'
  | 'positiveInteger'
  | 'nonNegativeInteger'
  | 'positiveNumber'
  | 'boolean'
  | 'address'
  | 'logLevel'
  | 'packageRuntime'
  | 'path'
  | 'name'
  | 'port'
  | 'locationList'
  | 'text';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** How Function packages run: compositor runs them as Deployments, or something else does (Crossplane). */
export const PACKAGE_RUNTIMES = ['Deployment', 'External'] as const;
export type PackageRuntime = (typeof PACKAGE_RUNTIMES)[number];

export const ACCEPTED_FORMS: Record<ValueKind, string> = {
  duration: DURATION_FORM,
  positiveDuration: `a positive ${DURATION_FORM.replace(/^a /, '')}`,
  positiveInteger: 'a whole number greater than 0',
  nonNegativeInteger: 'a whole number, 0 or more',
  positiveNumber: 'a number greater than 0',
  boolean: 'true or false',
  address: 'a listen address such as :8080, 127.0.0.1:8080 or 0 to disable',
  logLevel: `one of ${LOG_LEVELS.join(', ')}`,
  packageRuntime: `one of ${PACKAGE_RUNTIMES.join(', ')}`,
  path: 'a file path',
  name: 'a lowercase DNS label such as crossplane-system',
  port: 'a port number from 0 to 65535',
  locationList: `a comma-separated list (or nothing), each ${LOCATION_FORM}`,
  text: 'a string',
};

type Parsed = number | boolean | string | readonly string[];

const parsers: Record<ValueKind, (text: string) => Parsed> = {
  duration: (text) => {
    const ms = tryDuration(text, 'duration');
    if (ms < 0) throw new FlagValueError(ACCEPTED_FORMS.duration);
    return ms;
  },
  positiveDuration: (text) => {
    const ms = tryDuration(text, 'positiveDuration');
    if (ms <= 0) throw new FlagValueError(ACCEPTED_FORMS.positiveDuration);
    return ms;
  },
  positiveInteger: (text) => {
    if (!/^\+?\d+$/.test(text.trim()) || Number(text) <= 0) throw new FlagValueError(ACCEPTED_FORMS.positiveInteger);
    return Number(text);
  },
  nonNegativeInteger: (text) => {
    if (!/^\+?\d+$/.test(text.trim())) throw new FlagValueError(ACCEPTED_FORMS.nonNegativeInteger);
    return Number(text);
  },
  positiveNumber: (text) => {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || value <= 0) {
      throw new FlagValueError(ACCEPTED_FORMS.positiveNumber);
    }
    return value;
  },
  boolean: (text) => {
    // The spellings Go's strconv.ParseBool accepts, so values copied from Crossplane's chart keep working.
    const lowered = text.toLowerCase();
    if (['1', 't', 'true'].includes(lowered)) return true;
    if (['0', 'f', 'false'].includes(lowered)) return false;
    throw new FlagValueError(ACCEPTED_FORMS.boolean);
  },
  address: (text) => {
    if (text === '0') return text;
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s]*):(\d{1,5})$/.exec(text);
    if (!match || Number(match[2]) > 65535) throw new FlagValueError(ACCEPTED_FORMS.address);
    return text;
  },
  logLevel: (text) => {
    if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new FlagValueError(ACCEPTED_FORMS.logLevel);
    return text;
  },
  packageRuntime: (text) => {
    if (!(PACKAGE_RUNTIMES as readonly string[]).includes(text))
      throw new FlagValueError(ACCEPTED_FORMS.packageRuntime);
    return text;
  },
  path: (text) => {
    if (text.trim() === '') throw new FlagValueError(ACCEPTED_FORMS.path);
    return text;
  },
  name: (text) => {
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(text)) throw new FlagValueError(ACCEPTED_FORMS.name);
    return text;
  },
  port: (text) => {
    if (!/^\+?\d{1,5}$/.test(text.trim()) || Number(text) > 65535) throw new FlagValueError(ACCEPTED_FORMS.port);
    return Number(text);
  },
  locationList: (text) => {
    if (text.trim() === '') return [];
    const locations = text.split(',').map((location) => location.trim());
    if (!locations.every(isPackageLocation)) throw new FlagValueError(ACCEPTED_FORMS.locationList);
    return locations;
  },
  // Any string, even an empty one, as Go's flag parsers accept for string flags.
  text: (text) => text,
};

function tryDuration(text: string, kind: ValueKind): number {
  try {
    return parseDuration(text);
  } catch {
    throw new FlagValueError(ACCEPTED_FORMS[kind]);
  }
}

/** Parses a flag's text as the given kind, throwing FlagValueError with the accepted form. */
export function parseValue(kind: ValueKind, text: string): Parsed {
  return parsers[kind](text);
}

/** parseValue for commander: a bad value is reported as commander reports bad arguments, naming the flag. */
export function optionParser(kind: ValueKind): (text: string) => Parsed {
  return (text) => {
    try {
      return parseValue(kind, text);
    } catch (err) {
      if (err instanceof FlagValueError) throw new InvalidArgumentError(err.message);
      throw err;
    }
  };
}
