package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.SharedInformerFactory;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.ServedResource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * docs/user-guide.md's typed custom resources: a fabric8 {@code CustomResource} subclass written as
 * fabric8's docs write one, with no Jackson annotation, listed, watched and cached.
 */
class TypedCustomResourceTest {

  // tag::typed-custom-resource[]
  @Group("example.com")
  @Version("v1")
  public static class Widget extends CustomResource<WidgetSpec, WidgetStatus> implements Namespaced {}

  public static class WidgetSpec {
    private int replicas;
    private String color;

    public int getReplicas() {
      return replicas;
    }

    public void setReplicas(int replicas) {
      this.replicas = replicas;
    }

    public String getColor() {
      return color;
    }

    public void setColor(String color) {
      this.color = color;
    }
  }
  // end::typed-custom-resource[]

  public static class WidgetStatus {
    private boolean ready;

    public boolean isReady() {
      return ready;
    }

    public void setReady(boolean ready) {
      this.ready = ready;
    }
  }

  @Test
  void typedCustomResource_isListedWatchedAndCached() {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder()
            .resource(ServedResource.namespaced("example.com", "v1", "Widget", "widgets"))
            .start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":"
          + "{\"name\":\"w1\",\"namespace\":\"default\"},\"spec\":{\"replicas\":3,\"color\":\"red\"},"
          + "\"status\":{\"ready\":true}}");
      // tag::typed-custom-resource-informer[]
      SharedIndexInformer<Widget> widgets = factory.informerFor(Widget.class);
      // end::typed-custom-resource-informer[]
      factory.start();
      assertThat(factory.waitForCacheSync(Duration.ofSeconds(30))).isTrue();

      Widget w1 = widgets.getIndexer().getByKey("default/w1").orElseThrow();
      assertThat(w1.getSpec().getReplicas()).isEqualTo(3);
      assertThat(w1.getSpec().getColor()).isEqualTo("red");
      assertThat(w1.getStatus().isReady()).isTrue();
      assertThat(w1.getKind()).isEqualTo("Widget");

      server.create("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":"
          + "{\"name\":\"w2\",\"namespace\":\"default\"},\"spec\":{\"replicas\":1}}");
      await().atMost(Duration.ofSeconds(30))
          .until(() -> widgets.getIndexer().getByKey("default/w2").isPresent());
      assertThat(widgets.getIndexer().getByKey("default/w2").orElseThrow().getSpec().getReplicas())
          .isEqualTo(1);
    }
  }
}
