// A Provider's runtime as Crossplane v2.3 builds it (internal/controller/pkg/runtime/runtime.go and
// runtime_provider.go): the TLS client and server Secrets mounted at /tls/client and /tls/server, the provider's
// environment (POD_NAMESPACE, PROVIDER_NAME, REVISION_NAME, REVISION_UID, and WEBHOOK_TLS_CERT_DIR beside its webhook
// port when it has a server certificate), Prometheus scrape annotations unless the runtime config sets its own, and a
// Service (not headless) with the webhook port, 9443, which CRD conversion and admission webhooks are pointed at.
import {
  LABEL_REVISION,
  METRICS_PORT,
  METRICS_PORT_NAME,
  TLS_CLIENT_DIR,
  TLS_CLIENT_DIR_ENV,
  TLS_CLIENT_VOLUME,
  TLS_SERVER_DIR,
  TLS_SERVER_DIR_ENV,
  TLS_SERVER_VOLUME,
} from '../names.js';
import {
  addEnv,
  addPorts,
  CONTAINER_SECURITY,
  list,
  mountTls,
  type DeploymentParts,
  type RuntimeKind,
} from '../runtimeKind.js';
import type { RuntimeRevision } from '../types.js';
import { PROVIDER_REVISION } from './names.js';

/** The pod selector label naming the Provider (upstream's v1.LabelProvider). */
export const LABEL_PROVIDER = 'pkg.crossplane.io/provider';
/** The port of a provider's webhooks, on its Service and container (upstream's revision.ServicePort). */
export const WEBHOOK_PORT = 9443;
export const WEBHOOK_PORT_NAME = 'webhook';
/** Set to the server certificate directory, for providers that read the older name. */
export const WEBHOOK_TLS_CERT_DIR_ENV = 'WEBHOOK_TLS_CERT_DIR';

const fieldRef = (fieldPath: string): Record<string, unknown> => ({ valueFrom: { fieldRef: { fieldPath } } });

/** Upstream's DeploymentWithOptionalPodScrapeAnnotations: all three, unless the config sets prometheus.io/scrape. */
function scrapeAnnotations({ podMeta, runtime }: DeploymentParts): void {
  const annotations = { ...((podMeta.annotations as Record<string, string> | undefined) ?? {}) };
  if (annotations['prometheus.io/scrape'] === undefined) {
    const metrics = list(runtime.ports).find((p) => p.name === METRICS_PORT_NAME);
    annotations['prometheus.io/scrape'] = 'true';
    annotations['prometheus.io/port'] = String((metrics?.containerPort as number | undefined) ?? METRICS_PORT);
    annotations['prometheus.io/path'] = '/metrics';
  }
  podMeta.annotations = annotations;
}

function decorate(revision: RuntimeRevision, parts: DeploymentParts): void {
  const { tlsClientSecretName: client, tlsServerSecretName: server } = revision.spec;
  if (client !== undefined) {
    mountTls(parts, { secret: client, volume: TLS_CLIENT_VOLUME, dir: TLS_CLIENT_DIR, env: TLS_CLIENT_DIR_ENV });
  }
  if (server !== undefined) {
    mountTls(parts, { secret: server, volume: TLS_SERVER_VOLUME, dir: TLS_SERVER_DIR, env: TLS_SERVER_DIR_ENV });
  }
  addEnv(parts.runtime, [
    // The provider's default namespace for what it writes, as Crossplane core's own.
    { name: 'POD_NAMESPACE', ...fieldRef('metadata.namespace') },
    { name: 'PROVIDER_NAME', ...fieldRef(`metadata.labels['${LABEL_PROVIDER}']`) },
    { name: 'REVISION_NAME', ...fieldRef(`metadata.labels['${LABEL_REVISION}']`) },
    { name: 'REVISION_UID', value: revision.metadata.uid ?? '' },
  ]);
  scrapeAnnotations(parts);
  if (server !== undefined) {
    addPorts(parts.runtime, [{ name: WEBHOOK_PORT_NAME, containerPort: WEBHOOK_PORT }]);
    addEnv(parts.runtime, [{ name: WEBHOOK_TLS_CERT_DIR_ENV, value: `$(${TLS_SERVER_DIR_ENV})` }]);
  }
}

export const PROVIDER_RUNTIME: RuntimeKind = {
  revision: PROVIDER_REVISION,
  packageLabel: LABEL_PROVIDER,
  noun: 'provider',
  containerSecurity: CONTAINER_SECURITY,
  service: {
    headless: false,
    ports: [{ name: WEBHOOK_PORT_NAME, protocol: 'TCP', port: WEBHOOK_PORT, targetPort: WEBHOOK_PORT_NAME }],
  },
  decorate,
};
