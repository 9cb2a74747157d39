// The input of function-patch-and-transform (pt.fn.crossplane.io/v1beta1 Resources), as it arrives: an opaque
// object from a Composition, so no kubebuilder defaults were applied. The getters apply the defaults that
// upstream code applies (patch type, policies).
import type { JsonObject, JsonValue } from '../../types.js';
import type { Transform } from '../transforms.js';

export const PATCH_TYPES = [
  'FromCompositeFieldPath',
  'FromEnvironmentFieldPath',
  'PatchSet',
  'ToCompositeFieldPath',
  'ToEnvironmentFieldPath',
  'CombineFromEnvironment',
  'CombineFromComposite',
  'CombineToComposite',
  'CombineToEnvironment',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

export interface Combine {
  variables?: { fromFieldPath?: string }[];
  strategy?: string;
  string?: { fmt?: string };
}

export interface PatchPolicy {
  fromFieldPath?: string;
  toFieldPath?: string;
}

export interface Patch {
  type?: string;
  fromFieldPath?: string;
  toFieldPath?: string;
  combine?: Combine;
  transforms?: Transform[];
  policy?: PatchPolicy;
  patchSetName?: string;
}

export interface ConnectionDetail {
  name?: string;
  type?: string;
  fromConnectionSecretKey?: string;
  fromFieldPath?: string;
  value?: string;
}

export interface ReadinessCheck {
  type?: string;
  fieldPath?: string;
  matchString?: string;
  matchInteger?: number;
  matchCondition?: { type?: string; status?: string };
}

export interface ComposedTemplate {
  name?: string;
  base?: JsonObject;
  patches?: Patch[];
  connectionDetails?: ConnectionDetail[];
  readinessChecks?: ReadinessCheck[];
}

export interface PatchSet {
  name?: string;
  patches?: Patch[];
}

export interface ConnectionSecretRefInput {
  name?: string;
  namespace?: string;
  patches?: Patch[];
}

export interface ResourcesInput {
  patchSets?: PatchSet[];
  environment?: { patches?: Patch[] } | null;
  resources?: ComposedTemplate[];
  writeConnectionSecretToRef?: ConnectionSecretRefInput | null;
}

/** A patch's type; an empty type means FromCompositeFieldPath, as upstream's GetType. */
export function patchType(p: Patch): string {
  return p.type === undefined || p.type === '' ? 'FromCompositeFieldPath' : p.type;
}

/** Optional unless the patch says Required. */
export function fromFieldPathRequired(p: Patch): boolean {
  return p.policy?.fromFieldPath === 'Required';
}

/** Where a patch writes; toFieldPath defaults to fromFieldPath. */
export function toFieldPath(p: Patch): string {
  return p.toFieldPath === undefined || p.toFieldPath === '' ? (p.fromFieldPath ?? '') : p.toFieldPath;
}

export type { JsonValue };
