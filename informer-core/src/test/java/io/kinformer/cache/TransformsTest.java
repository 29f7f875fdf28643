package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransformsTest {

  @Test
  void stripManagedFields_removesThemAndKeepsTheRest() {
    Pod p = TestPods.pod("ns", "a");
    p.getMetadata().setManagedFields(List.of(new ManagedFieldsEntryBuilder().withManager("kubectl").build()));
    Pod out = Transforms.<Pod>stripManagedFields().apply(p);
    assertThat(out).isSameAs(p);
    assertThat(out.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(out.getMetadata().getName()).isEqualTo("a");
  }
}
