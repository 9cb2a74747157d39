import { systemClock, type Clock } from '../../base/index.js';
import { digest } from '../../functions/index.js';
import { EXTERNAL_NAME_ANNOTATION } from '../annotations.js';
import type {
  ConnectionDetails,
  ExternalClient,
  ExternalConnector,
  ExternalCreation,
  ExternalObservation,
  ExternalUpdate,
} from '../types.js';
import { conditionsAt, nextChangeInMs, parseConditionAfter } from './conditionAfter.js';
import { NopExternalSystem, type NopExternalObject } from './system.js';
import type { NopParameters, NopResource } from './types.js';

export interface NopConnectorOptions {
  system: NopExternalSystem;
  /** conditionAfter times count from metadata.creationTimestamp on this clock; the system clock unless given. */
  clock?: Pick<Clock, 'now'>;
}

/** A nop call asked to fail by spec.forProvider.fail<Call>. */
export class NopInjectedFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NopInjectedFailure';
  }
}

/**
 * The nop provider's ExternalConnector. Its external resource holds spec.forProvider.fields and
 * connectionDetails; Observe reports it up to date while those match, the conditions conditionAfter asks for at
 * the MR's age, and when they change next (so the reconciler observes again then, not at the next poll).
 * failCreate, failObserve, failUpdate and failDelete make the call fail with their message.
 */
export class NopConnector implements ExternalConnector<NopResource> {
  private readonly now: () => number;

  constructor(private readonly options: NopConnectorOptions) {
    const clock = options.clock ?? systemClock;
    this.now = () => clock.now();
  }

  connect(): Promise<ExternalClient<NopResource>> {
    return Promise.resolve(new NopClient(this.options.system, this.now));
  }
}

class NopClient implements ExternalClient<NopResource> {
  constructor(
    private readonly system: NopExternalSystem,
    private readonly now: () => number,
  ) {}

  observe(mr: NopResource): Promise<ExternalObservation> {
    return attempt(() => {
      const params = parametersOf(mr, 'failObserve');
      const timed = parseConditionAfter(params.conditionAfter ?? []);
      const stored = this.system.get(externalKey(mr));
      if (!stored) return { resourceExists: false, resourceUpToDate: false };
      const created = Date.parse(mr.metadata.creationTimestamp ?? '');
      const ageMs = Number.isNaN(created) ? 0 : this.now() - created;
      return {
        resourceExists: true,
        resourceUpToDate: digest(holding(stored)) === digest(desired(params)),
        connectionDetails: stored.connectionDetails,
        atProvider: stored.fields === undefined ? {} : { fields: stored.fields },
        conditions: conditionsAt(timed, ageMs),
        observeAgainInMs: nextChangeInMs(timed, ageMs),
      };
    });
  }

  create(mr: NopResource): Promise<ExternalCreation> {
    return attempt(() => {
      const want = desired(parametersOf(mr, 'failCreate'));
      const now = this.now();
      this.system.set(externalKey(mr), { ...want, createdAt: now, updatedAt: now });
      return { connectionDetails: want.connectionDetails };
    });
  }

  update(mr: NopResource): Promise<ExternalUpdate> {
    return attempt(() => {
      const want = desired(parametersOf(mr, 'failUpdate'));
      const key = externalKey(mr);
      const createdAt = this.system.get(key)?.createdAt ?? this.now();
      this.system.set(key, { ...want, createdAt, updatedAt: this.now() });
      return { connectionDetails: want.connectionDetails };
    });
  }

  delete(mr: NopResource): Promise<void> {
    return attempt(() => {
      parametersOf(mr, 'failDelete');
      this.system.delete(externalKey(mr));
    });
  }

  disconnect(): Promise<void> {
    return Promise.resolve();
  }
}

/** Runs a synchronous call as the asynchronous one the interface promises, a throw becoming a rejection. */
function attempt<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** spec.forProvider, after failing the call when its fail<Call> field asks to. */
function parametersOf(
  mr: NopResource,
  fail: 'failCreate' | 'failObserve' | 'failUpdate' | 'failDelete',
): NopParameters {
  const params = mr.spec?.forProvider ?? {};
  const message = params[fail];
  if (typeof message === 'string' && message !== '') throw new NopInjectedFailure(message);
  return params;
}

function externalKey(mr: NopResource): string {
  const name = mr.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION] ?? mr.metadata.name;
  return NopExternalSystem.key(mr.metadata.namespace, name);
}

function desired(params: NopParameters): { fields: unknown; connectionDetails: ConnectionDetails } {
  const connectionDetails: ConnectionDetails = {};
  for (const { name, value } of params.connectionDetails ?? []) connectionDetails[name] = value;
  return { fields: params.fields, connectionDetails };
}

function holding(stored: NopExternalObject): { fields: unknown; connectionDetails: ConnectionDetails } {
  return { fields: stored.fields, connectionDetails: stored.connectionDetails };
}
