package io.kinformer.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class PodsTest {

  private final JsonMapper mapper = Pods.mapper();

  @Test
  void pod_encodesToTwoToFourKilobytesOfJson() {
    for (int i = 0; i < 200; i++) {
      byte[] json = mapper.writeValueAsBytes(Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i));
      assertThat(json.length).as("pod %d", i).isBetween(2048, 4096);
    }
  }

  @Test
  void pod_isAPureFunctionOfIndexAndVersion() {
    assertThat(Pods.pod(7, 42)).isEqualTo(Pods.pod(7, 42));
    assertThat(Pods.pod(7, 42)).isNotEqualTo(Pods.pod(8, 42));
  }

  @Test
  void pod_roundTripsThroughJackson() {
    Pod pod = Pods.pod(3, 99);
    Pod decoded = mapper.readValue(mapper.writeValueAsBytes(pod), Pod.class);
    assertThat(decoded).isEqualTo(pod);
    assertThat(decoded.getMetadata().getManagedFields()).hasSize(2);
    assertThat(decoded.getMetadata().getAnnotations().get(Pods.SENT_ANNOTATION))
        .hasSize(Pods.SENT_DIGITS);
  }

  @Test
  void pods_haveDistinctKeys() {
    assertThat(Pods.pods(1000).stream()
            .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
            .distinct())
        .hasSize(1000);
  }
}
