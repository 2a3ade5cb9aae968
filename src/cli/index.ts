/**
 * The `fhirgate` command line: `serve`, `check`, `export`, `sandbox`, and the config file they read.
 * @module
 */
export { main, COMMANDS } from './main.js';
export { runProcess } from './run-process.js';
export { UsageError, type ArgumentSpec, type CliIO, type Command, type OptionSpec, type OptionValues } from './command.js';
export { loadConfig } from './config/load-config.js';
export { validateConfig, type ConfigContext } from './config/validate-config.js';
export type { FhirgateConfig, GatewayConfig, ServiceMountConfig, CorsConfig } from './config/config-types.js';
export type { HandlerSetup, HandlerModuleContext } from './handler-module.js';
