// Input validation of function-patch-and-transform (validate.go). The input is an opaque object nested in a
// Composition, so nothing validated it before; the first problem found is returned as a field error whose text
// users see in the FATAL result `invalid Function input: <field error>`.
import { FieldError } from '../fieldError.js';
import { LimitError } from '../limits.js';
import { compileRegexp, type Transform } from '../transforms.js';
import {
  PATCH_TYPES,
  patchType,
  type Combine,
  type ConnectionDetail,
  type Patch,
  type ReadinessCheck,
  type ResourcesInput,
} from './input.js';

type Check = FieldError | undefined;

function required(field: string, detail: string): FieldError {
  return new FieldError('Required value', field, detail);
}

function invalid(field: string, value: unknown, detail: string): FieldError {
  return new FieldError('Invalid value', field, detail, value);
}

/** The first error of checks, each under its own prefix. */
function firstOf(checks: readonly (() => Check)[]): Check {
  for (const check of checks) {
    const err = check();
    if (err !== undefined) return err;
  }
  return undefined;
}

function eachOf<T>(items: readonly T[] | undefined, path: string, validate: (item: T) => Check): Check {
  for (const [i, item] of (items ?? []).entries()) {
    const err = validate(item);
    if (err !== undefined) return err.under(`${path}[${i}]`);
  }
  return undefined;
}

function validatePattern(p: NonNullable<NonNullable<Transform['match']>['patterns']>[number]): Check {
  const type = p.type ?? '';
  if (type === 'literal' || type === '') {
    return p.literal === undefined ? required('literal', 'literal pattern type requires a literal') : undefined;
  }
  if (type !== 'regexp') return invalid('type', type, 'unknown pattern type');
  if (p.regexp === undefined) return required('regexp', 'regexp pattern type requires a regexp');
  return validRegexp('regexp', p.regexp);
}

function validRegexp(field: string, source: string): Check {
  try {
    compileRegexp(source);
    return undefined;
  } catch (err) {
    // A pattern Go rejects reads as upstream's; one past a bound of compositor's, which Go accepts, says which.
    const bound = err instanceof Error && err.cause instanceof LimitError ? `: ${err.cause.message}` : '';
    return invalid(field, source, `invalid regexp${bound}`);
  }
}

const MATH_FIELDS: Readonly<Record<string, 'multiply' | 'clampMin' | 'clampMax'>> = {
  Multiply: 'multiply',
  ClampMin: 'clampMin',
  ClampMax: 'clampMax',
};

function validateMath(m: NonNullable<Transform['math']>): Check {
  const field = MATH_FIELDS[m.type ?? ''];
  if (field === undefined) return invalid('type', m.type ?? '', 'unknown math transform type');
  return m[field] === undefined ? required(field, `${field} is required by type ${m.type ?? ''}`) : undefined;
}

/** The option each string transform type needs. */
const STRING_OPTION: Readonly<Record<string, 'fmt' | 'convert' | 'trim' | 'regexp' | 'join' | 'replace'>> = {
  Format: 'fmt',
  Convert: 'convert',
  TrimPrefix: 'trim',
  TrimSuffix: 'trim',
  Regexp: 'regexp',
  Join: 'join',
  Replace: 'replace',
};

/** What some string transform options need beyond being set. */
const STRING_EXTRA: Readonly<Partial<Record<string, (s: NonNullable<Transform['string']>) => Check>>> = {
  regexp: (s) => validRegexp('regexp.match', s.regexp?.match ?? ''),
  replace: (s) =>
    (s.replace?.search ?? '') === '' ? required('replace.search', 'search is required by type Replace') : undefined,
};

function validateString(s: NonNullable<Transform['string']>): Check {
  const option = STRING_OPTION[s.type ?? ''];
  if (option === undefined) return invalid('type', s.type ?? '', 'unknown string transform type');
  if (s[option] === undefined) return required(option, `${option} is required by type ${s.type ?? ''}`);
  return STRING_EXTRA[option]?.(s);
}

const CONVERT_TYPES = new Set(['string', 'int', 'int64', 'bool', 'float64', 'object', 'array']);
const CONVERT_FORMATS = new Set(['', 'none', 'quantity', 'json']);

function validateConvert(c: NonNullable<Transform['convert']>): Check {
  if (!CONVERT_FORMATS.has(c.format ?? '')) return invalid('format', c.format, 'invalid format');
  if (!CONVERT_TYPES.has(c.toType ?? '')) return invalid('toType', c.toType ?? '', 'invalid type');
  return undefined;
}

const TRANSFORM_VALIDATORS: Readonly<Record<string, (t: Transform) => Check>> = {
  math: (t) => t.math && validateMath(t.math),
  map: (t) =>
    Object.keys(t.map ?? {}).length === 0 ? required('pairs', 'at least one pair must be specified') : undefined,
  match: (t) =>
    (t.match?.patterns ?? []).length === 0
      ? required('patterns', 'at least one pattern must be specified')
      : eachOf(t.match?.patterns, 'patterns', validatePattern),
  string: (t) => t.string && validateString(t.string),
  convert: (t) => t.convert && validateConvert(t.convert),
};

/** Validates one transform (validate.go ValidateTransform). */
export function validateTransform(t: Transform): Check {
  const type = t.type ?? '';
  const validate = TRANSFORM_VALIDATORS[type];
  if (validate === undefined) return invalid('type', type, 'unknown transform type');
  const config = (t as Record<string, unknown>)[type];
  if (config === undefined || config === null)
    return required(type, `given transform type ${type} requires configuration`);
  return validate(t)?.under(type);
}

