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

/** Classifies the cgroup layout from /proc/self/mountinfo. */
export function parseCgroupLayout(mountinfo: string): CgroupLayout {
  let v2Mount: string | null = null;
  const v1Controllers: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    const mountPoint = left[4];
    const fsType = right[0];
    const superOptions = right[2] ?? '';
    if (!mountPoint) continue;
    if (fsType === 'cgroup2') v2Mount ??= mountPoint;
    if (fsType === 'cgroup') {
      for (const opt of superOptions.split(',')) {
        if (!['rw', 'ro'].includes(opt) && !opt.includes('=') && !opt.startsWith('name'))
          v1Controllers.push(opt);
      }
    }
  }
  const mode = v1Controllers.length === 0 ? 'v2' : v2Mount ? 'hybrid' : 'v1';
  return { mode, v2Mount, v1Controllers: [...new Set(v1Controllers)].sort() };
}

/** MemTotal in bytes from /proc/meminfo. */
export function parseMemTotal(meminfo: string): number {
  const m = /^MemTotal:\s*(\d+)\s*kB$/m.exec(meminfo);
  if (!m) throw new Error('no MemTotal line in /proc/meminfo');
  return Number(m[1]) * 1024;
}
