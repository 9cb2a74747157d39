// Names, labels, ports and paths of a Function's runtime, as Crossplane's package manager spells them, so tooling
// that knows Crossplane (kubectl selectors, dashboards, runtime configs) finds compositor's objects where it looks.
import { createHash } from 'node:crypto';

export const PKG_GROUP = 'pkg.crossplane.io';
export const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' } as const;
export const FUNCTION_REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'FunctionRevision' } as const;
export const RUNTIME_CONFIG = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'DeploymentRuntimeConfig' } as const;

/** The label on every revision naming its Function. */
export const LABEL_PARENT_PACKAGE = 'pkg.crossplane.io/package';
/** Pod selector labels of a function's Deployment and Service. */
export const LABEL_REVISION = 'pkg.crossplane.io/revision';
export const LABEL_FUNCTION = 'pkg.crossplane.io/function';

export const RUNTIME_CONTAINER = 'package-runtime';
export const GRPC_PORT_NAME = 'grpc';
export const GRPC_PORT = 9443;
export const METRICS_PORT_NAME = 'metrics';
export const METRICS_PORT = 8080;

export const TLS_SERVER_VOLUME = 'tls-server-certs';
export const TLS_SERVER_DIR = '/tls/server';
export const TLS_SERVER_DIR_ENV = 'TLS_SERVER_CERTS_DIR';
export const TLS_CLIENT_VOLUME = 'tls-client-certs';
export const TLS_CLIENT_DIR = '/tls/client';
export const TLS_CLIENT_DIR_ENV = 'TLS_CLIENT_CERTS_DIR';

/** The CA every function certificate and compositor's client certificate are signed by. */
export const ROOT_CA_SECRET = 'crossplane-root-ca';
/** compositor's client certificate, as Crossplane core's. */
export const CLIENT_SECRET = 'crossplane-tls-client';
export const DEFAULT_RUNTIME_CONFIG = 'default';

const MAX_NAME = 63;

/** Lowercase, at most 63 characters, no trailing dash or dot: a valid DNS label for an object name. */
function dnsLabel(name: string): string {
  return name.slice(0, MAX_NAME).replace(/[-.]+$/, '');
}

/** The digest compositor revisions a package by: sha256 of the package reference (compositor pulls no image). */
export function packageDigest(pkg: string): string {
  return createHash('sha256').update(pkg.trim()).digest('hex');
}

/**
 * A revision's name: the Function's name (at most 50 characters), a dash and 12 hex of the package digest, as
 * Crossplane's FriendlyID names revisions. One package reference, one revision.
 *
 * @example revisionName('function-kcl', 'xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.11.0')
 */
export function revisionName(functionName: string, pkg: string): string {
  return dnsLabel(`${functionName.slice(0, 50)}-${packageDigest(pkg).slice(0, 12)}`);
}

const TLS_SERVER_SUFFIX = '-tls-server';
const TLS_CLIENT_SUFFIX = '-tls-client';

function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, 253 - suffix.length)}${suffix}`;
}

/**
 * The Secret holding a package's server certificate: `<package>-tls-server`, the name cut so the whole fits a
 * Secret's 253 characters, as upstream's GetSecretNameWithSuffix.
 */
export function serverSecretName(packageName: string): string {
  return withSuffix(packageName, TLS_SERVER_SUFFIX);
}

/** The Secret holding a Provider's client certificate: `<provider>-tls-client`, cut as serverSecretName. */
export function clientSecretName(packageName: string): string {
  return withSuffix(packageName, TLS_CLIENT_SUFFIX);
}

/**
 * The DNS name of compositor's client certificate: `<service account>.<namespace>` as Crossplane's init names its
 * own, with Crossplane's default service account name (functions check only that the CA signed it).
 */
export function clientDnsNames(namespace: string): string[] {
  return [`crossplane.${namespace}`];
}

/** The DNS names a Service answers to inside the cluster: the SANs of its function's server certificate. */
export function dnsNamesForService(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`];
}

/** The gRPC target of a function's Service, as Crossplane writes it into status.endpoint. */
export function serviceEndpoint(service: string, namespace: string): string {
  return `dns:///${service}.${namespace}:${GRPC_PORT}`;
}
