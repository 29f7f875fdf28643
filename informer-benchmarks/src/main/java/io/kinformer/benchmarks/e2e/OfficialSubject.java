package io.kinformer.benchmarks.e2e;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The official Kubernetes Java client ({@code io.kubernetes:client-java}): one {@link
 * SharedInformerFactory} per informer (the factory keeps one informer per type), all on one
 * {@link ApiClient} whose OkHttp read timeout is off, as the client's informer examples do.
 *
 * <p>Thread safety: confine to the driver's main thread.
 */
final class OfficialSubject implements Subject {

  private ApiClient apiClient;
  private final List<SharedInformerFactory> factories = new ArrayList<>();
  private final List<SharedIndexInformer<V1Pod>> informers = new ArrayList<>();

  @Override
  public void connect(String serverUrl) {
    apiClient = new ApiClient().setBasePath(serverUrl);
    apiClient.setHttpClient(
        apiClient.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
  }

  @Override
  public void start(Sink sink, int count, int handlers) {
    CoreV1Api api = new CoreV1Api(apiClient);
    for (int i = 0; i < count; i++) {
      SharedInformerFactory factory = new SharedInformerFactory(apiClient);
      SharedIndexInformer<V1Pod> informer = factory.sharedIndexInformerFor(
          params -> api.listPodForAllNamespaces()
              .resourceVersion(params.resourceVersion)
              .timeoutSeconds(params.timeoutSeconds)
              .watch(params.watch)
              .buildCall(null),
          V1Pod.class, V1PodList.class);
      for (int h = 0; h < handlers; h++) {
        informer.addEventHandler(new ResourceEventHandler<V1Pod>() {
          @Override
          public void onAdd(V1Pod obj) {
            sink.added();
          }

          @Override
          public void onUpdate(V1Pod oldObj, V1Pod newObj) {
            sink.updated(newObj.getMetadata().getAnnotations());
          }

          @Override
          public void onDelete(V1Pod obj, boolean deletedFinalStateUnknown) {}
        });
      }
      factories.add(factory);
      informers.add(informer);
    }
    factories.forEach(SharedInformerFactory::startAllRegisteredInformers);
  }

  @Override
  public boolean synced() {
    for (SharedIndexInformer<V1Pod> informer : informers) {
      if (!informer.hasSynced()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    factories.forEach(SharedInformerFactory::stopAllRegisteredInformers);
  }
}
