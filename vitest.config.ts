import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    passWithNoTests: true,
    projects: [
      { test: { name: 'schemas', root: 'schemas', include: ['test/**/*.test.ts'] } },
      {
        // Many unit tests spawn the CLI (about a second each when idle): an explicit budget, not
        // vitest's 5 s default that a loaded 2-core host breaks (a 3-spawn test took 5.0 s here).
        test: { name: 'runner', root: 'runner', include: ['test/unit/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        // Integration tests drive real containerd/runc/crun stacks as root: one file at a time,
        // each with its own private stack, so they never compete for the host's two cores.
        test: {
          name: 'integration',
          root: 'runner',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      { test: { name: 'action', root: 'action', include: ['test/**/*.test.ts'] } },
      { test: { name: 'site', root: 'site', include: ['test/**/*.test.ts'] } },
    ],
  },
});
