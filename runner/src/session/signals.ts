// The one place the CLI answers SIGINT and SIGTERM while it measures. The first signal aborts the
// session's AbortSignal (every run obeys it: the repetition in flight ends, the stacks go down, a
// partial result is written); a second one is told that cleaning up is still going on, because a
// second Ctrl-C that killed the process would leave the stacks behind.

/** What the process-level signal source looks like (process, or a test's EventEmitter). */
export interface SignalSource {
  on(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
}

/**
 * Runs `body` with SIGINT and SIGTERM turned into an abort of the signal it receives; the
 * listeners are removed when `body` settles, whatever happened. `say` prints one line to the user.
 */
export async function withStopSignals<T>(
  say: (line: string) => void,
  body: (signal: AbortSignal) => Promise<T>,
  source: SignalSource = process,
): Promise<T> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      say(`${signal} again: still cleaning up, please wait`);
      return;
    }
    say(`${signal}: stopping after the current call, cleaning up, writing a partial result`);
    controller.abort(signal);
  };
  source.on('SIGINT', onSignal);
  source.on('SIGTERM', onSignal);
  try {
    return await body(controller.signal);
  } finally {
    source.off('SIGINT', onSignal);
    source.off('SIGTERM', onSignal);
  }
}
