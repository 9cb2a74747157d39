// Which ImageConfig applies to an image, and what it makes of it, as crossplane-runtime v2.3's ImageConfigStore
// decides (pkg/xpkg/config.go): among the ImageConfigs that configure the purpose asked about, the one with the
// longest matching prefix wins (equal lengths: the first listed, which upstream leaves arbitrary); a rewrite replaces
// the longest of the winner's own matching prefixes. Prefixes are plain string prefixes of the whole reference.
import type { ImageConfig } from './types.js';

/** What an ImageConfig is looked up for; each purpose only considers the ImageConfigs that configure it. */
export type Purpose = 'pullSecret' | 'rewrite' | 'verification' | 'runtime';

const CONFIGURES: Record<Purpose, (c: ImageConfig) => boolean> = {
  pullSecret: (c) => (c.spec?.registry?.authentication?.pullSecretRef?.name ?? '') !== '',
  rewrite: (c) => c.spec?.rewriteImage !== undefined,
  verification: (c) => c.spec?.verification !== undefined,
  runtime: (c) => c.spec?.runtime !== undefined,
};

/** The ImageConfig configuring `purpose` whose prefix matches `image` longest; undefined when none matches. */
export function bestMatch(configs: readonly ImageConfig[], image: string, purpose: Purpose): ImageConfig | undefined {
  let best: ImageConfig | undefined;
  let longest = 0;
  for (const config of configs) {
    if (!CONFIGURES[purpose](config)) continue;
    const length = longestPrefix(config, image)?.length ?? 0;
    if (length > longest) {
      longest = length;
      best = config;
    }
  }
  return best;
}

/** The longest of an ImageConfig's prefixes that `image` starts with; an empty prefix never counts (upstream's `>`). */
export function longestPrefix(config: ImageConfig, image: string): string | undefined {
  let found: string | undefined;
  for (const { prefix } of config.spec?.matchImages ?? []) {
    if (prefix !== '' && image.startsWith(prefix) && prefix.length > (found?.length ?? 0)) found = prefix;
  }
  return found;
}

/** Whether any of an ImageConfig's prefixes matches one of the images: which packages its change concerns. */
export function matchesAny(config: ImageConfig, images: readonly (string | undefined)[]): boolean {
  return (config.spec?.matchImages ?? []).some(({ prefix }) =>
    images.some((image) => image !== undefined && image.startsWith(prefix)),
  );
}

/** Whether an ImageConfig's change can change a pull: it gives a pull secret or a rewrite (upstream's watch filter). */
export function affectsPulls(config: ImageConfig): boolean {
  return CONFIGURES.pullSecret(config) || CONFIGURES.rewrite(config);
}
