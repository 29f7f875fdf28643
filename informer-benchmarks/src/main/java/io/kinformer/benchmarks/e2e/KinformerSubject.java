package io.kinformer.benchmarks.e2e;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.kinformer.cache.Informers;
import io.kinformer.cache.ListerWatcher;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.cache.Transforms;
import io.kinformer.client.ClientOptions;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * kinformer: {@link KubeClient} plus {@link SharedIndexInformer}s of all pods, sharing one
 * delivery pool, {@code Informers.newDeliveryExecutor}, as {@code SharedInformerFactory} shares
 * one. (The factory itself shares one
 * informer per resource and options, so it cannot give 50 informers of the same pods; building
 * them directly on the client's {@code ListerWatcher} with a shared pool is what the factory does
 * for 50 different resources.) Variants: {@code full} (typed
 * pods), {@code strip} ({@link Transforms#stripManagedFields()}), {@code meta} (metadata-only:
 * {@link PartialObjectMetadata}).
 *
 * <p>Thread safety: confine to the driver's main thread.
 */
final class KinformerSubject implements Subject {

  private final String variant;
  private KubeClient client;
  private final List<SharedIndexInformer<? extends HasMetadata>> informers = new ArrayList<>();
  private final ExecutorService delivery = Informers.newDeliveryExecutor("kinformer-delivery-");

  KinformerSubject(String variant) {
    if (!List.of("full", "strip", "meta").contains(variant)) {
      throw new IllegalArgumentException("unknown kinformer variant: " + variant);
    }
    this.variant = variant;
  }

  @Override
  public void connect(String serverUrl) {
    client = KubeClient.create(KubeConfig.builder().server(serverUrl).build(),
        ClientOptions.defaults());
  }

  @Override
  public void start(Sink sink, int count, int handlers) {
    for (int i = 0; i < count; i++) {
      if (variant.equals("meta")) {
        ListerWatcher<PartialObjectMetadata> lw = client
            .resources(ResourceType.metadataOnly(Pod.class)).inAnyNamespace().listerWatcher();
        informers.add(build("pods-" + i, lw, sink, handlers, false));
      } else {
        ListerWatcher<Pod> lw = client.resources(Pod.class).inAnyNamespace().listerWatcher();
        informers.add(build("pods-" + i, lw, sink, handlers, variant.equals("strip")));
      }
    }
    for (SharedIndexInformer<?> informer : informers) {
      informer.start();
    }
  }

  private <T extends HasMetadata> SharedIndexInformer<T> build(
      String name, ListerWatcher<T> lw, Sink sink, int handlers, boolean strip) {
    SharedIndexInformer<T> informer =
        SharedIndexInformer.builder(name, lw).deliveryExecutor(delivery).build();
    if (strip) {
      informer.setTransform(Transforms.stripManagedFields());
    }
    for (int h = 0; h < handlers; h++) {
      informer.addEventHandler(new ResourceEventHandler<T>() {
        @Override
        public void onAdd(T obj, boolean isInInitialList) {
          sink.added();
        }

        @Override
        public void onUpdate(T oldObj, T newObj) {
          sink.updated(newObj.getMetadata().getAnnotations());
        }
      });
    }
    return informer;
  }

  @Override
  public boolean synced() {
    for (SharedIndexInformer<?> informer : informers) {
      if (!informer.hasSynced()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    delivery.shutdown();
    client.close();
  }
}
