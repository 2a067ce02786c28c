/**
 * Metrics under WEB_CONCURRENCY (server/cluster.ts): the supervisor serves one scrape for all its
 * server processes, asking each for its registry over the cluster's IPC and adding them up
 * (prom-client's AggregatorRegistry: counters and histograms summed, the fleet-wide gauges by
 * their `aggregator`, e.g. `max`). Each process answers with its own registry.
 */
import { AggregatorRegistry, type Registry } from 'prom-client'

/** In a server process under the supervisor: its registry is what it answers with. */
export function answerMetricsRequests(registry: Registry): void {
  AggregatorRegistry.setRegistries(registry)
  // Constructing one registers this process's answer to the supervisor's requests.
  void new AggregatorRegistry()
}

/** In the supervisor: a scrape of every server process, added up. */
export function clusterScrape(): () => Promise<{ body: string; contentType: string }> {
  const aggregator = new AggregatorRegistry()
  return async () => ({ body: await aggregator.clusterMetrics(), contentType: aggregator.contentType })
}
