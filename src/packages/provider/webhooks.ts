// A Provider package's webhooks pointed at its runtime, as Crossplane v2.3's establisher does for the active revision
// (internal/controller/pkg/revision/establisher.go, enrichControlledResource): a CRD converted by webhook gets the
// provider's Service (named after the provider, in compositor's namespace, port 9443) and the CA bundle in
// spec.conversion.webhook.clientConfig; each webhook of a ValidatingWebhookConfiguration or
// MutatingWebhookConfiguration gets the same Service (its path kept) and bundle, and the configuration is named
// `crossplane-provider-<provider>`, since controller-tools gives every provider's the same fixed name.
import type { WebhookTarget } from '../configuration/index.js';
import type { PackageObject } from '../xpkg/index.js';
import { CRD } from './names.js';

type Obj = Record<string, unknown>;

const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export const WEBHOOK_CONFIGURATION_KINDS: readonly string[] = [
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
];

export function isWebhookConfiguration(o: PackageObject): boolean {
  return o.apiVersion.startsWith(`${ADMISSION_GROUP}/`) && WEBHOOK_CONFIGURATION_KINDS.includes(o.kind);
}

function isWebhookConvertedCrd(o: PackageObject): boolean {
  const conversion = (o.spec as { conversion?: { strategy?: unknown } } | undefined)?.conversion;
  return o.kind === CRD.kind && o.apiVersion === CRD.apiVersion && conversion?.strategy === 'Webhook';
}

/** The clientConfig's Service and bundle over what the package wrote (its path stays). */
function clientConfig(current: unknown, target: WebhookTarget): Obj {
  const config = (current ?? {}) as Obj;
  const service = { ...((config.service as Obj | undefined) ?? {}), ...target.service };
  return { ...config, service, caBundle: Buffer.from(target.caBundle, 'utf8').toString('base64') };
}

function withConversion(crd: PackageObject, target: WebhookTarget): PackageObject {
  const spec = crd.spec as Obj & { conversion: Obj & { webhook?: Obj } };
  const webhook = { ...(spec.conversion.webhook ?? {}) };
  webhook.clientConfig = clientConfig(webhook.clientConfig, target);
  return { ...crd, spec: { ...spec, conversion: { ...spec.conversion, webhook } } };
}

function withService(configuration: PackageObject, target: WebhookTarget): PackageObject {
  const webhooks = ((configuration.webhooks as Obj[] | undefined) ?? []).map((w) => ({
    ...w,
    clientConfig: clientConfig(w.clientConfig, target),
  }));
  const metadata = { ...(configuration.metadata ?? {}), name: `crossplane-provider-${target.service.name}` };
  return { ...configuration, metadata, webhooks };
}

/** The package's objects with its webhooks pointed at `target`; other objects are returned as they are. */
export function pointWebhooks(objects: readonly PackageObject[], target: WebhookTarget): PackageObject[] {
  return objects.map((o) => {
    if (isWebhookConvertedCrd(o)) return withConversion(o, target);
    if (isWebhookConfiguration(o)) return withService(o, target);
    return o;
  });
}
