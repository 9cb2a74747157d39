// The Deployment, Service and ServiceAccount of a function revision, merged with its DeploymentRuntimeConfig in the
// order Crossplane's package manager merges them: the runtime config is the base; compositor's defaults fill only
// what it leaves unset; selectors, namespace, owner, pull secrets, the TLS mount and the gRPC port always win.
import { controllerReference, type OwnerReference } from '../apis/index.js';
import {
  FUNCTION_REVISION,
  GRPC_PORT,
  GRPC_PORT_NAME,
  LABEL_FUNCTION,
  LABEL_PARENT_PACKAGE,
  LABEL_REVISION,
  METRICS_PORT,
  METRICS_PORT_NAME,
  RUNTIME_CONTAINER,
  TLS_SERVER_DIR,
  TLS_SERVER_DIR_ENV,
  TLS_SERVER_VOLUME,
} from './names.js';
import type { DeploymentRuntimeConfig, FunctionRevision, TemplateMeta } from './types.js';

type Obj = Record<string, unknown>;
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string } & Obj;
  [key: string]: unknown;
}

export interface RuntimeInput {
  revision: FunctionRevision;
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

/** Non-root with a read-only root filesystem: what compositor runs a function as unless the runtime config says. */
const RUN_AS = 2000;
const POD_SECURITY = { runAsNonRoot: true, runAsUser: RUN_AS, runAsGroup: RUN_AS };
const CONTAINER_SECURITY = {
  runAsUser: RUN_AS,
  runAsGroup: RUN_AS,
  allowPrivilegeEscalation: false,
  privileged: false,
  runAsNonRoot: true,
  readOnlyRootFilesystem: true,
};

function functionName(revision: FunctionRevision): string {
  return revision.metadata.labels?.[LABEL_PARENT_PACKAGE] ?? revision.metadata.name;
}

/** The controller reference every runtime object carries to its revision. */
export function revisionOwner(revision: FunctionRevision): OwnerReference {
  return controllerReference({ ...FUNCTION_REVISION, metadata: revision.metadata });
}

export function podSelector(revision: FunctionRevision): Record<string, string> {
  return { [LABEL_REVISION]: revision.metadata.name, [LABEL_FUNCTION]: functionName(revision) };
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
    ownerReferences: [revisionOwner(input.revision)],
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

function tlsServerMount(pod: Obj, container: Obj, secret: string): void {
  const items = ['tls.crt', 'tls.key', 'ca.crt'].map((key) => ({ key, path: key }));
  pod.volumes = [
    ...((pod.volumes as Obj[] | undefined) ?? []),
    { name: TLS_SERVER_VOLUME, secret: { secretName: secret, items } },
  ];
  container.volumeMounts = [
    ...((container.volumeMounts as Obj[] | undefined) ?? []),
    { name: TLS_SERVER_VOLUME, readOnly: true, mountPath: TLS_SERVER_DIR },
  ];
  container.env = [
    ...((container.env as Obj[] | undefined) ?? []),
    { name: TLS_SERVER_DIR_ENV, value: TLS_SERVER_DIR },
  ];
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

/** The headless Service named after the Function, TLS gRPC on 9443. */
export function buildService(input: RuntimeInput): Manifest {
  const { revision } = input;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: runtimeMeta(input, input.runtimeConfig?.spec?.serviceTemplate?.metadata, functionName(revision)),
    spec: {
      selector: podSelector(revision),
      clusterIP: 'None',
      ports: [
        { name: GRPC_PORT_NAME, protocol: 'TCP', port: GRPC_PORT, targetPort: GRPC_PORT_NAME, appProtocol: 'tls' },
      ],
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
  applyDefaults(spec, pod, runtime, serviceAccount);
  const podMeta = (podTemplate.metadata ?? {}) as Obj;
  // Before applyRequired, which sets spec.image where nothing else did, and replaces the pull Secrets.
  applyImageConfigImage(runtime, input.image);
  applyRequired(revision, { spec, podMeta, pod, runtime });
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

function list(value: unknown): Obj[] {
  return (value as Obj[] | undefined) ?? [];
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
function applyDefaults(spec: Obj, pod: Obj, runtime: Obj, serviceAccount: string): void {
  spec.replicas ??= 1;
  pod.securityContext ??= { ...POD_SECURITY };
  runtime.imagePullPolicy ??= 'IfNotPresent';
  runtime.securityContext ??= { ...CONTAINER_SECURITY };
  pod.serviceAccountName ??= serviceAccount;
}

/** What is always compositor's: selectors, pull secrets and policy, ports, the TLS mount, the image if unset. */
function applyRequired(revision: FunctionRevision, parts: Record<'spec' | 'podMeta' | 'pod' | 'runtime', Obj>): void {
  const { spec, podMeta, pod, runtime } = parts;
  const selector = podSelector(revision);
  spec.selector = { ...(spec.selector ?? {}), matchLabels: selector };
  podMeta.labels = { ...(podMeta.labels ?? {}), ...selector };
  pod.imagePullSecrets = revision.spec.packagePullSecrets ?? [];
  runtime.ports = [...list(runtime.ports), { name: METRICS_PORT_NAME, containerPort: METRICS_PORT }];
  if (revision.spec.packagePullPolicy !== undefined) runtime.imagePullPolicy = revision.spec.packagePullPolicy;
  if (revision.spec.tlsServerSecretName !== undefined) tlsServerMount(pod, runtime, revision.spec.tlsServerSecretName);
  runtime.ports = [...list(runtime.ports), { name: GRPC_PORT_NAME, containerPort: GRPC_PORT }];
  if (runtime.image === undefined || runtime.image === '') runtime.image = revision.spec.image;
}
