import { BlockList, isIP } from "node:net";

/**
 * The client address behind trusted proxies (`--trust-proxy`, docs/deploy.md "Behind a proxy").
 * The per-address admission limits (new 2025-era sessions, the Chamber's public door) count by
 * client address; behind a load balancer every socket peer is the balancer. When the socket peer
 * is a trusted proxy, the client is the rightmost `X-Forwarded-For` hop that is not itself a
 * trusted proxy: each proxy appends the address it saw, so hops to the right of the first
 * untrusted one were written by our own proxies and everything to its left is the client's to
 * forge. A peer outside the list is the client, whatever it sends.
 */
export class TrustedProxies {
  readonly #list = new BlockList();
  readonly entries: readonly string[];

  /** `cidrs`: addresses or CIDR blocks, IPv4 or IPv6 ("10.0.0.0/8", "::1", "fd00::/8"). */
  constructor(cidrs: readonly string[]) {
    for (const raw of cidrs) {
      const entry = raw.trim();
      const [address = "", prefix, ...rest] = entry.split("/");
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      if (family === 0 || rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
        throw new Error(`trusted proxy must be an IP address or CIDR block (e.g. 10.0.0.0/8, fd00::/8), got "${raw}"`);
      }
      const length = prefix === undefined ? bits : Number(prefix);
      if (length > bits) throw new Error(`trusted proxy "${raw}": prefix length must be 1..${bits}`);
      if (length === 0) {
        throw new Error(
          `trusted proxy "${raw}" would trust every address: any client could then name its own address in X-Forwarded-For and escape the per-address limits; list your load balancers' addresses or blocks`,
        );
      }
      this.#list.addSubnet(address, length, family === 4 ? "ipv4" : "ipv6");
    }
    this.entries = cidrs.map((c) => c.trim());
  }

  /** Parses a comma-separated list (the `--trust-proxy` value); empty items are refused. */
  static parse(list: string): TrustedProxies {
    const items = list.split(",");
    if (items.some((i) => i.trim() === "")) {
      throw new Error(`--trust-proxy needs a comma-separated list of IP addresses or CIDR blocks, got "${list}"`);
    }
    return new TrustedProxies(items);
  }

  trusts(address: string): boolean {
    const a = normalize(address);
    const family = a === null ? 0 : isIP(a);
    return family !== 0 && this.#list.check(a as string, family === 4 ? "ipv4" : "ipv6");
  }

  /**
   * The client's address for a connection from `peer` carrying `forwardedFor` (the
   * X-Forwarded-For header, several headers joined with commas). A malformed hop stops the walk at
   * the proxy that passed it on: the stricter answer, never one a client chose.
   */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    let client = normalize(peer) ?? peer;
    if (!forwardedFor || !this.trusts(client)) return client;
    const hops = forwardedFor.split(",");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalize(hops[i] as string);
      if (hop === null) return client;
      client = hop;
      if (!this.trusts(hop)) return hop;
    }
    return client;
  }
}

/**
 * A bare IP address from a socket peer or a forwarded hop: trims, drops `[…]` and a port, and
 * reads an IPv4-mapped IPv6 address as IPv4 (a dual-stack listener reports `::ffff:10.0.0.1`).
 * Null when it is not an IP address.
 */
function normalize(raw: string): string | null {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1] as string;
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s);
  if (mapped) s = mapped[1] as string;
  return isIP(s) === 0 ? null : s.toLowerCase();
}
