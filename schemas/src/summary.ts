import { z } from 'zod';

/**
 * Descriptive statistics of one metric's raw samples. Percentiles use linear interpolation
 * between order statistics (Hyndman & Fan type 7, the default of R and numpy).
 * `stdev` is the sample standard deviation (n - 1) and is null for a single sample.
 */
export const SummarySchema = z.strictObject({
  n: z.int().positive(),
  median: z.number(),
  mean: z.number(),
  stdev: z.number().nonnegative().nullable(),
  min: z.number(),
  max: z.number(),
  p90: z.number(),
  p99: z.number(),
});
export type Summary = z.output<typeof SummarySchema>;
