import { z } from 'zod';

/** Whether a smaller or a larger value of a metric is better; drives every comparison verdict. */
export const DirectionSchema = z.enum(['lower', 'higher']).meta({
  description: 'Which way is better for this metric: "lower" (latency, time) or "higher" (throughput).',
});
export type Direction = z.output<typeof DirectionSchema>;

/** Units a metric may be reported in. A closed list keeps the site's axes and conversions honest. */
export const UnitSchema = z.enum([
  'ns',
  'us',
  'ms',
  's',
  'events/s',
  'MiB/s',
  'bytes',
  'count',
  'ratio',
  'IOPS',
]);
export type Unit = z.output<typeof UnitSchema>;

/** Benchmark names are hierarchical: `context.component.facet` (TouchStone's convention). */
export const BenchmarkNameSchema = z.string().regex(/^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/, {
  message: 'a benchmark name is dot-separated lower-case words, e.g. "performance.cpu"',
});

export const IsoDateTimeSchema = z.iso.datetime({ offset: true });
