package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.cache.ApiException;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.ServedResource;
import org.junit.jupiter.api.Test;

/** A dynamic informer for a resource the server does not serve is refused, naming it. */
class UnknownResourceTest {

  @Test
  void resourceOfAnUnservedGroup_isRefusedNamingTheResourceAndWhatToCheck() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      assertThatThrownBy(
              () -> factory.informerFor(new Gvr("example.com", "v1", "widgets")))
          .isInstanceOf(ApiException.class)
          .hasMessageContaining("HTTP 404 NotFound")
          .hasMessageContaining("the server has no resource")
          .hasMessageContaining("widgets")
          .hasMessageContaining("serves no API example.com/v1")
          .hasMessageContaining("install the CustomResourceDefinition");
    }
  }

  @Test
  void unknownResourceOfAServedGroup_isRefusedListingTheGroupsResources() {
    try (EmbeddedApiServer server =
            EmbeddedApiServer.builder()
                .resource(ServedResource.namespaced("example.com", "v1", "Widget", "widgets"))
                .start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
      assertThatThrownBy(
              () -> factory.informerFor(new Gvr("example.com", "v1", "widget")))
          .isInstanceOf(ApiException.class)
          .hasMessageContaining("example.com/v1 does not list it (its resources: [widgets])");
    }
  }
}
