// Transport security for function calls: mTLS with the client certificate Crossplane mounts (ca.crt, tls.crt,
// tls.key in one directory), or plaintext with --function-insecure.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { credentials, type ChannelCredentials } from '@grpc/grpc-js';

export function insecureCredentials(): ChannelCredentials {
  return credentials.createInsecure();
}

/** Reads ca.crt, tls.crt and tls.key from dir; a missing file is an error naming it. */
export async function mtlsCredentials(dir: string): Promise<ChannelCredentials> {
  const read = async (file: string): Promise<Buffer> => {
    try {
      return await readFile(join(dir, file));
    } catch (err) {
      throw new Error(`cannot load function client certificates: cannot read ${join(dir, file)}`, { cause: err });
    }
  };
  const [ca, cert, key] = await Promise.all([read('ca.crt'), read('tls.crt'), read('tls.key')]);
  return credentials.createSsl(ca, key, cert);
}
