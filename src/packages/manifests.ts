// The Deployment, Service and ServiceAccount of a package revision's runtime, merged with its DeploymentRuntimeConfig
// in the order Crossplane's package manager merges them: the runtime config is the base; compositor's defaults fill
// only what it leaves unset; selectors, namespace, owner, pull secrets, ports and TLS mounts always win. What is a
// Function's or a Provider's own (ports, environment, the Service's shape) comes from its RuntimeKind.
import { controllerReference, type OwnerReference } from '../apis/index.js';
import { LABEL_PARENT_PACKAGE, LABEL_REVISION, METRICS_PORT, METRICS_PORT_NAME, RUNTIME_CONTAINER } from './names.js';
import { addPorts, FUNCTION_RUNTIME, list, POD_SECURITY, type RuntimeKind } from './runtimeKind.js';
import type { DeploymentRuntimeConfig, RuntimeRevision, TemplateMeta } from './types.js';

type Obj = Record<string, unknown>;
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string } & Obj;
  [key: string]: unknown;
}

export interface RuntimeInput {
  revision: RuntimeRevision;
  /** The package kind whose runtime this is; a Function's unless given. */
  kind?: RuntimeKind;
  namespace: string;
  runtimeConfig?: DeploymentRuntimeConfig;
  /**
   * A digest of the server certificate in the mounted Secret. It is a pod template annotation, so a renewed
   * certificate rolls the pods: functions read their certificate once, when they start.
   */
  serverCertDigest?: string;
  /**
   * What the ImageConfigs make of the revision's image: the reference to run (its rewrite; spec.image otherwise) and
   * a pull Secret to add to the pod's, as upstream's runtime takes status.resolvedImage and the SetImagePullSecret one;
   * the DeploymentRuntimeConfig an ImageConfig names in place of the revision's.
   */
  image?: { ref: string; pullSecret?: string; runtimeConfig?: string };
}

/** The pod template annotation holding RuntimeInput.serverCertDigest. */
export const SERVER_CERT_ANNOTATION = 'compositor.crossplane.io/tls-server-certificate';

/** The package's name, as the revision's parent label says. */
export function packageName(revision: RuntimeRevision): string {
  return revision.metadata.labels?.[LABEL_PARENT_PACKAGE] ?? revision.metadata.name;
}

/** The controller reference every runtime object carries to its revision. */
export function revisionOwner(revision: RuntimeRevision, kind: RuntimeKind = FUNCTION_RUNTIME): OwnerReference {
  return controllerReference({ ...kind.revision, metadata: revision.metadata });
}

export function podSelector(revision: RuntimeRevision, kind: RuntimeKind = FUNCTION_RUNTIME): Record<string, string> {
  return { [LABEL_REVISION]: revision.metadata.name, [kind.packageLabel]: packageName(revision) };
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function metaFrom(template: TemplateMeta | undefined): Obj {
  const meta: Obj = {};
  if (template?.name !== undefined) meta.name = template.name;
  if (template?.labels !== undefined) meta.labels = { ...template.labels };
  if (template?.annotations !== undefined) meta.annotations = { ...template.annotations };
  return meta;
}

/**
 * A runtime object's metadata: its runtime config template's, named `name` unless the template names it, in the
 * runtime's namespace and owned by the revision.
 */
function runtimeMeta(input: RuntimeInput, template: TemplateMeta | undefined, name: string): Manifest['metadata'] {
  const meta = metaFrom(template);
  return {
    ...meta,
    name: (meta.name as string | undefined) ?? name,
    namespace: input.namespace,
    ownerReferences: [revisionOwner(input.revision, input.kind)],
  };
}

/** The pod spec's containers with the runtime container first (moved there, or added). */
function withRuntimeContainer(containers: Obj[]): Obj[] {
  const index = containers.findIndex((c) => c.name === RUNTIME_CONTAINER);
  if (index === 0) return containers;
  if (index < 0) return [{ name: RUNTIME_CONTAINER }, ...containers];
  const runtime = containers[index] as Obj;
  return [runtime, ...containers.filter((_, i) => i !== index)];
}

/** The ServiceAccount: the runtime config's metadata, named after the revision unless it names one. */
export function buildServiceAccount(input: RuntimeInput): Manifest {
  const { revision } = input;
  const pullSecrets = revision.spec.packagePullSecrets ?? [];
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: runtimeMeta(input, input.runtimeConfig?.spec?.serviceAccountTemplate?.metadata, revision.metadata.name),
    ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
  };
}

