// The ImageConfigs a pull is prepared with: the shared informer's cache when the controller holds it (every controller
// that pulls watches ImageConfigs, so a change re-queues what it concerns), else one list from the API server (a
// controller not started, a one-off read). A cluster without the ImageConfig CRD has none: its API answers 404.
import { isNotFound, type KubeClient } from '../../kube/index.js';
import type { ObjectStore } from '../../watch/index.js';
import { IMAGE_CONFIGS, type ImageConfig } from './types.js';

/** Lists the ImageConfigs now. */
export interface ImageConfigSource {
  list(signal: AbortSignal): Promise<ImageConfig[]>;
}

export interface ImageConfigStoreOptions {
  client: KubeClient;
  /** The informer cache of ImageConfigs, once synced; undefined reads the API server. */
  cache?: () => Pick<ObjectStore, 'list'> | undefined;
}

export class ImageConfigStore implements ImageConfigSource {
  constructor(private readonly options: ImageConfigStoreOptions) {}

  async list(signal: AbortSignal): Promise<ImageConfig[]> {
    const cached = this.options.cache?.();
    if (cached !== undefined) return cached.list();
    try {
      const list = await this.options.client.request<{ items?: ImageConfig[] }>('GET', IMAGE_CONFIGS, { signal });
      return list.items ?? [];
    } catch (err) {
      if (isNotFound(err)) return [];
      throw new Error('cannot list ImageConfigs', { cause: err });
    }
  }
}
