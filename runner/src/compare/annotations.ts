import { IsoDateTimeSchema } from '@runtime-bench/schemas';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { RbError, parseWithFriendlyErrors } from '../errors.ts';
import { jsonSyntaxProblem } from '../results/io.ts';
import { lineColumn } from '../util/position.ts';

/**
 * A baseline reset: from `from` on, runs started earlier are no longer a baseline (e.g. after
 * the runner's kernel was upgraded, or a deliberate change was accepted). Every field but
 * `from` and `reason` narrows what it applies to; absent means "all".
 */
export const BaselineResetSchema = z.strictObject({
  from: IsoDateTimeSchema.meta({ description: 'runs started before this instant stop being a baseline' }),
  reason: z.string().min(1).meta({ description: 'why, for the report: "runner kernel 6.8 → 6.11"' }),
  benchmark: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'a benchmark name or prefix, e.g. "operations" or "performance.cpu"' }),
  metric: z.string().min(1).optional().meta({ description: 'one metric name, e.g. "StartContainer"' }),
  target: z.string().min(1).optional().meta({ description: 'a target id, e.g. "containerd/runc"' }),
  hostClass: z.string().min(1).optional().meta({ description: 'a host class as printed by `check`' }),
});
export type BaselineReset = z.output<typeof BaselineResetSchema>;

/**
 * `annotations.json` (or `.yaml`) at the top of a history directory: what a human decided about
 * the history. Not part of the result schema; versioned on its own.
 */
export const AnnotationsSchema = z.strictObject({
  schemaVersion: z.literal(1),
  baselineResets: z.array(BaselineResetSchema).default([]),
  thresholds: z.record(z.string().min(1), z.number().min(0).max(1000)).default({}).meta({
    description:
      'regression thresholds in percent by "benchmark:metric" or "metric", e.g. {"StartContainer": 10}',
  }),
  referenceHandlers: z.array(z.string().min(1)).default([]).meta({
    description:
      'target ids of pinned reference handlers the nightly runs beside its targets, e.g. ["containerd-latest/runc-1.2.6"]: the other targets divide each metric by theirs the same night (check --reference)',
  }),
});
export type Annotations = z.output<typeof AnnotationsSchema>;

export const EMPTY_ANNOTATIONS: Annotations = {
  schemaVersion: 1,
  baselineResets: [],
  thresholds: {},
  referenceHandlers: [],
};

/** Whether a reset applies to this benchmark × target × metric (metric null: error rate, status). */
export function resetApplies(
  reset: BaselineReset,
  where: { benchmark: string; target: string; metric: string | null; hostClass: string },
): boolean {
  if (reset.benchmark !== undefined && !isPrefix(reset.benchmark, where.benchmark)) return false;
  if (reset.target !== undefined && reset.target !== where.target) return false;
  if (reset.hostClass !== undefined && reset.hostClass !== where.hostClass) return false;
  if (reset.metric !== undefined && reset.metric !== where.metric) return false;
  return true;
}

/**
 * The instant before which runs are no baseline for a run started at `startedAt`: the latest
 * applicable reset at or before it, or null when none applies.
 */
export function baselineCutoff(
  resets: readonly BaselineReset[],
  where: { benchmark: string; target: string; metric: string | null; hostClass: string },
  startedAt: string,
): BaselineReset | null {
  const at = Date.parse(startedAt);
  let best: BaselineReset | null = null;
  for (const reset of resets) {
    const from = Date.parse(reset.from);
    if (from > at || !resetApplies(reset, where)) continue;
    if (best === null || from > Date.parse(best.from)) best = reset;
  }
  return best;
}

/** "operations" is a prefix of "operations.container.lifecycle" (whole dot-separated words only). */
function isPrefix(prefix: string, name: string): boolean {
  return name === prefix || name.startsWith(`${prefix}.`);
}

/** Parses the text of an annotations file; `where` names it in every error line. */
export function parseAnnotations(text: string, where: string): Annotations {
  const yaml = /\.ya?ml$/.test(where);
  let data: unknown;
  try {
    // Positions only, never an excerpt: the file named may not be ours (--annotations /etc/passwd).
    data = yaml ? parseYaml(text, { prettyErrors: false }) : JSON.parse(text);
  } catch (error) {
    const problem =
      error instanceof YAMLParseError
        ? `${error.message} at ${lineColumn(text, error.pos[0])}`
        : jsonSyntaxProblem(error, text);
    throw new RbError(
      'ANNOTATIONS_INVALID',
      `${where}: cannot parse ${yaml ? 'YAML' : 'JSON'} (${problem})`,
      'fix the syntax',
    );
  }
  return parseWithFriendlyErrors(AnnotationsSchema, data, where, {
    code: 'ANNOTATIONS_INVALID',
    hint: 'see docs/statistics.md ("Annotations") for the format',
  });
}
