// The P&T module vectors (PatchApply, ComposedTemplates, Readiness, ConnectionSecretRef,
// SupportsConnectionDetails, Validate), the auto-ready HealthCheck vectors and the engine's ChildName vectors,
// each through the module the built-ins and the engine use.
import { expect } from 'chai';
import { healthCheckFor, readyConditionTrue } from '../../src/functions/builtin/autoready/healthChecks.js';
import { connectionSecretRef, supportsConnectionDetails } from '../../src/functions/builtin/pt/connection.js';
import type { ComposedTemplate, PatchSet, ReadinessCheck } from '../../src/functions/builtin/pt/input.js';
import { applyComposedPatch } from '../../src/functions/builtin/pt/patches.js';
import { composedTemplates } from '../../src/functions/builtin/pt/patchSets.js';
import { isReady } from '../../src/functions/builtin/pt/ready.js';
import {
  validateCombine,
  validateConnectionDetail,
  validatePatch,
  validateReadinessCheck,
  validateTransform,
} from '../../src/functions/builtin/pt/validate.js';
import type { FieldError } from '../../src/functions/builtin/fieldError.js';
import type { JsonObject } from '../../src/functions/index.js';
import { childName } from '../../src/composite/index.js';
import { checkError, given, outcome, plain, want } from './check.js';
import type { Vector } from './corpus.js';

export function patchApply(v: Vector): void {
  const g = given(v) as { patch: never; from: JsonObject; to?: JsonObject };
  const to = structuredClone(g.to ?? {});
  // `from` is the patch's source and `to` its target, whichever of XR, composed or environment they stand for.
  const objects = { observedXr: g.from, observed: g.from, environment: g.from, desiredXr: to, desired: to };
  const out = outcome(() => {
    applyComposedPatch(g.patch, objects);
  });
  if (checkError(v, out)) return;
  expect(to, v.id).to.deep.equal(want(v).to);
}

export function composedTemplatesVector(v: Vector): void {
  const g = given(v) as { patchSets?: PatchSet[]; resources: ComposedTemplate[] };
  const out = outcome(() => composedTemplates(g.patchSets ?? [], g.resources));
  if (checkError(v, out)) return;
  expect(plain(out.value), v.id).to.deep.equal(want(v).resources);
}

export function readiness(v: Vector): void {
  const g = given(v) as { observed: JsonObject; readinessChecks?: ReadinessCheck[] };
  const out = outcome(() => isReady(g.observed, g.readinessChecks ?? []));
  if (checkError(v, out)) return;
  expect(out.value, v.id).to.equal(want(v).ready);
}

export function connectionSecretRefVector(v: Vector): void {
  const g = given(v) as { composite: JsonObject; writeConnectionSecretToRef?: never };
  const out = outcome(() => connectionSecretRef(g.composite, g.writeConnectionSecretToRef));
  if (checkError(v, out)) return;
  expect(out.value, v.id).to.deep.equal(want(v).ref);
}

export function supportsConnectionDetailsVector(v: Vector): void {
  const g = given(v) as { composite: JsonObject };
  expect(supportsConnectionDetails(g.composite), v.id).to.equal(want(v).supportsConnectionDetails);
}

const VALIDATORS: Readonly<Record<string, (value: never) => FieldError | undefined>> = {
  ReadinessCheck: validateReadinessCheck,
  ConnectionDetail: validateConnectionDetail,
  Patch: validatePatch,
  Combine: validateCombine,
  Transform: validateTransform,
};

export function validate(v: Vector): void {
  const g = given(v) as { target: string; value: never };
  const validator = VALIDATORS[g.target];
  expect(validator, `${v.id}: unknown Validate target ${g.target}`).to.not.equal(undefined);
  const err = validator?.(g.value);
  const w = want(v) as { valid: boolean; fieldError?: { type: string; field: string } };
  expect(err === undefined, `${v.id}: valid (got ${err?.message ?? 'no error'})`).to.equal(w.valid);
  if (w.fieldError !== undefined) expect({ type: err?.type, field: err?.field }, v.id).to.deep.equal(w.fieldError);
}

export function healthCheck(v: Vector): void {
  const g = given(v) as { observed: JsonObject };
  const check = healthCheckFor(g.observed) ?? readyConditionTrue;
  expect(check(g.observed), v.id).to.equal(want(v).ready);
}

export function childNameVector(v: Vector): void {
  const g = given(v) as { parentName: string; parentUID: string; childName: string };
  expect(childName(g.parentName, g.parentUID, g.childName), v.id).to.equal(want(v).name);
}
