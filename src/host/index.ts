/**
 * The application host: `createServiceAPI`, dependency tokens, `reply`, and the default logger.
 * @module
 */
export type { CORSOptions } from './cors.js';
export type { CustomHandler, CustomRouteOptions, QueryParameterSpec } from './custom-route.js';
export { type MountOptions, ServiceAPI, createServiceAPI } from './app.js';
export { type Reply, reply } from './reply.js';
export type { OpenAPIExamples, OperationExample } from './openapi-examples.js';
export type { RouteContext } from './request-context.js';
export type { ServiceAPIOptions } from './options.js';
export { createJSONLogger, type JSONLoggerOptions, type LogLevel } from './logger.js';
export type { Readiness } from './default-routes.js';
export type { MetricFamily, Sample, Labels } from './prometheus.js';
export { getAllGateways, getApp, getGateway } from './inject.js';
