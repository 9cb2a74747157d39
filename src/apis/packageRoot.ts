import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding compositor's package.json. Files shipped beside the code (CRD manifests, scripts) are found
 * from here, so the same lookup works from src/ under tsx and from dist/ after a build.
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find compositor's package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
  return dir;
}
