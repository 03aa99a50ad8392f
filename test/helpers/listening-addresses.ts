/**
 * Which addresses a TCP port is listened on, read from the kernel's socket tables (Linux), and
 * whether a port is taken on this machine's other addresses: both without sending a packet
 * anywhere, so a test can check that a server is loopback-only without reaching for the network.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';

/** `0100007F` → 127.0.0.1; /proc writes each 32-bit word of an address in host (little-endian) order. */
function addressOf(hex: string): string {
  const bytes = (hex.match(/../g) ?? []).map((b) => parseInt(b, 16));
  const words: number[][] = [];
  for (let i = 0; i < bytes.length; i += 4) words.push(bytes.slice(i, i + 4).reverse());
  const flat = words.flat();
  if (flat.length === 4) return flat.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((flat[i]! << 8) | flat[i + 1]!).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Every local address that `port` is in LISTEN state on (0.0.0.0 and :: mean every interface). */
export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue;
      const [hex, portHex] = local.split(':');
      if (parseInt(portHex!, 16) === port) found.push(addressOf(hex!));
    }
  }
  return found;
}

/** This machine's IPv4 addresses other than loopback (its LAN or container address). */
export function nonLoopbackAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

/**
 * Whether something already holds `port` on `address`: binding it ourselves fails with EADDRINUSE
 * when a server listens there or on every interface. Nothing is sent; the probe closes at once.
 */
export async function portTakenOn(address: string, port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    probe.listen(port, address, () => probe.close(() => resolve(false)));
  });
}
