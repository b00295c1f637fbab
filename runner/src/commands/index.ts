import type { Command } from 'commander';
import { registerBisect } from './bisect.ts';
import { registerCheck } from './check.ts';
import { registerCluster } from './cluster.ts';
import { registerCompare } from './compare.ts';
import { registerData } from './data.ts';
import { registerInstall } from './install.ts';
import { registerPublish } from './publish.ts';
import { registerList } from './list.ts';
import { registerPlan } from './plan.ts';
import { registerRun } from './run.ts';
import { registerStack } from './stack.ts';
import { registerSweep } from './sweep.ts';
import { registerUninstall } from './uninstall.ts';
import { registerValidate } from './validate.ts';
import { registerVersion } from './version.ts';
import { registerVersions } from './versions.ts';

/** Each command lives in its own module and adds itself to the program. */
export type RegisterCommand = (program: Command) => void;

export const commandModules: RegisterCommand[] = [
  registerBisect,
  registerCheck,
  registerCompare,
  registerData,
  registerInstall,
  registerPublish,
  registerStack,
  registerRun,
  registerSweep,
  registerList,
  registerVersion,
  registerVersions,
  registerUninstall,
  registerValidate,
  registerPlan,
  registerCluster,
];
