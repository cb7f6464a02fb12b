import { publishEvent } from '../engine/events'
import type { ChannelKind, EventName, Payload, Topic } from './eventCatalogue'

export { type ChannelKind, catalogue, type Payload, type Topic, topics } from './eventCatalogue'

/**
 * Publishes one event of the catalogue (actors/eventCatalogue.ts) after the commit it reports:
 * the event must exist on the topic's channel kind and the payload must be its type. No check at
 * run time: the types are the contract, and the transport encodes the payload once as before.
 */
export const publish = <K extends ChannelKind, E extends EventName<K>>(
  topic: Topic<K>,
  event: E,
  payload: Payload<K, E>,
) => publishEvent(topic, event, payload)
