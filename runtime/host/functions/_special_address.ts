/**
 * Which addresses `net.fetch` reaches only when a package names them: those
 * of this machine, its local network and its cloud provider, which a public
 * name must not be a way into.
 *
 * @module
 */
import { isIPv4, isIPv6 } from "node:net";

/** What {@linkcode specialAddressKind} calls 0.0.0.0/8 and `::`, and the IPv6 forms carrying 0/8. */
export const UNSPECIFIED_ADDRESS = "an unspecified address";

/**
 * What an address is when it is one a declared name may not lead to, in the
 * words a refusal uses ("a loopback address"); undefined for any other
 * address, or for text that is no address at all.
 *
 * IPv4 loopback (127/8), private (10/8, 172.16/12, 192.168/16), shared
 * (100.64/10, carrier-grade NAT), link-local (169.254/16, with the cloud
 * metadata address 169.254.169.254) and unspecified (0/8); IPv6 loopback,
 * unspecified, unique-local (fc00::/7, with the metadata address
 * fd00:ec2::254), link-local (fe80::/10) and site-local (fec0::/10); and
 * every IPv6 form that carries one of those IPv4 addresses (mapped
 * `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`).
 *
 * @param address An IPv4 or IPv6 address, as a resolver answers it.
 */
export function specialAddressKind(address: string): string | undefined {
  if (isIPv4(address)) return ipv4Kind(address.split(".").map(Number));
  // A zone (`fe80::1%eth0`) says where, not what.
  const bare = address.replace(/%.*$/, "");
  if (isIPv6(bare)) return ipv6Kind(ipv6Groups(bare));
  return undefined;
}

function ipv4Kind([a, b, c, d]: number[]): string | undefined {
  if (a === 0) return UNSPECIFIED_ADDRESS;
  if (a === 127) return "a loopback address";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) {
    return "a private address";
  }
  if (a === 100 && b >= 64 && b <= 127) return "a shared (carrier-grade NAT) address";
  if (a === 169 && b === 254) {
    return c === 169 && d === 254 ? "the cloud metadata address" : "a link-local address";
  }
  return undefined;
}

function ipv6Kind(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0 && g6 === 0) {
    if (g7 === 0) return UNSPECIFIED_ADDRESS;
    if (g7 === 1) return "a loopback address";
  }
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  // ::ffff:a.b.c.d and ::a.b.c.d reach the IPv4 address they carry, and so does
  // a NAT64 gateway's 64:ff9b::a.b.c.d.
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if ((firstFiveZero && (g5 === 0xffff || g5 === 0)) || nat64) return ipv4Kind(embedded);
  if (
    g0 === 0xfd00 && g1 === 0xec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 &&
    g6 === 0 && g7 === 0x254
  ) {
    return "the cloud metadata address";
  }
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfec0) return "a private address";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address";
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` and a dotted tail expanded. */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = text.slice(0, dotted.index) +
      `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const parse = (part: string | undefined) =>
    part ? part.split(":").map((group) => parseInt(group, 16)) : [];
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
}
