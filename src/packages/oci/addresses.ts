// Address ranges the client treats specially: RFC 1918 registries may be spoken to over http, and a token realm
// may not point at a private or link-local address (go-containerregistry's name.Registry.Scheme and ipaddr).

function ipv4(host: string): [number, number] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16. */
export function isRfc1918(host: string): boolean {
  const octets = ipv4(host);
  if (octets === undefined) return false;
  const [a, b] = octets;
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** An IP literal in a private, loopback, unspecified or link-local range (169.254.0.0/16 holds cloud metadata). */
export function isPrivateOrLinkLocal(host: string): boolean {
  const octets = ipv4(host);
  if (octets !== undefined) {
    const [a, b] = octets;
    return isRfc1918(host) || a === 127 || a === 0 || (a === 169 && b === 254);
  }
  const lower = host.toLowerCase();
  if (!lower.includes(':')) return false;
  return lower === '::1' || lower === '::' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}
