package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
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
}
