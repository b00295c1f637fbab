// Why a run stopped before its end, the same for every target kind: what the result says about it
// (incompleteReason) and the exit status the CLI gives it.
import { EXIT } from '../exit-codes.ts';

/** Why a run stopped before its end: a signal, or an endpoint that died under it. */
export type StopCause = { kind: 'signal'; signal: string } | { kind: 'endpoint-dead'; cause: string };

/** Exit status of a run stopped because its CRI endpoint died (sysexits' EX_UNAVAILABLE). */
export const EXIT_ENDPOINT_DEAD = EXIT.endpointDead.code;

/** The abort reason a target kind gives the run's signal when its endpoint died. */
export class EndpointDead {
  readonly cause: string;
  constructor(cause: string) {
    this.cause = cause;
  }
}

/** The stop cause of an aborted run signal (a signal name as reason, or EndpointDead); null if not aborted. */
export function stopCause(signal: AbortSignal): StopCause | null {
  if (!signal.aborted) return null;
  const reason: unknown = signal.reason;
  if (reason instanceof EndpointDead) return { kind: 'endpoint-dead', cause: reason.cause };
  return { kind: 'signal', signal: typeof reason === 'string' ? reason : 'a signal' };
}

/** The result's incompleteReason for a stop cause. */
export function describeStop(stop: StopCause): string {
  return stop.kind === 'signal' ? `interrupted by ${stop.signal}` : `CRI endpoint died: ${stop.cause}`;
}

/** The process exit status of a stopped run: 143 for SIGTERM, 130 for other signals, 69 for a dead endpoint. */
export function stopExitCode(stop: StopCause): number {
  if (stop.kind === 'endpoint-dead') return EXIT_ENDPOINT_DEAD;
  return stop.signal === 'SIGTERM' ? EXIT.terminated.code : EXIT.interrupted.code;
}
