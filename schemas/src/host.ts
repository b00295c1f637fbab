import { z } from 'zod';

/** A change the tool made to (or found missing on) the host so that the stack can run. */
export const HostFixSchema = z.strictObject({
  id: z.string().min(1).meta({ description: 'stable identifier, e.g. "restrict-oom-score-adj"' }),
  condition: z.string().min(1).meta({ description: 'what was detected on the host' }),
  action: z.string().min(1).meta({ description: 'what was done, or what the user must do' }),
  applied: z.boolean().meta({ description: 'true when the tool applied the fix' }),
});
export type HostFix = z.output<typeof HostFixSchema>;

/** Everything about the machine that can change a number, recorded with every result. */
export const HostFingerprintSchema = z.strictObject({
  hostname: z.string(),
  kernel: z.string().min(1).meta({ description: 'uname -r' }),
  os: z.string().min(1).meta({ description: 'PRETTY_NAME of /etc/os-release' }),
  arch: z.string().min(1),
  cpuModel: z.string().min(1),
  cpus: z.int().positive().meta({ description: 'online logical CPUs' }),
  memoryBytes: z.int().positive(),
  virtualization: z
    .string()
    .nullable()
    .meta({ description: 'hypervisor vendor from /proc/cpuinfo flags, if any' }),
  cgroup: z.strictObject({
    mode: z.enum(['v1', 'v2', 'hybrid']),
    v2Controllers: z.array(z.string()).meta({ description: 'controllers available on the cgroup2 mount' }),
  }),
  capabilities: z.strictObject({
    effective: z
      .string()
      .regex(/^[0-9a-f]+$/)
      .meta({ description: 'CapEff from /proc/self/status' }),
    sysAdmin: z.boolean(),
    sysResource: z.boolean(),
  }),
  hostFixes: z.array(HostFixSchema),
});
export type HostFingerprint = z.output<typeof HostFingerprintSchema>;

/**
 * Hosts whose numbers may be compared with each other: same CPU model, core count, kernel major
 * version and cgroup mode. Derived, never stored, so that the rule can improve without migrations.
 */
export function hostClassOf(host: HostFingerprint): string {
  const kernelMajor = host.kernel.split('.')[0] ?? host.kernel;
  return `${host.cpuModel} · ${host.cpus} CPU · Linux ${kernelMajor} · cgroup ${host.cgroup.mode}`;
}
