package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kinformer.cache.ApiException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmbeddedApiServerTypedAccessTest {

  @Test
  void createAndUpdate_withModelObjects_returnTheStoredState() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      ConfigMap created =
          server.create(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("cm")
                  .withNamespace("default")
                  .endMetadata()
                  .withData(Map.of("a", "1"))
                  .build());
      assertThat(created.getMetadata().getUid()).isNotBlank();
      assertThat(created.getMetadata().getResourceVersion()).isNotBlank();

      created.setData(Map.of("a", "2"));
      ConfigMap updated = server.update(created);
      assertThat(updated.getData()).containsEntry("a", "2");
      assertThat(Long.parseLong(updated.getMetadata().getResourceVersion()))
          .isGreaterThan(Long.parseLong(created.getMetadata().getResourceVersion()));

      // A stale resourceVersion is a conflict, as over HTTP.
      assertThatThrownBy(() -> server.update(created))
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
      assertThatThrownBy(() -> server.create(created))
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
    }
  }

  @Test
  void getListAndDelete_withModelClasses() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      for (String name : new String[] {"b", "a"}) {
        server.create(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withData(Map.of("name", name))
                .build());
      }
      server.create(
          new NamespaceBuilder().withNewMetadata().withName("other").endMetadata().build());

      assertThat(server.get(ConfigMap.class, "default", "a"))
          .hasValueSatisfying(cm -> assertThat(cm.getData()).containsEntry("name", "a"));
      assertThat(server.get(ConfigMap.class, "default", "missing")).isEmpty();
      assertThat(server.get(Namespace.class, null, "other")).isPresent();
      assertThat(server.list(ConfigMap.class, "default"))
          .extracting(cm -> cm.getMetadata().getName())
          .containsExactly("a", "b");

      server.delete(server.get(ConfigMap.class, "default", "a").orElseThrow());

      assertThat(server.list(ConfigMap.class, null))
          .extracting(cm -> cm.getMetadata().getName())
          .containsExactly("b");
      ConfigMap b = server.get(ConfigMap.class, "default", "b").orElseThrow();
      server.delete(b);
      assertThatThrownBy(() -> server.delete(b))
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(404));
    }
  }
}
