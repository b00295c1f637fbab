// What a CNI network leaves in the host's iptables after its last container is gone: the portmap
// and firewall plugins create their shared chains (CNI-HOSTPORT-DNAT, CNI-FORWARD, …) and the
// jumps into them once, and never remove them. Pure: from `iptables-save` before the engine's
// network existed and after its teardown, the commands that remove the chains that are new, with
// the jumps into them. A table where a new chain still holds a container's rule — a DNAT (a live
// port mapping) or a match on one address (a live container's masquerade or forward rule) — is
// someone else's live network, which those shared chains serve: it is left as it is, and so is
// everything that was there before.

export interface SavedTable {
  chains: Set<string>;
  rules: { chain: string; args: string[] }[];
}

/** Splits one iptables-save rule line as the shell would (double quotes, backslash escapes). */
export function splitRule(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let any = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      any = true;
    } else if (ch === '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && /\s/.test(ch)) {
      if (any) out.push(cur);
      cur = '';
      any = false;
    } else {
      cur += ch;
      any = true;
    }
  }
  if (any) out.push(cur);
  return out;
}

/** `iptables-save` output by table: its user-defined chains and every rule. */
export function parseIptablesSave(text: string): Map<string, SavedTable> {
  const tables = new Map<string, SavedTable>();
  let table: SavedTable | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) {
      table = { chains: new Set(), rules: [] };
      tables.set(line.slice(1).trim(), table);
    } else if (table && line.startsWith(':')) {
      // `:NAME POLICY [p:b]`: built-in chains have a policy, user-defined ones "-".
      const [name, policy] = line.slice(1).split(/\s+/);
      if (name && policy === '-') table.chains.add(name);
    } else if (table && line.startsWith('-A ')) {
      const [, chain, ...args] = splitRule(line);
      if (chain) table.rules.push({ chain, args });
    }
  }
  return tables;
}

/** A rule of one container: a port mapping's DNAT, or a match on one address. */
function containerRule(args: readonly string[]): boolean {
  return args.some(
    (a, i) =>
      (a === 'DNAT' && /^(-j|--jump)$/.test(args[i - 1] ?? '')) ||
      (/^(-s|-d|--source|--destination)$/.test(args[i - 1] ?? '') && /\/(32|128)$/.test(a)),
  );
}

const targetOf = (args: readonly string[]): string | null => {
  const i = args.findIndex((a) => a === '-j' || a === '--jump' || a === '-g' || a === '--goto');
  return i >= 0 ? (args[i + 1] ?? null) : null;
};

/**
 * The iptables argument lists that remove what `after` holds beyond `before` and nobody uses:
 * first the jumps into those chains, then the chains (flushed, then deleted).
 */
export function leftoverCommands(before: string, after: string): string[][] {
  const old = parseIptablesSave(before);
  const commands: string[][] = [];
  for (const [name, table] of parseIptablesSave(after)) {
    const existed = old.get(name)?.chains ?? new Set<string>();
    const removable = new Set([...table.chains].filter((c) => !existed.has(c)));
    // In a new chain, or jumping into one (the bridge plugin's masquerade: `-A POSTROUTING -s <ip>/32 -j CNI-…`).
    const live = table.rules.some(
      (r) => (removable.has(r.chain) || removable.has(targetOf(r.args) ?? '')) && containerRule(r.args),
    );
    if (removable.size === 0 || live) continue;
    for (const r of table.rules)
      if (!removable.has(r.chain) && removable.has(targetOf(r.args) ?? ''))
        commands.push(['-t', name, '-D', r.chain, ...r.args]);
    for (const c of removable) commands.push(['-t', name, '-F', c]);
    for (const c of removable) commands.push(['-t', name, '-X', c]);
  }
  return commands;
}
