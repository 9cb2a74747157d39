// Registry credentials from a package's packagePullSecrets. Crossplane resolves them with go-containerregistry's
// k8schain, which reads kubernetes.io/dockerconfigjson (and the older kubernetes.io/dockercfg) Secrets and matches
// their keys against the image the way the kubelet's keyring does: same number of host labels, each label a glob,
// the same port, and the key's path a prefix of the repository. The most specific key wins.
import { InvalidPullSecretError } from './errors.js';
import type { Reference } from './reference.js';

/** Credentials for one registry: a user and password, or an identity (refresh) token. */
export interface Credentials {
  username?: string;
  password?: string;
  identityToken?: string;
  /** A bearer token to send as it is, without asking the token service. */
  registryToken?: string;
}

/** The parts of a Kubernetes Secret this module reads; `data` values are base64 as the API returns them. */
export interface PullSecret {
  metadata?: { name?: string; namespace?: string };
  type?: string;
  data?: Record<string, string>;
}

/** One entry of a Docker config's `auths`, keyed by what it applies to. */
export interface KeyedCredentials {
  key: string;
  credentials: Credentials;
}

const DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
const DOCKER_CFG = 'kubernetes.io/dockercfg';

/**
 * Reads the credentials of pull Secrets in order. A Secret of another type, or one whose config is not JSON,
 * fails: a pull that silently went anonymous would report 401 and hide the real mistake.
 */
export function credentialsFromSecrets(secrets: readonly PullSecret[]): KeyedCredentials[] {
  return secrets.flatMap((secret) => credentialsFromSecret(secret));
}

function configKey(secret: PullSecret, name: string): '.dockerconfigjson' | '.dockercfg' {
  if (secret.type === DOCKER_CONFIG_JSON) return '.dockerconfigjson';
  if (secret.type === DOCKER_CFG) return '.dockercfg';
  throw new InvalidPullSecretError(
    `cannot use pull secret "${name}": type is "${secret.type ?? ''}", not ${DOCKER_CONFIG_JSON} or ${DOCKER_CFG}`,
  );
}

function credentialsFromSecret(secret: PullSecret): KeyedCredentials[] {
  const name = secret.metadata?.name ?? '';
  const key = configKey(secret, name);
  const encoded = secret.data?.[key];
  if (encoded === undefined) throw new InvalidPullSecretError(`cannot use pull secret "${name}": it has no ${key}`);
  let config: unknown;
  try {
    config = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch (err) {
    throw new InvalidPullSecretError(`cannot use pull secret "${name}": ${key} is not JSON: ${(err as Error).message}`);
  }
  const auths = key === '.dockerconfigjson' ? (config as { auths?: unknown } | null)?.auths : config;
  if (typeof auths !== 'object' || auths === null) {
    throw new InvalidPullSecretError(`cannot use pull secret "${name}": ${key} has no auths`);
  }
  return Object.entries(auths as Record<string, unknown>).map(([entryKey, entry]) => ({
    key: entryKey,
    credentials: credentialsFromEntry(entry),
  }));
}

interface AuthEntry {
  auth?: unknown;
  username?: unknown;
  password?: unknown;
  identitytoken?: unknown;
  registrytoken?: unknown;
}

function credentialsFromEntry(entry: unknown): Credentials {
  const e = (typeof entry === 'object' && entry !== null ? entry : {}) as AuthEntry;
  const credentials: Credentials = {};
  if (typeof e.username === 'string') credentials.username = e.username;
  if (typeof e.password === 'string') credentials.password = e.password;
  // `auth` is base64 of user:password and wins, as in Docker's own config reader.
  if (typeof e.auth === 'string' && e.auth !== '') {
    const decoded = Buffer.from(e.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      credentials.username = decoded.slice(0, colon);
      credentials.password = decoded.slice(colon + 1);
    }
  }
  if (typeof e.identitytoken === 'string' && e.identitytoken !== '') credentials.identityToken = e.identitytoken;
  if (typeof e.registrytoken === 'string' && e.registrytoken !== '') credentials.registryToken = e.registrytoken;
  return credentials;
}

/** The credentials for a reference: the most specific matching key; none means anonymous. */
export function credentialsFor(ref: Reference, all: readonly KeyedCredentials[]): Credentials | undefined {
  const target = `${ref.registry}/${ref.repository}`;
  let best: KeyedCredentials | undefined;
  for (const candidate of all) {
    if (!keyMatches(candidate.key, target)) continue;
    if (best === undefined || normalizeKey(candidate.key).length > normalizeKey(best.key).length) best = candidate;
  }
  return best?.credentials;
}

function normalizeKey(key: string): string {
  return key.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, '');
}

/** The kubelet keyring's URLsMatch: host labels glob-match one to one, ports equal, key path a prefix. */
export function keyMatches(key: string, target: string): boolean {
  const [keyHost, keyPath] = splitHostPath(normalizeKey(key));
  const [targetHost, targetPath] = splitHostPath(target);
  const [keyName, keyPort] = splitPort(keyHost);
  const [targetName, targetPort] = splitPort(targetHost);
  if (keyPort !== targetPort) return false;
  const keyLabels = keyName.split('.');
  const targetLabels = targetName.split('.');
  if (keyLabels.length !== targetLabels.length) return false;
  if (!keyLabels.every((label, i) => globMatches(label, targetLabels[i] ?? ''))) return false;
  return targetPath.startsWith(keyPath);
}

function splitPort(host: string): [string, string] {
  const match = /^(.*):(\d+)$/.exec(host);
  return match ? [match[1] ?? '', match[2] ?? ''] : [host, ''];
}

function splitHostPath(value: string): [string, string] {
  const slash = value.indexOf('/');
  return slash < 0 ? [value, ''] : [value.slice(0, slash), value.slice(slash + 1)];
}

/**
 * Whether a host label matches a key's glob label: `*` any run of characters, `?` any one, anything else itself. Both
 * come from users (a pull secret's keys, a package's host), so no backtracking RegExp: after a mismatch the match
 * resumes one character further after the last `*` only, which bounds the time by the product of the two lengths,
 * where a RegExp of thirty `*` takes minutes against a thirty-character label.
 */
function globMatches(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  let star = -1;
  let resume = 0;
  while (v < value.length) {
    const c = pattern[p];
    if (c === '*') {
      star = p++;
      resume = v;
    } else if (c !== undefined && (c === '?' || c === value[v])) {
      p++;
      v++;
    } else if (star < 0) {
      return false;
    } else {
      p = star + 1;
      v = ++resume;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
