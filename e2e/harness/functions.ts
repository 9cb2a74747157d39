import { fileURLToPath } from 'node:url';

/** The e2e suite's composition function (see the script's header). */
export const CONFIGMAPS_FUNCTION = fileURLToPath(new URL('../functions/configmaps-function.ts', import.meta.url));
