package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GroupVersionResource;
import org.junit.jupiter.api.Test;

class GvrTest {

  @Test
  void from_fabric8_keepsEveryPartAndTreatsNullGroupAsCore() {
    assertThat(Gvr.from(new GroupVersionResource("apps", "deployments", "v1")))
        .isEqualTo(Gvr.of("apps", "v1", "deployments"));
    assertThat(Gvr.from(new GroupVersionResource(null, "pods", "v1")))
        .isEqualTo(Gvr.of("", "v1", "pods"));
  }

  @Test
  void from_fabric8WithoutVersion_namesTheMissingPart() {
    assertThatThrownBy(() -> Gvr.from(new GroupVersionResource("apps", "deployments", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("version must not be empty");
  }

  @Test
  void toString_isApiVersionSlashResource() {
    assertThat(Gvr.of("", "v1", "pods")).hasToString("v1/pods");
    assertThat(Gvr.of("apps", "v1", "deployments")).hasToString("apps/v1/deployments");
  }
}
