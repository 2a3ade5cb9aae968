/**
 * The contract between the application host and what it mounts: what a custom component implements.
 * @module
 */
export {
  MOUNT,
  type HTTPMethod,
  type Logger,
  type Mountable,
  type MountableComponent,
  type OpenAPIOperation,
  type OpenAPIParameter,
  type OpenAPIResponse,
  type OpenAPIPaths,
  type PublicError,
  type RefusedRequest,
  type Route,
  type RouteReply,
  type RouteRequest,
} from './contract.js';
export { json, jsonErrorReply } from './json.js';
