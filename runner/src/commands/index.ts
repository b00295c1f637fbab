import type { Command } from 'commander';
import { registerData } from './data.ts';
import { registerInstall } from './install.ts';
import { registerPublish } from './publish.ts';
import { registerStack } from './stack.ts';
import { registerUninstall } from './uninstall.ts';
import { registerValidate } from './validate.ts';

/** Each command lives in its own module and adds itself to the program. */
export type RegisterCommand = (program: Command) => void;

export const commandModules: RegisterCommand[] = [
  registerData,
  registerInstall,
  registerPublish,
  registerStack,
  registerUninstall,
  registerValidate,
];
