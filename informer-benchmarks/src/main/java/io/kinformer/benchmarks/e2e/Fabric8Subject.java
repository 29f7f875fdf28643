package io.kinformer.benchmarks.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;

/**
 * The fabric8 kubernetes-client: {@code pods().inAnyNamespace().runnableInformer(0)} per informer,
 * handlers added before {@code start()}. Watches are plain chunked HTTP streams ({@code
 * onlyHttpWatches}), as for the other drivers: fabric8's default is a WebSocket watch, which
 * {@link PodServer} does not speak.
 *
 * <p>Transport: variant {@code full} (library {@code fabric8}) uses the JDK HttpClient transport,
 * which fabric8 prefers when it is on the class path (as here); variant {@code vertx} ({@code
 * fabric8:vertx}) uses the Vert.x 5 transport, fabric8 8.x's default when only its default
 * dependencies are present.
 *
 * <p>Thread safety: confine to the driver's main thread.
 */
final class Fabric8Subject implements Subject {

  private final String variant;
  private KubernetesClient client;
  private final List<SharedIndexInformer<Pod>> informers = new ArrayList<>();

  Fabric8Subject(String variant) {
    if (!variant.equals("full") && !variant.equals("vertx")) {
      throw new IllegalArgumentException("fabric8 variant must be full or vertx: " + variant);
    }
    this.variant = variant;
  }

  @Override
  public void connect(String serverUrl) {
    // Only the settings below, as for the other drivers: without this, fabric8's ConfigBuilder
    // also reads ~/.kube/config, the service account and KUBERNETES_* variables, so a kubeconfig on
    // the machine (a token, an exec credential plugin, a proxy-url) would apply to the fabric8 runs
    // alone. Its defaults are otherwise the same.
    System.setProperty(Config.KUBERNETES_DISABLE_AUTO_CONFIG_SYSTEM_PROPERTY, "true");
    KubernetesClientBuilder builder = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder().withMasterUrl(serverUrl).withNamespace("default")
            .withRequestTimeout(0).withOnlyHttpWatches(true).build());
    if (variant.equals("vertx")) {
      // A runtime dependency of kubernetes-client, not on the compile class path.
      try {
        builder.withHttpClientFactory((HttpClient.Factory) Class.forName(
                "io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory")
            .getDeclaredConstructor().newInstance());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("fabric8's Vert.x 5 transport is not on the class path", e);
      }
    }
    client = builder.build();
  }

  @Override
  public void start(Sink sink, int count, int handlers) {
    for (int i = 0; i < count; i++) {
      SharedIndexInformer<Pod> informer = client.pods().inAnyNamespace().runnableInformer(0);
      for (int h = 0; h < handlers; h++) {
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod obj) {
            sink.added();
          }

          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            sink.updated(newObj.getMetadata().getAnnotations());
          }

          @Override
          public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {}
        });
      }
      informers.add(informer);
    }
    for (SharedIndexInformer<Pod> informer : informers) {
      informer.start();
    }
  }

  @Override
  public boolean synced() {
    for (SharedIndexInformer<Pod> informer : informers) {
      if (!informer.hasSynced()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    client.close();
  }
}
