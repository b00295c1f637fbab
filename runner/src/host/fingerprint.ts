import { readFile } from 'node:fs/promises';
import { availableParallelism, hostname, release, arch } from 'node:os';
import type { HostFingerprint, HostFix } from '@runtime-bench/schemas';
import {
  CAP_SYS_ADMIN,
  CAP_SYS_RESOURCE,
  hasCapability,
  parseCapEff,
  parseCgroupLayout,
  parseCpuinfo,
  parseMemTotal,
  parseOsRelease,
} from './parse.ts';

async function readOr(path: string, fallback: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return fallback;
  }
}

/** Reads the host's fingerprint; `hostFixes` are the fixes the stack recorded when it came up. */
export async function readHostFingerprint(hostFixes: HostFix[]): Promise<HostFingerprint> {
  const [osRelease, cpuinfo, status, mountinfo, meminfo] = await Promise.all([
    readOr('/etc/os-release', ''),
    readOr('/proc/cpuinfo', ''),
    readFile('/proc/self/status', 'utf8'),
    readFile('/proc/self/mountinfo', 'utf8'),
    readFile('/proc/meminfo', 'utf8'),
  ]);
  const cpu = parseCpuinfo(cpuinfo);
  const capEff = parseCapEff(status);
  const cgroup = parseCgroupLayout(mountinfo);
  const v2Controllers = cgroup.v2Mount
    ? (await readOr(`${cgroup.v2Mount}/cgroup.controllers`, '')).trim().split(/\s+/).filter(Boolean)
    : [];
  return {
    hostname: hostname(),
    kernel: release(),
    os: parseOsRelease(osRelease) || 'unknown',
    arch: arch(),
    cpuModel: cpu.model,
    cpus: availableParallelism(),
    memoryBytes: parseMemTotal(meminfo),
    virtualization: cpu.hypervisor ? 'hypervisor' : null,
    cgroup: { mode: cgroup.mode, v2Controllers },
    capabilities: {
      effective: capEff,
      sysAdmin: hasCapability(capEff, CAP_SYS_ADMIN),
      sysResource: hasCapability(capEff, CAP_SYS_RESOURCE),
    },
    hostFixes,
  };
}
