package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Filtered handlers on a running informer: each hears only of the events its filter passes. */
class FilteredHandlerInformerTest {

  private static final Duration RESYNC = Duration.ofMinutes(1);

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();

  /** Pod ns/web at a generation, with labels, in a phase: a fresh object for every change. */
  private static Pod web(long generation, Map<String, String> labels, String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withGeneration(generation)
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }

  /** Records each call as text: the kind of event, the generation(s) and the phase. */
  private static final class Recorder implements ResourceEventHandler<Pod> {
    final List<String> seen = new ArrayList<>();

    private static String state(Pod p) {
      return p.getMetadata().getGeneration() + "/" + p.getStatus().getPhase();
    }

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      seen.add("add " + state(obj) + (isInInitialList ? " initial" : ""));
    }

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      seen.add("update " + state(oldObj) + " -> " + state(newObj));
    }

    @Override
    public void onDelete(Pod obj, boolean finalStateUnknown) {
      seen.add("delete " + state(obj));
    }
  }

  @Test
  void filteredHandlers_receiveOnlyTheEventsTheirFiltersPass() {
    source.add(web(1, Map.of("app", "web"), "Pending"));
    try (SteppedInformer<Pod> i = new SteppedInformer<>("filtered", source, clock)) {
      Recorder all = new Recorder();
      Recorder specChanges = new Recorder();
      Recorder relabels = new Recorder();
      Recorder changesOfProdPods = new Recorder();
      i.informer.addEventHandler(all, RESYNC);
      i.informer.addEventHandler(
          ResourceEventHandlers.filtered(EventFilter.generationChanged(), specChanges), RESYNC);
      i.informer.addEventHandler(
          ResourceEventHandlers.filtered(EventFilter.labelsChanged(), relabels), RESYNC);
      i.informer.addEventHandler(
          ResourceEventHandlers.filtered(
              EventFilter.and(
                  EventFilter.labelsMatching(LabelSelector.parse("env=prod")),
                  EventFilter.resourceVersionChanged()),
              changesOfProdPods),
          RESYNC);
      i.start().settle();

      source.modify(web(1, Map.of("app", "web"), "Running")); // status only
      source.modify(web(2, Map.of("app", "web"), "Running")); // the spec
      source.modify(web(2, Map.of("app", "web", "env", "prod"), "Running")); // the labels
      i.settle();
      clock.advance(RESYNC); // every handler is due: a resync of web
      i.settle();
      source.delete(web(2, Map.of("app", "web", "env", "prod"), "Running"));
      i.settle();

      assertThat(all.seen)
          .containsExactly(
              "add 1/Pending initial",
              "update 1/Pending -> 1/Running",
              "update 1/Running -> 2/Running",
              "update 2/Running -> 2/Running",
              "update 2/Running -> 2/Running",
              "delete 2/Running");
      assertThat(specChanges.seen)
          .containsExactly(
              "add 1/Pending initial", "update 1/Running -> 2/Running", "delete 2/Running");
      assertThat(relabels.seen)
          .containsExactly(
              "add 1/Pending initial", "update 2/Running -> 2/Running", "delete 2/Running");
      // Labelled env=prod by the third change; the resync after it is dropped.
      assertThat(changesOfProdPods.seen)
          .containsExactly("update 2/Running -> 2/Running", "delete 2/Running");
    }
  }

  @Test
  void rememberingFilter_skipsResyncsAndForgetsDeletedObjects() {
    source.add(web(1, Map.of(), "Pending"));
    try (SteppedInformer<Pod> i = new SteppedInformer<>("remembering", source, clock)) {
      Recorder specChanges = new Recorder();
      RememberingEventFilter<Pod> filter =
          (RememberingEventFilter<Pod>) EventFilter.<Pod>generationChangedSinceAccepted(100);
      i.informer.addEventHandler(ResourceEventHandlers.filtered(filter, specChanges), RESYNC);
      i.start().settle();
      assertThat(filter.remembered()).isEqualTo(1);

      source.modify(web(2, Map.of(), "Pending"));
      i.settle();
      clock.advance(RESYNC);
      i.settle();
      source.delete(web(2, Map.of(), "Pending"));
      i.settle();

      assertThat(specChanges.seen)
          .containsExactly(
              "add 1/Pending initial", "update 1/Pending -> 2/Pending", "delete 2/Pending");
      assertThat(filter.remembered()).isZero();
    }
  }
}
