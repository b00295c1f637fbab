import { defineConfig } from 'vitest/config';

// The runners this tool targets (and CI, which runs the integration project beside CPU hogs) are
// shared and loaded: vitest's 5 s default is a wall-time bet such a machine loses. Every project
// gets an explicit budget; a test that spawns processes or builds sets its own, larger one.
const budget = { testTimeout: 120_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    passWithNoTests: true,
    projects: [
      { test: { name: 'schemas', root: 'schemas', include: ['test/**/*.test.ts'], ...budget } },
      { test: { name: 'runner', root: 'runner', include: ['test/unit/**/*.test.ts'], ...budget } },
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
      { test: { name: 'action', root: 'action', include: ['test/**/*.test.ts'], ...budget } },
      { test: { name: 'site', root: 'site', include: ['test/**/*.test.ts'], ...budget } },
    ],
  },
});
