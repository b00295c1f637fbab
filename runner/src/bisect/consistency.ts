// The bisection's consistency check, pure: a candidate between good and bad in history must
// measure between them. One whose effect against good lies outside the ends' span beyond the
// intervals (below good, or beyond bad) says the ends and the candidate are not alike but for the
// change: built another way (recipe, toolchain), or a second change — and the search stops
// ("non-monotonic") instead of following a verdict that cannot mean what it says.
import type { BisectCandidate, ComponentBuild, RatioInterval } from '@runtime-bench/schemas';
import { formatEffect } from './format.ts';

/**
 * Whether the candidate lies outside the span of good (ratio 1) and bad (bad / good) beyond its
 * intervals: candidate / good's interval wholly below min(1, bad / good's lower end) or above
 * max(1, its upper end); or, read off the same rounds' paired intervals, candidate / good wholly
 * on the far side of 1 from bad (short of good), or bad / candidate wholly on the far side of 1
 * from where bad lies (beyond bad). Each interval is at the decision's level, so a candidate that
 * is one of the ends is called outside at that level's error at most.
 */
export function outsideEndsSpan(
  candidateVsGood: RatioInterval,
  badVsGood: RatioInterval,
  badVsCandidate: RatioInterval | null = null,
): boolean {
  const cg = candidateVsGood;
  const bc = badVsCandidate;
  const badUp = badVsGood.ratio >= 1;
  const shortOfGood = badUp ? cg.upper < 1 : cg.lower > 1;
  const beyondBad = bc !== null && (badUp ? bc.upper < 1 : bc.lower > 1);
  return (
    shortOfGood ||
    beyondBad ||
    cg.upper < Math.min(1, badVsGood.lower) ||
    cg.lower > Math.max(1, badVsGood.upper)
  );
}

/** The parts of a build record that shape the binary besides its source: what may differ between builds. */
export function buildDifferences(a: ComponentBuild, b: ComponentBuild): string[] {
  const differs: string[] = [];
  if (a.source !== b.source) differs.push(`source ${a.source} vs ${b.source}`);
  if (a.toolchain !== b.toolchain) differs.push(`toolchain ${a.toolchain} vs ${b.toolchain}`);
  const rules = (x: ComponentBuild) => [...x.rules].sort().join('; ');
  if (rules(a) !== rules(b)) differs.push(`recipe rules [${rules(a) || 'none'}] vs [${rules(b) || 'none'}]`);
  const env = (x: ComponentBuild) =>
    Object.entries(x.env)
      .sort(([k], [l]) => k.localeCompare(l))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  if (env(a) !== env(b)) differs.push(`build env [${env(a)}] vs [${env(b)}]`);
  // Commands differ by their version stamps (-X main.version=…) whatever else: compare without them.
  const steps = (x: ComponentBuild) => x.command.map((c) => c.replace(/-X \S+=\S+/g, '-X …')).join(' && ');
  if (steps(a) !== steps(b)) differs.push(`recipe commands "${steps(a)}" vs "${steps(b)}"`);
  return differs;
}

export interface Built {
  candidate: BisectCandidate;
  record: ComponentBuild | null;
}

/**
 * Why the search stops at a candidate outside the ends' span: its effect and the ends', and what
 * differs between its build and each end's (or that the records match: a second change, or drift
 * that the ends' re-measurement shows; or that there are no records to compare).
 */
export function nonMonotonicMessage(
  step: { candidate: BisectCandidate; effect: RatioInterval; badVsGood: RatioInterval },
  builds: { good: Built; candidate: Built; bad: Built },
): string {
  const badUp = step.badVsGood.ratio >= 1;
  const shortOfGood = badUp ? step.effect.ratio < 1 : step.effect.ratio > 1;
  const where = shortOfGood ? 'short of good' : 'beyond bad';
  const head = `non-monotonic: ${step.candidate.label} measures ${formatEffect(step.effect)} against good, ${where}, outside the ends' span (bad / good ${formatEffect(step.badVsGood)} in the same rounds)`;
  const against = (end: 'good' | 'bad'): string | null => {
    const e = builds[end].record;
    const c = builds.candidate.record;
    if (!e || !c) return null;
    const d = buildDifferences(e, c);
    return d.length === 0
      ? null
      : `its build differs from ${end}'s (${builds[end].candidate.label}): ${d.join(', ')}`;
  };
  const records = [builds.good, builds.candidate, builds.bad].every((b) => b.record !== null);
  const differs = [against('good'), against('bad')].filter((x): x is string => x !== null);
  const why =
    differs.length > 0
      ? differs.join('; ')
      : records
        ? 'the three build records match: a second change between the ends, or drift the ends do not share'
        : 'no build records to compare (installed, not built): the builds may differ';
  return `${head}; ${why}`;
}
