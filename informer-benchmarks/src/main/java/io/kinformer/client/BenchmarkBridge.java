package io.kinformer.client;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Benchmark-only access to a {@link ResourceClient} of a {@link KubeClient}, until {@code
 * KubeClient} offers one publicly. Lives in the benchmarks module (never published).
 *
 * <p>Thread safety: stateless.
 */
public final class BenchmarkBridge {

  private BenchmarkBridge() {}

  /** A resource client over {@code client}'s transport, as {@code KubeClient} would make one. */
  public static <T extends HasMetadata> ResourceClient<T> resources(
      KubeClient client, ResourceType<T> type) {
    return ResourceClient.create(client.httpClient(), client.baseUrl(), type, Codecs.newMapper());
  }
}
