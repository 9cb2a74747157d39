// X.509 certificates for function mTLS, generated with @peculiar/x509 over Node's WebCrypto: a root CA, a server
// certificate per Function whose SANs are its Service's DNS names, and compositor's client certificate. Subjects,
// key usages and the CA's SAN are Crossplane's; leaf certificates live a year and are renewed 30 days before expiry.
// @peculiar/x509 resolves its ASN.1 services through tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const SUBJECT = 'CN=Crossplane, O=Crossplane, C=Earth, ST=Earth, L=Earth';
const ALGORITHM = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
};
const DAY_MS = 86_400_000;
export const CA_VALIDITY_MS = 3650 * DAY_MS;
export const LEAF_VALIDITY_MS = 365 * DAY_MS;
/** A leaf certificate is reissued once less than this is left of it. */
export const RENEW_BEFORE_MS = 30 * DAY_MS;

/** PEM text of one certificate and its PKCS#1 private key. */
export interface KeyPair {
  cert: string;
  key: string;
}

export type LeafUsage = 'server' | 'client';

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive
  return Buffer.from(bytes).toString('hex');
}

async function newKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
}

/** PKCS#1 PEM ("RSA PRIVATE KEY"), the form Crossplane writes and the only one it reads its CA key in. */
async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
    .export({ type: 'pkcs1', format: 'pem' })
    .toString();
}

/** Imports a PEM private key, PKCS#1 (as Crossplane writes its CA) or PKCS#8, for signing. */
async function importKey(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, ALGORITHM, true, ['sign']);
}

/** A self-signed CA, valid ten years. */
export async function generateCa(now: Date): Promise<KeyPair> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: SUBJECT,
    notBefore: now,
    notAfter: new Date(now.getTime() + CA_VALIDITY_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'crossplane-root-ca' }]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
}

/** A leaf certificate for `dnsNames`, signed by `ca`, for a server or a client. */
export async function issueLeaf(
  ca: KeyPair,
  dnsNames: readonly string[],
  usage: LeafUsage,
  now: Date,
): Promise<KeyPair> {
  if (dnsNames.length === 0) throw new Error(`cannot issue ${usage} certificate: no DNS names`);
  const caCert = new x509.X509Certificate(ca.cert);
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    // OpenSSL takes a certificate whose subject equals its issuer for self-signed, so the leaf's CN is its host.
    subject: SUBJECT.replace('CN=Crossplane', `CN=${dnsNames[0] ?? ''}`),
    issuer: caCert.subject,
    notBefore: now,
    notAfter: new Date(now.getTime() + LEAF_VALIDITY_MS),
    signingKey: await importKey(ca.key),
    publicKey: keys.publicKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.dataEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([
        usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
      ]),
      new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
}

/** The DNS SANs of a PEM certificate. */
export function dnsNamesOf(pem: string): string[] {
  const san = new x509.X509Certificate(pem).getExtension(x509.SubjectAlternativeNameExtension);
  return (san?.names.toJSON() ?? []).filter((n) => n.type === 'dns').map((n) => n.value);
}

/**
 * Whether a leaf certificate must be (re)issued: unreadable, not signed by `caPem`, naming other DNS names, or within
 * RENEW_BEFORE_MS of expiry (renewAt included).
 */
export async function needsReissue(
  leafPem: string | undefined,
  caPem: string,
  dnsNames: readonly string[],
  now: Date,
): Promise<boolean> {
  if (leafPem === undefined || leafPem === '') return true;
  try {
    const leaf = new x509.X509Certificate(leafPem);
    const ca = new x509.X509Certificate(caPem);
    if (!(await leaf.verify({ publicKey: ca.publicKey, signatureOnly: true }))) return true;
    if (leaf.notAfter.getTime() - now.getTime() <= RENEW_BEFORE_MS) return true;
    return [...dnsNamesOf(leafPem)].sort().join(',') !== [...dnsNames].sort().join(',');
  } catch {
    return true;
  }
}

/** When the leaf must be renewed (RENEW_BEFORE_MS before it expires). */
export function renewAt(leafPem: string): Date {
  return new Date(new x509.X509Certificate(leafPem).notAfter.getTime() - RENEW_BEFORE_MS);
}

/** Whether a CA pair is usable: both parts parse and the CA has not expired. */
export function validCa(ca: Partial<KeyPair>, now: Date): ca is KeyPair {
  if (!ca.cert || !ca.key) return false;
  try {
    createPrivateKey(ca.key);
    return new x509.X509Certificate(ca.cert).notAfter.getTime() > now.getTime() + RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}
