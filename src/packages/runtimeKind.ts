// What differs between the runtimes of the package kinds compositor runs (a Function, a Provider), as Crossplane's
// package runtime builds them (internal/controller/pkg/runtime: runtime.go builds what every kind shares,
// runtime_function.go and runtime_provider.go add their own). manifests.ts builds every Deployment, Service and
// ServiceAccount the one way, and asks the kind only for what is its own.
import {
  FUNCTION_REVISION,
  GRPC_PORT,
  GRPC_PORT_NAME,
  LABEL_FUNCTION,
  TLS_SERVER_DIR,
  TLS_SERVER_DIR_ENV,
  TLS_SERVER_VOLUME,
} from './names.js';
import type { RuntimeRevision } from './types.js';

type Obj = Record<string, unknown>;

/** The parts of a Deployment a kind adds to: its spec, pod template metadata, pod spec and runtime container. */
export interface DeploymentParts {
  spec: Obj;
  podMeta: Obj;
  pod: Obj;
  runtime: Obj;
}

export interface RuntimeKind {
  /** The revision kind, the controller of every runtime object. */
  revision: { readonly apiVersion: string; readonly kind: string };
  /** The pod selector label naming the package (`pkg.crossplane.io/function` or `pkg.crossplane.io/provider`). */
  packageLabel: string;
  /** How messages name the runtime: "function package deployment", "provider package deployment". */
  noun: 'function' | 'provider';
  /** The runtime container's security context unless the runtime config sets one. */
  containerSecurity: Obj;
  /** The Service's ports, and whether it is headless. */
  service: { headless: boolean; ports: readonly Obj[] };
  /** The kind's own ports, environment, mounts and annotations, after what every kind gets. */
  decorate(revision: RuntimeRevision, parts: DeploymentParts): void;
}

/** Non-root, as upstream's defaults; Functions add a read-only root filesystem (compositor's choice). */
const RUN_AS = 2000;
export const POD_SECURITY = { runAsNonRoot: true, runAsUser: RUN_AS, runAsGroup: RUN_AS };
export const CONTAINER_SECURITY = {
  runAsUser: RUN_AS,
  runAsGroup: RUN_AS,
  allowPrivilegeEscalation: false,
  privileged: false,
  runAsNonRoot: true,
};

export function list(value: unknown): Obj[] {
  return (value as Obj[] | undefined) ?? [];
}

/** Appends ports whose names the container does not have yet (upstream's DeploymentRuntimeWithAdditionalPorts). */
export function addPorts(container: Obj, ports: readonly Obj[]): void {
  const names = new Set(list(container.ports).map((p) => p.name));
  container.ports = [...list(container.ports), ...ports.filter((p) => !names.has(p.name))];
}

export function addEnv(container: Obj, env: readonly Obj[]): void {
  container.env = [...list(container.env), ...env];
}

/** Mounts a TLS Secret's tls.crt, tls.key and ca.crt read-only at `dir`, named by `envName` (upstream's mountTLSSecret). */
export function mountTls(
  parts: DeploymentParts,
  mount: { secret: string; volume: string; dir: string; env: string },
): void {
  const { pod, runtime } = parts;
  const items = ['tls.crt', 'tls.key', 'ca.crt'].map((key) => ({ key, path: key }));
  pod.volumes = [...list(pod.volumes), { name: mount.volume, secret: { secretName: mount.secret, items } }];
  runtime.volumeMounts = [...list(runtime.volumeMounts), { name: mount.volume, readOnly: true, mountPath: mount.dir }];
  addEnv(runtime, [{ name: mount.env, value: mount.dir }]);
}

export const FUNCTION_RUNTIME: RuntimeKind = {
  revision: FUNCTION_REVISION,
  packageLabel: LABEL_FUNCTION,
  noun: 'function',
  containerSecurity: { ...CONTAINER_SECURITY, readOnlyRootFilesystem: true },
  service: {
    headless: true,
    ports: [{ name: GRPC_PORT_NAME, protocol: 'TCP', port: GRPC_PORT, targetPort: GRPC_PORT_NAME, appProtocol: 'tls' }],
  },
  decorate(revision, parts) {
    const secret = revision.spec.tlsServerSecretName;
    if (secret !== undefined) {
      mountTls(parts, { secret, volume: TLS_SERVER_VOLUME, dir: TLS_SERVER_DIR, env: TLS_SERVER_DIR_ENV });
    }
    addPorts(parts.runtime, [{ name: GRPC_PORT_NAME, containerPort: GRPC_PORT }]);
  },
};
