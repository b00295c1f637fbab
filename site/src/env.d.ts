/// <reference types="astro/client" />
/** The data directory, resolved by astro.config.ts. */
declare const __RB_DATA_DIR__: string;
