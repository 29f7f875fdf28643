package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceEventHandlersTest {

  @Test
  void onAnyChange_passesTheCurrentObjectOfEveryCall() {
    List<String> seen = new ArrayList<>();
    ResourceEventHandler<Pod> h =
        ResourceEventHandlers.onAnyChange(p -> seen.add(p.getMetadata().getResourceVersion()));
    h.onAdd(pod("ns", "a", "1"), true);
    h.onUpdate(pod("ns", "a", "1"), pod("ns", "a", "2"));
    h.onDelete(pod("ns", "a", "3"), true);
    assertThat(seen).containsExactly("1", "2", "3");
  }

  @Test
  void filtering_translatesCrossingsIntoAddsAndDeletes() {
    List<String> seen = new ArrayList<>();
    ResourceEventHandler<Pod> inner =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            seen.add("add " + obj.getMetadata().getResourceVersion());
          }

          @Override
          public void onUpdate(Pod o, Pod n) {
            seen.add("update " + n.getMetadata().getResourceVersion());
          }

          @Override
          public void onDelete(Pod obj, boolean unknown) {
            seen.add("delete " + obj.getMetadata().getResourceVersion());
          }
        };
    ResourceEventHandler<Pod> h =
        ResourceEventHandlers.filtering(
            p -> p.getMetadata().getLabels() != null && p.getMetadata().getLabels().containsKey("x"),
            inner);
    Pod without = pod("ns", "a", Map.of());
    without.getMetadata().setResourceVersion("1");
    Pod with = pod("ns", "a", Map.of("x", "y"));
    with.getMetadata().setResourceVersion("2");
    h.onAdd(without, false);
    h.onUpdate(without, with);
    h.onUpdate(with, with);
    h.onUpdate(with, without);
    h.onDelete(without, false);
    assertThat(seen).containsExactly("add 2", "update 2", "delete 2");
  }

  @Test
  void filtered_passesAcceptedEventsUnchanged_andDropsTheRest() {
    List<String> seen = new ArrayList<>();
    ResourceEventHandler<Pod> inner =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod obj, boolean initial) {
            seen.add("add " + obj.getMetadata().getName() + " " + initial);
          }

          @Override
          public void onUpdate(Pod o, Pod n) {
            seen.add("update " + o.getMetadata().getName() + " " + n.getMetadata().getName());
          }

          @Override
          public void onDelete(Pod obj, boolean unknown) {
            seen.add("delete " + obj.getMetadata().getName() + " " + unknown);
          }

          @Override
          public String toString() {
            return "inner";
          }
        };
    // Only objects named "keep", and updates into one: never translated into adds or deletes.
    ResourceEventHandler<Pod> h =
        ResourceEventHandlers.filtered(
            EventFilter.objects(p -> p.getMetadata().getName().startsWith("keep")), inner);
    h.onAdd(pod("ns", "keep"), true);
    h.onAdd(pod("ns", "drop"), false);
    h.onUpdate(pod("ns", "drop"), pod("ns", "keep"));
    h.onUpdate(pod("ns", "keep"), pod("ns", "drop"));
    h.onDelete(pod("ns", "keep"), true);
    h.onDelete(pod("ns", "drop"), false);
    assertThat(seen).containsExactly("add keep true", "update drop keep", "delete keep true");
    assertThat(h.toString()).startsWith("filtered(objects(").endsWith("), inner)");
  }

  @Test
  void apiException_classifiesByCode() {
    assertThat(new ApiException(409, "conflict").isConflict()).isTrue();
    assertThat(new ApiException(404, "gone").isNotFound()).isTrue();
    assertThat(new ApiException(410, "x").isResourceExpired()).isTrue();
    assertThat(new ApiException(500, "x").isConflict()).isFalse();
  }
}
