// Builds the site for real (the astro CLI in a child process) from a data directory into an
// output directory, and returns what the build printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SITE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const ASTRO = fileURLToPath(new URL('../../node_modules/astro/bin/astro.mjs', import.meta.url));

export interface BuildResult {
  code: number | null;
  output: string;
  seconds: number;
}

export function buildSite(
  dataDir: string,
  outDir: string,
  env: Record<string, string> = {},
): Promise<BuildResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ASTRO, 'build', '--outDir', outDir], {
      cwd: SITE_DIR,
      env: { ...process.env, RB_DATA_DIR: dataDir, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, seconds: (performance.now() - started) / 1000 }));
  });
}
