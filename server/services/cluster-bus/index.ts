/**
 * The cluster bus (docs/decisions/068): how one server process or worker tells the others. Redis
 * pub/sub with REDIS_URL (any number of servers and workers), in-process without. It carries, per
 * person, the phone calls' live events (for the call watch) and a START text that arrived (for the
 * opt-in screen), and, to every process, the sessions that ended (their sockets close). It is no
 * transport to the browser: the voice gateway's socket and the opt-in screen's event stream are,
 * and they listen here.
 */
import type { ClusterBus } from './bus'

export { memoryClusterBus, redisClusterBus, type BusSubscription, type CallWatchEvent, type ClusterBus, type SessionsEndedNotice } from './bus'

/** What the calls service publishes through (the composition root hands it the bus). */
export type BusPublisher = Pick<ClusterBus, 'publish'>
