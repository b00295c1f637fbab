import type { Command } from 'commander';
import { RbError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { diagnose, hostReady, type Finding } from '../doctor/checks.ts';
import { probeHost } from '../doctor/probe.ts';
import { sanitizeTerminal } from '../format/escape.ts';

/** One line per finding, its fix indented under a warn or fail. */
export function doctorLines(findings: readonly Finding[]): string[] {
  const width = Math.max(...findings.map((f) => f.check.length));
  return findings.flatMap((f) => [
    `${f.level.toUpperCase().padEnd(4)}  ${f.check.padEnd(width)}  ${f.detail}`,
    ...(f.fix && f.level !== 'ok' ? [`${' '.repeat(6 + width)}  fix: ${f.fix}`] : []),
  ]);
}

/** `runtime-bench doctor`: is this host ready, and quiet enough, to measure on. */
export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .option('--json', 'print the findings as JSON')
    .action(async (opts: { json?: boolean }) => {
      const findings = diagnose(await probeHost());
      const ready = hostReady(findings);
      if (opts.json) console.log(JSON.stringify({ ready, findings }, null, 2));
      else {
        // Version strings come from the host's binaries: never let them drive the terminal.
        for (const line of doctorLines(findings)) console.log(sanitizeTerminal(line));
        const warns = findings.filter((f) => f.level === 'warn').length;
        console.log(
          `\n${ready ? 'ready' : 'NOT ready'}: ${findings.filter((f) => f.level === 'fail').length} fail, ${warns} warn`,
        );
      }
      if (!ready)
        throw new RbError(
          'HOST_NOT_READY',
          'this host is not ready to measure on',
          'each FAIL line above says the fix',
          { exitCode: EXIT.hostNotReady.code },
        );
    });
}
