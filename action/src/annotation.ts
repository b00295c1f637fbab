// A workflow annotation as the action emits it, and its rank among the others: shared by the
// summary that makes them (summary.ts) and the caps that choose which are shown (step-summary.ts).

/** One workflow annotation: its level, title and message. */
export interface Annotation {
  level: 'error' | 'warning';
  title: string;
  message: string;
}

/** An annotation with its rank: lower is more important (shown first, never the one left out). */
export interface RankedAnnotation extends Annotation {
  rank: number;
}
