package com.example.summary;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kinformer.cache.ApiException;
import io.kinformer.cache.Keys;
import io.kinformer.cache.Lister;
import io.kinformer.cache.ResourceEventHandlers;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.workqueue.RateLimiters;
import io.kinformer.workqueue.RateLimitingQueue;
import io.kinformer.workqueue.Reconciler;
import io.kinformer.workqueue.Workers;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps, for every Deployment, a ConfigMap named {@code <deployment>-summary} in its namespace
 * that states the Deployment's replicas and first image; the ConfigMap goes when the Deployment
 * goes, and is put back if someone changes or deletes it.
 */
public final class DeploymentSummaryController implements AutoCloseable {

  /** The label that marks a summary, with the name of its Deployment as the value. */
  public static final String SUMMARY_OF = "example.com/summary-of";

  private final KubeClient client;
  private final Lister<Deployment> deployments;
  private final Lister<ConfigMap> configMaps;
  private final RateLimitingQueue<String> queue =
      RateLimitingQueue.create(RateLimiters.defaultControllerRateLimiter());
  private final Workers workers;

  public DeploymentSummaryController(KubeClient client, SharedInformerFactory factory) {
    this.client = client;
    SharedIndexInformer<Deployment> deploymentInformer = factory.informerFor(Deployment.class);
    SharedIndexInformer<ConfigMap> configMapInformer = factory.informerFor(ConfigMap.class);
    this.deployments = new Lister<>(deploymentInformer.getIndexer());
    this.configMaps = new Lister<>(configMapInformer.getIndexer());
    deploymentInformer.addEventHandler(
        ResourceEventHandlers.onAnyChange(d -> queue.add(Keys.metaNamespaceKey(d))));
    configMapInformer.addEventHandler(ResourceEventHandlers.onAnyChange(this::enqueueOwner));
    this.workers = Workers.builder("deployment-summary", queue, this::reconcile).threads(2).build();
  }

  /** Starts the workers; call it after the factory's caches have synced. */
  public void start() {
    workers.start();
  }

  @Override
  public void close() {
    workers.close();
  }

  private void enqueueOwner(ConfigMap cm) {
    Map<String, String> labels = cm.getMetadata().getLabels();
    String owner = labels == null ? null : labels.get(SUMMARY_OF);
    if (owner != null) {
      queue.add(cm.getMetadata().getNamespace() + "/" + owner);
    }
  }

  private Reconciler.Result reconcile(String key) {
    Keys.NamespacedName name = Keys.split(key);
    String summaryName = name.name() + "-summary";
    Optional<Deployment> deployment = deployments.namespace(name.namespace()).get(name.name());
    Optional<ConfigMap> actual = configMaps.namespace(name.namespace()).get(summaryName);
    var inNamespace = client.resources(ConfigMap.class).inNamespace(name.namespace());
    if (deployment.isEmpty()) {
      if (actual.isPresent()) {
        inNamespace.delete(summaryName);
      }
      return Reconciler.Result.done();
    }
    ConfigMap desired = summaryOf(deployment.get(), summaryName);
    try {
      if (actual.isEmpty()) {
        inNamespace.create(desired);
      } else if (!desired.getData().equals(actual.get().getData())) {
        desired.getMetadata().setResourceVersion(actual.get().getMetadata().getResourceVersion());
        inNamespace.update(desired);
      }
    } catch (ApiException e) {
      if (e.code() == 409) { // changed meanwhile, or created by a previous attempt: look again
        return Reconciler.Result.requeue();
      }
      throw e; // retried with backoff
    }
    return Reconciler.Result.done();
  }

  private static ConfigMap summaryOf(Deployment d, String summaryName) {
    Integer replicas = d.getSpec().getReplicas();
    var containers = d.getSpec().getTemplate().getSpec().getContainers();
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(d.getMetadata().getNamespace())
        .withName(summaryName)
        .addToLabels(SUMMARY_OF, d.getMetadata().getName())
        .endMetadata()
        .withData(
            Map.of(
                "replicas", String.valueOf(replicas == null ? 1 : replicas),
                "image", containers.isEmpty() ? "" : containers.get(0).getImage()))
        .build();
  }
}
