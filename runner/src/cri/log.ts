/**
 * The CRI container log format: one line per record, `<RFC3339Nano time> <stream> <tag> <content>`,
 * tag "F" for a full line and "P" for a partial one that continues in the next record.
 */
export interface LogRecord {
  time: string;
  stream: 'stdout' | 'stderr';
  line: string;
}

export function parseCriLog(text: string): LogRecord[] {
  const out: LogRecord[] = [];
  let pending: { time: string; stream: 'stdout' | 'stderr'; parts: string[] } | null = null;
  for (const raw of text.split('\n')) {
    if (!raw) continue;
    const m = /^(\S+) (stdout|stderr) ([FP]) ?(.*)$/.exec(raw);
    if (!m) continue; // not a CRI record (e.g. a truncated last line): ignore rather than misparse
    const [, time, stream, tag, content] = m as unknown as [
      string,
      string,
      'stdout' | 'stderr',
      'F' | 'P',
      string,
    ];
    if (!pending) pending = { time, stream, parts: [] };
    pending.parts.push(content);
    if (tag === 'F') {
      out.push({ time: pending.time, stream: pending.stream, line: pending.parts.join('') });
      pending = null;
    }
  }
  if (pending) out.push({ time: pending.time, stream: pending.stream, line: pending.parts.join('') });
  return out;
}

/** The container's stdout as plain text. */
export function stdoutOf(text: string): string {
  return parseCriLog(text)
    .filter((r) => r.stream === 'stdout')
    .map((r) => r.line)
    .join('\n');
}
