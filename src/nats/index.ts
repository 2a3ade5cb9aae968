/**
 * `fhirgate/nats`: fhirgate events onto NATS, over the user's own `nats` connection.
 * @module
 */
export {
  natsDispatcher,
  type CorePublishCounts,
  type JetStreamCounts,
  type JetStreamPublisher,
  type NatsDispatcherOptions,
  type NatsMode,
  type NatsPublisher,
} from './nats-dispatcher.js';
