import { createHash } from 'node:crypto';

/** Linux interface names are at most 15 bytes; derive a stable, unique-enough bridge name. */
export function bridgeName(stackName: string): string {
  const plain = `rb-${stackName}`;
  if (plain.length <= 15) return plain;
  return `rb-${createHash('sha256').update(stackName).digest('hex').slice(0, 12)}`;
}

/**
 * A private /24 for the stack's pods: 10.233.N.0/24 with N from the stack name, moved on past any
 * subnet the host already routes (from `ip -4 route` output), so two stacks never share a bridge net.
 */
export function pickSubnet(stackName: string, routes: string): string {
  const used = new Set<number>();
  for (const m of routes.matchAll(/\b10\.233\.(\d+)\./g)) used.add(Number(m[1]));
  const start = createHash('sha256').update(stackName).digest()[0]! % 200;
  for (let i = 0; i < 250; i++) {
    const n = 20 + ((start + i) % 230);
    if (!used.has(n)) return `10.233.${n}.0/24`;
  }
  throw new Error('no free 10.233.N.0/24 subnet left for a new stack');
}
