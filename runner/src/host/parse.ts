// Pure parsers over the text of /proc and /etc files; host/fingerprint.ts does the reading.

/** PRETTY_NAME (or NAME VERSION) from /etc/os-release. */
export function parseOsRelease(text: string): string {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) fields.set(m[1]!, m[2]!.replace(/^"(.*)"$/, '$1'));
  }
  return (
    fields.get('PRETTY_NAME') ??
    [fields.get('NAME'), fields.get('VERSION')].filter(Boolean).join(' ') ??
    'unknown'
  );
}

/** The CPU model name and whether the kernel runs under a hypervisor, from /proc/cpuinfo. */
export function parseCpuinfo(text: string): { model: string; hypervisor: boolean } {
  const model =
    /^model name\s*:\s*(.+)$/m.exec(text)?.[1]?.trim() ?? /^Processor\s*:\s*(.+)$/m.exec(text)?.[1]?.trim();
  const flags = /^flags\s*:\s*(.+)$/m.exec(text)?.[1]?.split(/\s+/) ?? [];
  return { model: model ?? 'unknown', hypervisor: flags.includes('hypervisor') };
}

/** CapEff from /proc/<pid>/status as a hex string. */
export function parseCapEff(statusText: string): string {
  const m = /^CapEff:\s*([0-9a-fA-F]+)$/m.exec(statusText);
  if (!m) throw new Error('no CapEff line in /proc/self/status');
  return m[1]!.toLowerCase().replace(/^0+(?=.)/, '');
}

export const CAP_SYS_ADMIN = 21;
export const CAP_SYS_RESOURCE = 24;

export function hasCapability(capEffHex: string, bit: number): boolean {
  return ((BigInt(`0x${capEffHex}`) >> BigInt(bit)) & 1n) === 1n;
}

export interface CgroupLayout {
  mode: 'v1' | 'v2' | 'hybrid';
  /** Where the cgroup2 hierarchy is mounted, if anywhere. */
  v2Mount: string | null;
  /** v1 controllers that have a mounted hierarchy. */
  v1Controllers: string[];
}

/** One mounted cgroup hierarchy: a v1 one with its controllers, or the cgroup2 one. */
export interface CgroupHierarchy {
  mount: string;
  version: 1 | 2;
  /** v1: the controllers in its super options (a named hierarchy such as name=systemd has none). */
  controllers: string[];
}

/** Every mounted cgroup hierarchy, in mountinfo order, from /proc/self/mountinfo text. */
export function cgroupHierarchies(mountinfo: string): CgroupHierarchy[] {
  const out: CgroupHierarchy[] = [];
  for (const line of mountinfo.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const mount = line.slice(0, sep).split(' ')[4];
    const [fsType, , superOptions = ''] = line.slice(sep + 3).split(' ');
    if (!mount) continue;
    if (fsType === 'cgroup2') out.push({ mount, version: 2, controllers: [] });
    if (fsType === 'cgroup') {
      const controllers = superOptions
        .split(',')
        .filter((opt) => !['rw', 'ro'].includes(opt) && !opt.includes('=') && !opt.startsWith('name'));
      out.push({ mount, version: 1, controllers });
    }
  }
  return out;
}

/** Classifies the cgroup layout from /proc/self/mountinfo. */
export function parseCgroupLayout(mountinfo: string): CgroupLayout {
  const hierarchies = cgroupHierarchies(mountinfo);
  const v2Mount = hierarchies.find((h) => h.version === 2)?.mount ?? null;
  const v1Controllers = hierarchies.filter((h) => h.version === 1).flatMap((h) => h.controllers);
  const mode = v1Controllers.length === 0 ? 'v2' : v2Mount ? 'hybrid' : 'v1';
  return { mode, v2Mount, v1Controllers: [...new Set(v1Controllers)].sort() };
}

/** MemTotal in bytes from /proc/meminfo. */
export function parseMemTotal(meminfo: string): number {
  const m = /^MemTotal:\s*(\d+)\s*kB$/m.exec(meminfo);
  if (!m) throw new Error('no MemTotal line in /proc/meminfo');
  return Number(m[1]) * 1024;
}
