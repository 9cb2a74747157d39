import { createHash } from 'node:crypto';

const MAX_NAME_LENGTH = 63;
const SUFFIX_LENGTH = 12;

/**
 * The deterministic name of a composed resource, as Crossplane's names.ChildName: the parent prefix (with a
 * trailing "-"), then the first 12 hex characters of sha256(parent UID + composition resource name). A prefix too
 * long for 63 characters is cut to 51, or to 50 plus "-" when the cut does not end in one. The same XR and
 * resource name always give the same name, so a restart or a lost write never composes a duplicate.
 *
 * @example childName('my-app-', '75e4a668-…', 'database') === 'my-app-38ce86992a27'
 */
export function childName(parentName: string, parentUid: string, compositionResourceName: string): string {
  const suffix = createHash('sha256')
    .update(parentUid + compositionResourceName)
    .digest('hex')
    .slice(0, SUFFIX_LENGTH);
  if (parentName === '') return suffix;
  const prefix = parentName.endsWith('-') ? parentName : `${parentName}-`;
  if (prefix.length + SUFFIX_LENGTH <= MAX_NAME_LENGTH) return prefix + suffix;
  const cut = prefix.slice(0, MAX_NAME_LENGTH - SUFFIX_LENGTH);
  return (cut.endsWith('-') ? cut : `${cut.slice(0, -1)}-`) + suffix;
}
