// The action's own cost on the runner: how long each step took (setup of Node and dependencies,
// install, stack up, the benchmark run), kept as `step<TAB>seconds<TAB>note` lines in the work
// directory by setup.sh and main.ts and printed in the job summary. Pure apart from `recordTiming`.
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Timing {
  step: string;
  seconds: number;
  note: string;
}

export const timingsFile = (workDir: string) => join(workDir, 'timings.tsv');

/** Parses the timings file; malformed lines are skipped (the numbers are informative only). */
export function parseTimings(text: string): Timing[] {
  return text
    .split('\n')
    .map((line) => line.split('\t'))
    .filter((f) => f.length >= 2 && f[0] !== '' && Number.isFinite(Number(f[1])))
    .map(([step, seconds, note]) => ({ step: step!, seconds: Number(seconds), note: note ?? '' }));
}

const OVERHEAD = new Set(['setup', 'install', 'up']);

/** Markdown table of the steps so far and the action's overhead (everything but the run itself). */
export function timingsMarkdown(timings: Timing[]): string {
  if (timings.length === 0) return '';
  const overhead = timings.filter((t) => OVERHEAD.has(t.step)).reduce((s, t) => s + t.seconds, 0);
  return [
    '## Runner-side cost',
    '',
    '| step | seconds | note |',
    '|---|---|---|',
    ...timings.map((t) => `| ${t.step} | ${t.seconds.toFixed(1)} | ${t.note.replace(/\|/g, '\\|')} |`),
    '',
    `Overhead before benchmarking (setup + install + stack up): ${overhead.toFixed(1)} s.`,
    '',
  ].join('\n');
}

export async function recordTiming(workDir: string, t: Timing): Promise<void> {
  await mkdir(workDir, { recursive: true });
  await appendFile(timingsFile(workDir), `${t.step}\t${t.seconds.toFixed(1)}\t${t.note}\n`);
}
