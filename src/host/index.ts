/**
 * The application host: `createServiceAPI`, dependency tokens, `reply`, and the default logger.
 * @module
 */
export { createServiceAPI, ServiceAPI } from './app.js';
export type { MountOptions } from './app.js';
export type { CORSOptions } from './cors.js';
export type { CustomHandler, CustomRouteOptions, QueryParameterSpec } from './custom-route.js';
export { getAllGateways, getApp, getGateway } from './inject.js';
export type { Deps, InjectMap, Token } from './inject.js';
export { bindLogger, createJSONLogger } from './logger.js';
export type { JSONLoggerOptions, LogLevel } from './logger.js';
export type { ServiceAPIOptions } from './options.js';
export { reply } from './reply.js';
export type { Reply } from './reply.js';
export type { RouteContext } from './request-context.js';
export { TrieRouter } from './router.js';
export type { RouteMatch, Router } from './router.js';
