// How long a run has left, from the durations it measured so far: the current stage's own mean
// repetition time for what is left of it, and the run's mean for the stages still to come (their
// repetitions have not been timed yet). Pure over the progress events and a clock.
import type { ProgressEvent } from './orchestrate.ts';

export interface TimeLeftTracker {
  /** Feeds one progress event (start or outcome) seen at `nowMs`. */
  observe(event: ProgressEvent, nowMs: number): void;
  /** Milliseconds left after the latest event, or null until one repetition has been timed. */
  leftMs(): number | null;
}

export function timeLeftTracker(): TimeLeftTracker {
  const started = new Map<string, number>();
  const spent = new Map<string, { ms: number; count: number }>();
  let last: ProgressEvent | null = null;
  const keyOf = (e: ProgressEvent): string =>
    `${e.stage}\u0000${e.target}\u0000${e.benchmark}\u0000${e.repetition}`;
  return {
    observe(event, nowMs) {
      last = event;
      if (!event.outcome) {
        started.set(keyOf(event), nowMs);
        return;
      }
      const start = started.get(keyOf(event));
      if (start === undefined) return;
      started.delete(keyOf(event));
      const s = spent.get(event.stage) ?? { ms: 0, count: 0 };
      spent.set(event.stage, { ms: s.ms + (nowMs - start), count: s.count + 1 });
    },
    leftMs() {
      if (last === null) return null;
      let ms = 0;
      let count = 0;
      for (const s of spent.values()) {
        ms += s.ms;
        count += s.count;
      }
      if (count === 0) return null;
      const stage = spent.get(last.stage);
      const stageMean = stage && stage.count > 0 ? stage.ms / stage.count : ms / count;
      const stageLeft = Math.max(0, last.stageTotal - last.stageDone);
      const laterLeft = Math.max(0, last.total - last.done - stageLeft);
      return stageLeft * stageMean + laterLeft * (ms / count);
    },
  };
}

/** "≈ 12 s left", "≈ 3 min 05 s left", "≈ 1 h 02 min left". */
export function formatTimeLeft(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `≈ ${s} s left`;
  const min = Math.floor(s / 60);
  if (min < 60) return `≈ ${min} min ${String(s % 60).padStart(2, '0')} s left`;
  return `≈ ${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min left`;
}