/** Validates a combine (validate.go ValidateCombine). */
export function validateCombine(c: Combine): Check {
  const strategy = c.strategy ?? '';
  if (strategy === '') return required('strategy', 'a combine strategy must be provided');
  if (strategy !== 'string') return invalid('strategy', strategy, 'unknown strategy type');
  if (c.string === undefined) return required('string', `string must be set for combine strategy ${strategy}`);
  if ((c.variables ?? []).length === 0) return required('variables', 'at least one variable must be provided');
  return eachOf(c.variables, 'variables', (v) =>
    (v.fromFieldPath ?? '') === ''
      ? required('fromFieldPath', 'fromFieldPath must be set for each combine variable')
      : undefined,
  );
}

const FROM_FIELD_PATH_TYPES = new Set([
  'FromCompositeFieldPath',
  'ToCompositeFieldPath',
  'FromEnvironmentFieldPath',
  'ToEnvironmentFieldPath',
]);
const TO_FIELD_PATH_POLICIES = new Set([
  'Replace',
  'MergeObjects',
  'MergeObjectsAppendArrays',
  'ForceMergeObjects',
  'ForceMergeObjectsAppendArrays',
  'MergeObject',
  'AppendArray',
]);

function validatePatchShape(p: Patch, type: string): Check {
  if (FROM_FIELD_PATH_TYPES.has(type)) {
    return (p.fromFieldPath ?? '') === ''
      ? required('fromFieldPath', `fromFieldPath must be set for patch type ${type}`)
      : undefined;
  }
  if (type === 'PatchSet') {
    return (p.patchSetName ?? '') === ''
      ? required('patchSetName', `patchSetName must be set for patch type ${type}`)
      : undefined;
  }
  if (!(PATCH_TYPES as readonly string[]).includes(type)) return invalid('type', type, 'unknown patch type');
  if (p.combine === undefined) return required('combine', `combine must be set for patch type ${type}`);
  if ((p.toFieldPath ?? '') === '') return required('toFieldPath', `toFieldPath must be set for patch type ${type}`);
  return validateCombine(p.combine)?.under('combine');
}

function validatePolicy(p: Patch): Check {
  const to = p.policy?.toFieldPath;
  if (to !== undefined && !TO_FIELD_PATH_POLICIES.has(to))
    return invalid('policy.toFieldPath', to, 'unsupported value');
  const from = p.policy?.fromFieldPath;
  if (from !== undefined && from !== 'Optional' && from !== 'Required') {
    return invalid('policy.fromFieldPath', from, 'unsupported value');
  }
  return undefined;
}

/** Validates one patch (validate.go ValidatePatch). */
export function validatePatch(p: Patch): Check {
  return firstOf([
    () => validatePatchShape(p, patchType(p)),
    () => eachOf(p.transforms, 'transforms', validateTransform),
    () => validatePolicy(p),
  ]);
}

const CONNECTION_OPTION: Readonly<Record<string, 'value' | 'fromConnectionSecretKey' | 'fromFieldPath'>> = {
  FromValue: 'value',
  FromConnectionSecretKey: 'fromConnectionSecretKey',
  FromFieldPath: 'fromFieldPath',
};

/** Validates one connection detail (validate.go ValidateConnectionDetail). */
export function validateConnectionDetail(d: ConnectionDetail): Check {
  const option = CONNECTION_OPTION[d.type ?? ''];
  if (option === undefined) return invalid('type', d.type ?? '', 'unknown connection detail type');
  if ((d.name ?? '') === '') return required('name', 'name is required');
  return d[option] === undefined ? required(option, `${option} is required for type ${d.type ?? ''}`) : undefined;
}

const READINESS_TYPES = new Set([
  'None',
  'NonEmpty',
  'MatchString',
  'MatchInteger',
  'MatchTrue',
  'MatchFalse',
  'MatchCondition',
]);

/** Validates one readiness check (validate.go ValidateReadinessCheck). */
export function validateReadinessCheck(r: ReadinessCheck): Check {
  const type = r.type ?? '';
  if (!READINESS_TYPES.has(type)) return invalid('type', type, 'unknown readiness check type');
  if (type === 'None') return undefined;
  if (type === 'MatchCondition') {
    return r.matchCondition === undefined ? required('matchCondition', 'matchCondition is required') : undefined;
  }
  return (r.fieldPath ?? '') === '' ? required('fieldPath', `fieldPath is required for type ${type}`) : undefined;
}

const ENVIRONMENT_PATCH_TYPES = new Set([
  'FromCompositeFieldPath',
  'ToCompositeFieldPath',
  'CombineFromComposite',
  'CombineToComposite',
  'FromEnvironmentFieldPath',
  'ToEnvironmentFieldPath',
]);

function validateEnvironmentPatch(p: Patch): Check {
  const type = patchType(p);
  if (!ENVIRONMENT_PATCH_TYPES.has(type)) return invalid('type', type, 'invalid environment patch type');
  return validatePatch(p);
}

/** Validates the whole input (validate.go ValidateResources). */
export function validateResources(input: ResourcesInput): Check {
  const envPatches = input.environment?.patches ?? [];
  if ((input.resources ?? []).length === 0 && envPatches.length === 0) {
    return required('resources', 'resources or environment patches are required');
  }
  return firstOf([
    () => eachOf(envPatches, 'environment.patches', validateEnvironmentPatch),
    () =>
      eachOf(input.resources, 'resources', (t) =>
        firstOf([
          () => ((t.name ?? '') === '' ? required('name', 'name is required') : undefined),
          () => eachOf(t.patches, 'patches', validatePatch),
          () => eachOf(t.connectionDetails, 'connectionDetails', validateConnectionDetail),
          () => eachOf(t.readinessChecks, 'readinessChecks', validateReadinessCheck),
        ]),
      ),
  ]);
}