/**
 * The Service named after the package: a Function's headless, TLS gRPC on 9443; a Provider's with its webhook port,
 * 9443, as the kind says.
 */
export function buildService(input: RuntimeInput): Manifest {
  const { revision } = input;
  const kind = input.kind ?? FUNCTION_RUNTIME;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: runtimeMeta(input, input.runtimeConfig?.spec?.serviceTemplate?.metadata, packageName(revision)),
    spec: {
      selector: podSelector(revision, kind),
      ...(kind.service.headless ? { clusterIP: 'None' } : {}),
      ports: kind.service.ports.map((p) => ({ ...p })),
    },
  };
}

/**
 * The Deployment running the package image. `image` is the revision's package unless the runtime config names the
 * runtime container's image; `packagePullPolicy` overrides the config's pull policy, as upstream.
 */
export function buildDeployment(input: RuntimeInput, serviceAccount: string): Manifest {
  const { revision } = input;
  const template = input.runtimeConfig?.spec?.deploymentTemplate;
  const spec: Obj = clone(template?.spec ?? {});
  const podTemplate = (spec.template ?? {}) as Obj;
  const pod = (podTemplate.spec ?? {}) as Obj;
  const containers = withRuntimeContainer(list(pod.containers).map((c) => ({ ...c })));
  const runtime = containers[0] as Obj;
  pod.containers = containers;
  const kind = input.kind ?? FUNCTION_RUNTIME;
  applyDefaults(kind, { spec, pod, runtime }, serviceAccount);
  const podMeta = (podTemplate.metadata ?? {}) as Obj;
  // Before applyRequired, which sets spec.image where nothing else did, and replaces the pull Secrets.
  applyImageConfigImage(runtime, input.image);
  applyRequired(revision, kind, { spec, podMeta, pod, runtime });
  addPullSecret(pod, input.image);
  if (input.serverCertDigest !== undefined) {
    podMeta.annotations = { ...(podMeta.annotations ?? {}), [SERVER_CERT_ANNOTATION]: input.serverCertDigest };
  }
  spec.template = { ...podTemplate, metadata: podMeta, spec: pod };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: runtimeMeta(input, template?.metadata, revision.metadata.name),
    spec,
  };
}

/** An ImageConfig's rewrite of the image, where the runtime config names none. */
function applyImageConfigImage(runtime: Obj, image: RuntimeInput['image']): void {
  if (image !== undefined && (runtime.image === undefined || runtime.image === '')) runtime.image = image.ref;
}

/** An ImageConfig's pull Secret, after the package's own. */
function addPullSecret(pod: Obj, image: RuntimeInput['image']): void {
  const name = image?.pullSecret;
  const secrets = list(pod.imagePullSecrets);
  if (name !== undefined && !secrets.some((s) => s.name === name)) pod.imagePullSecrets = [...secrets, { name }];
}

/** compositor's defaults, used only where the runtime config is silent. */
function applyDefaults(
  kind: RuntimeKind,
  parts: Record<'spec' | 'pod' | 'runtime', Obj>,
  serviceAccount: string,
): void {
  const { spec, pod, runtime } = parts;
  spec.replicas ??= 1;
  pod.securityContext ??= { ...POD_SECURITY };
  runtime.imagePullPolicy ??= 'IfNotPresent';
  runtime.securityContext ??= { ...kind.containerSecurity };
  pod.serviceAccountName ??= serviceAccount;
}

/**
 * What is always compositor's: selectors, pull secrets and policy, the metrics port, the kind's own ports, mounts and
 * environment, the image if unset.
 */
function applyRequired(
  revision: RuntimeRevision,
  kind: RuntimeKind,
  parts: Record<'spec' | 'podMeta' | 'pod' | 'runtime', Obj>,
): void {
  const { spec, podMeta, pod, runtime } = parts;
  const selector = podSelector(revision, kind);
  spec.selector = { ...(spec.selector ?? {}), matchLabels: selector };
  podMeta.labels = { ...(podMeta.labels ?? {}), ...selector };
  pod.imagePullSecrets = revision.spec.packagePullSecrets ?? [];
  addPorts(runtime, [{ name: METRICS_PORT_NAME, containerPort: METRICS_PORT }]);
  if (revision.spec.packagePullPolicy !== undefined) runtime.imagePullPolicy = revision.spec.packagePullPolicy;
  kind.decorate(revision, { spec, podMeta, pod, runtime });
  if (runtime.image === undefined || runtime.image === '') runtime.image = revision.spec.image;
}
