package io.kinformer.modulepath;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.List;

/**
 * Starts an embedded API server over TLS (h2), syncs a ConfigMap informer against it and prints
 * what ModulePathTest checks: the modules the classes came from, whether the internal packages
 * are exported, and the decoded object.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws Exception {
    Module client = KubeClient.class.getModule();
    System.out.println("module " + client.getName());
    System.out.println("internal exported " + client.isExported("io.kinformer.client.internal.codec"));
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().tls(true).start()) {
      server.create(
          new ConfigMapBuilder()
              .withNewMetadata()
              .withNamespace("default")
              .withName("seed")
              .endMetadata()
              .addToData("greeting", "hello")
              .build());
      try (KubeClient kube = KubeClient.create(KubeConfig.load(server.kubeConfig()));
          SharedInformerFactory factory = SharedInformerFactory.builder(kube).build()) {
        SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
        factory.start();
        if (!factory.waitForCacheSync(Duration.ofSeconds(30))) {
          throw new IllegalStateException("the ConfigMap informer did not sync");
        }
        List<ConfigMap> cached = configMaps.getStore().list();
        System.out.println("synced " + cached.size() + " " + cached.get(0).getMetadata().getName()
            + " greeting=" + cached.get(0).getData().get("greeting"));
      }
    }
  }
}
