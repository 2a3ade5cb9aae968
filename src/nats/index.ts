/**
 * `fhirgate/nats`: fhirgate events onto NATS, over the user's own `nats` connection.
 * @module
 */
export { natsDispatcher, type NatsDispatcherOptions, type NatsPublisher } from './nats-dispatcher.js';
