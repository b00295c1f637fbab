/**
 * Parses sysbench 1.0.x report text into `section.key` → number, e.g.
 * "CPU speed.events per second", "General statistics.total time" (seconds),
 * "Latency (ms).95th percentile". Values with units ("0.0168s") lose the unit; the key says it.
 */
export function parseSysbenchReport(text: string): Map<string, number> {
  const values = new Map<string, number>();
  let section = '';
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\s+$/, '');
    if (!line.trim()) continue;
    const header = /^(\S.*):$/.exec(line);
    if (header) {
      section = header[1]!.trim();
      continue;
    }
    const kv = /^\s+([^:]+):\s+(-?[\d.]+(?:e[-+]?\d+)?)s?\b/.exec(line);
    if (kv && section) values.set(`${section}.${kv[1]!.trim()}`, Number(kv[2]));
  }
  return values;
}

export interface SysbenchCpuResult {
  eventsPerSecond: number;
  totalTimeSeconds: number;
  totalEvents: number;
  latencyAvgMs: number;
}

/** The numbers of a `sysbench cpu` run; throws naming the missing field when the report is incomplete. */
export function parseSysbenchCpu(text: string): SysbenchCpuResult {
  const v = parseSysbenchReport(text);
  const need = (key: string): number => {
    const value = v.get(key);
    if (value === undefined || !Number.isFinite(value)) {
      const tail = text.trim().split('\n').slice(-3).join(' | ');
      throw new Error(`sysbench output has no "${key}" (output ends: ${tail || '(empty)'})`);
    }
    return value;
  };
  return {
    eventsPerSecond: need('CPU speed.events per second'),
    totalTimeSeconds: need('General statistics.total time'),
    totalEvents: need('General statistics.total number of events'),
    latencyAvgMs: need('Latency (ms).avg'),
  };
}

/** Arguments of a sysbench cpu run in one of the two modes sysbench 1.x offers. */
export function sysbenchCpuArgs(
  p: { maxPrime: number; threads: number; timeSeconds: number; events: number },
  mode: 'time' | 'events',
): string[] {
  const bound =
    mode === 'time' ? [`--time=${p.timeSeconds}`, '--events=0'] : ['--time=0', `--events=${p.events}`];
  return ['cpu', `--cpu-max-prime=${p.maxPrime}`, `--threads=${p.threads}`, ...bound, 'run'];
}
