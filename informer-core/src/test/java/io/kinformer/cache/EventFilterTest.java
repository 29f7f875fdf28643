package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class EventFilterTest {

  private static Pod podWith(Consumer<Pod> edit) {
    Pod p = pod("ns", "a");
    edit.accept(p);
    return p;
  }

  private static Pod generation(long g) {
    return podWith(p -> p.getMetadata().setGeneration(g));
  }

  private static Pod labelled(long generation, Map<String, String> labels) {
    return podWith(
        p -> {
          p.getMetadata().setGeneration(generation);
          p.getMetadata().setLabels(labels);
        });
  }

  private static Pod noMetadata() {
    return new PodBuilder().build();
  }

  /** Asserts that {@code f} passes every add and every delete. */
  private static void assertPassesAddsAndDeletes(EventFilter<Pod> f) {
    Pod p = pod("ns", "a");
    assertThat(f.acceptsAdd(p, true)).as(f + " add").isTrue();
    assertThat(f.acceptsAdd(p, false)).as(f + " add").isTrue();
    assertThat(f.acceptsDelete(p, false)).as(f + " delete").isTrue();
    assertThat(f.acceptsDelete(p, true)).as(f + " delete").isTrue();
  }

  @Test
  void defaultMethods_acceptEverything() {
    EventFilter<Pod> f = new EventFilter<>() {};
    assertPassesAddsAndDeletes(f);
    assertThat(f.acceptsUpdate(pod("ns", "a"), pod("ns", "a"))).isTrue();
  }

  @Test
  void generationChanged_passesOnlyUpdatesThatChangeTheGeneration() {
    EventFilter<Pod> f = EventFilter.generationChanged();
    assertPassesAddsAndDeletes(f);
    assertThat(f.acceptsUpdate(generation(1), generation(2))).isTrue();
    assertThat(f.acceptsUpdate(generation(2), generation(2))).isFalse();
    Pod statusOnly = labelled(2, Map.of("x", "y"));
    statusOnly.getMetadata().setResourceVersion("9");
    assertThat(f.acceptsUpdate(generation(2), statusOnly)).isFalse();
    assertThat(f).hasToString("generationChanged");
  }

  @Test
  void generationChanged_absentGenerationIsZero_soObjectsWithoutOneNeverPass() {
    EventFilter<Pod> f = EventFilter.generationChanged();
    assertThat(f.acceptsUpdate(pod("ns", "a", "1"), pod("ns", "a", "2"))).isFalse();
    assertThat(f.acceptsUpdate(pod("ns", "a"), generation(0))).isFalse();
    assertThat(f.acceptsUpdate(pod("ns", "a"), generation(1))).isTrue();
  }

  @Test
  void changedFilters_countMissingMetadataAsEmpty_andRejectNullObjects() {
    List<EventFilter<Pod>> all =
        List.of(
            EventFilter.generationChanged(),
            EventFilter.resourceVersionChanged(),
            EventFilter.labelsChanged(),
            EventFilter.annotationsChanged(),
            EventFilter.finalizersChanged());
    for (EventFilter<Pod> f : all) {
      assertThat(f.acceptsUpdate(noMetadata(), noMetadata())).as(f.toString()).isFalse();
      assertThat(f.acceptsUpdate(noMetadata(), pod("ns", "a"))).as(f.toString()).isFalse();
      assertThat(f.acceptsUpdate(null, pod("ns", "a"))).as(f.toString()).isFalse();
      assertThat(f.acceptsUpdate(pod("ns", "a"), null)).as(f.toString()).isFalse();
      assertThat(f.acceptsAdd(noMetadata(), false)).as(f.toString()).isTrue();
      assertThat(f.acceptsDelete(noMetadata(), true)).as(f.toString()).isTrue();
    }
    assertThat(EventFilter.<Pod>generationChanged().acceptsUpdate(noMetadata(), generation(3)))
        .isTrue();
    assertThat(
            EventFilter.<Pod>labelsChanged()
                .acceptsUpdate(pod("ns", "a", Map.of("x", "y")), noMetadata()))
        .isTrue();
  }

  @Test
  void resourceVersionChanged_dropsResyncsOnly() {
    EventFilter<Pod> f = EventFilter.resourceVersionChanged();
    assertPassesAddsAndDeletes(f);
    Pod same = pod("ns", "a", "5");
    assertThat(f.acceptsUpdate(same, same)).isFalse();
    assertThat(f.acceptsUpdate(pod("ns", "a", "5"), pod("ns", "a", "5"))).isFalse();
    assertThat(f.acceptsUpdate(pod("ns", "a", "5"), pod("ns", "a", "6"))).isTrue();
    assertThat(f.acceptsUpdate(pod("ns", "a"), pod("ns", "a", "6"))).isTrue();
  }

  @Test
  void labelsChanged_comparesTheMaps_absentEqualsEmpty() {
    EventFilter<Pod> f = EventFilter.labelsChanged();
    assertPassesAddsAndDeletes(f);
    assertThat(f.acceptsUpdate(pod("ns", "a", Map.of("x", "1")), pod("ns", "a", Map.of("x", "2"))))
        .isTrue();
    assertThat(f.acceptsUpdate(pod("ns", "a", Map.of("x", "1")), pod("ns", "a", Map.of())))
        .isTrue();
    assertThat(f.acceptsUpdate(pod("ns", "a", Map.of("x", "1")), pod("ns", "a", Map.of("x", "1"))))
        .isFalse();
    assertThat(f.acceptsUpdate(podWith(p -> p.getMetadata().setLabels(null)), pod("ns", "a", Map.of())))
        .isFalse();
    assertThat(f.acceptsUpdate(labelled(1, Map.of("x", "1")), labelled(7, Map.of("x", "1"))))
        .isFalse();
  }

  @Test
  void annotationsChanged_comparesTheMaps_absentEqualsEmpty() {
    EventFilter<Pod> f = EventFilter.annotationsChanged();
    assertPassesAddsAndDeletes(f);
    Pod one = podWith(p -> p.getMetadata().setAnnotations(Map.of("note", "1")));
    Pod oneAgain = podWith(p -> p.getMetadata().setAnnotations(Map.of("note", "1")));
    Pod two = podWith(p -> p.getMetadata().setAnnotations(Map.of("note", "2")));
    Pod none = podWith(p -> p.getMetadata().setAnnotations(null));
    Pod empty = podWith(p -> p.getMetadata().setAnnotations(Map.of()));
    Pod oneRelabelled =
        podWith(
            p -> {
              p.getMetadata().setAnnotations(Map.of("note", "1"));
              p.getMetadata().setLabels(Map.of("x", "y"));
            });
    assertThat(f.acceptsUpdate(one, two)).isTrue();
    assertThat(f.acceptsUpdate(none, one)).isTrue();
    assertThat(f.acceptsUpdate(one, oneAgain)).isFalse();
    assertThat(f.acceptsUpdate(none, empty)).isFalse();
    assertThat(f.acceptsUpdate(one, oneRelabelled)).isFalse();
  }

  @Test
  void finalizersChanged_comparesTheLists_inOrder_absentEqualsEmpty() {
    EventFilter<Pod> f = EventFilter.finalizersChanged();
    assertPassesAddsAndDeletes(f);
    Pod ab = podWith(p -> p.getMetadata().setFinalizers(List.of("a", "b")));
    Pod abAgain = podWith(p -> p.getMetadata().setFinalizers(new ArrayList<>(List.of("a", "b"))));
    Pod ba = podWith(p -> p.getMetadata().setFinalizers(List.of("b", "a")));
    Pod a = podWith(p -> p.getMetadata().setFinalizers(List.of("a")));
    Pod none = podWith(p -> p.getMetadata().setFinalizers(null));
    Pod empty = podWith(p -> p.getMetadata().setFinalizers(new ArrayList<>()));
    assertThat(f.acceptsUpdate(ab, a)).isTrue();
    assertThat(f.acceptsUpdate(none, a)).isTrue();
    assertThat(f.acceptsUpdate(ab, ba)).isTrue();
    assertThat(f.acceptsUpdate(ab, abAgain)).isFalse();
    assertThat(f.acceptsUpdate(none, empty)).isFalse();
  }

  @Test
  void changedAndUpdates_testAnyPartOfAnUpdate() {
    EventFilter<Pod> nodeChanged =
        EventFilter.changed(p -> p.getSpec() == null ? null : p.getSpec().getNodeName());
    Pod unscheduled = pod("ns", "a");
    Pod onNode1 = podWith(p -> p.setSpec(new PodSpec()));
    onNode1.getSpec().setNodeName("node-1");
    assertPassesAddsAndDeletes(nodeChanged);
    assertThat(nodeChanged.acceptsUpdate(unscheduled, onNode1)).isTrue();
    assertThat(nodeChanged.acceptsUpdate(onNode1, onNode1)).isFalse();
    assertThat(nodeChanged.acceptsUpdate(unscheduled, pod("ns", "a"))).isFalse();

    EventFilter<Pod> growing =
        EventFilter.updates(
            (o, n) -> n.getMetadata().getLabels().size() > o.getMetadata().getLabels().size());
    assertPassesAddsAndDeletes(growing);
    assertThat(growing.acceptsUpdate(pod("ns", "a", Map.of()), pod("ns", "a", Map.of("x", "y"))))
        .isTrue();
    assertThat(growing.acceptsUpdate(pod("ns", "a", Map.of("x", "y")), pod("ns", "a", Map.of())))
        .isFalse();
  }

  @Test
  void objects_testsTheObjectOfEveryEvent_theNewStateOfAnUpdate() {
    EventFilter<Pod> web = EventFilter.objects(p -> p.getMetadata().getName().startsWith("web"));
    assertThat(web.acceptsAdd(pod("ns", "web-0"), true)).isTrue();
    assertThat(web.acceptsAdd(pod("ns", "db-0"), true)).isFalse();
    assertThat(web.acceptsUpdate(pod("ns", "db-0"), pod("ns", "web-0"))).isTrue();
    assertThat(web.acceptsUpdate(pod("ns", "web-0"), pod("ns", "db-0"))).isFalse();
    assertThat(web.acceptsDelete(pod("ns", "web-0"), true)).isTrue();
    assertThat(web.acceptsDelete(pod("ns", "db-0"), false)).isFalse();
  }

  @Test
  void labelsMatching_testsTheLabelsOfEveryEventsObject() {
    EventFilter<Pod> prod = EventFilter.labelsMatching(LabelSelector.parse("env=prod"));
    Pod inProd = pod("ns", "a", Map.of("env", "prod"));
    Pod inDev = pod("ns", "a", Map.of("env", "dev"));
    assertThat(prod.acceptsAdd(inProd, false)).isTrue();
    assertThat(prod.acceptsAdd(inDev, false)).isFalse();
    assertThat(prod.acceptsAdd(noMetadata(), false)).isFalse();
    assertThat(prod.acceptsUpdate(inProd, inDev)).isFalse();
    assertThat(prod.acceptsUpdate(inDev, inProd)).isTrue();
    assertThat(prod.acceptsDelete(inProd, true)).isTrue();
    assertThat(prod.acceptsDelete(inDev, true)).isFalse();
    EventFilter<Pod> noEnv = EventFilter.labelsMatching(LabelSelector.parse("!env"));
    assertThat(noEnv.acceptsAdd(noMetadata(), true)).isTrue();
  }

  @Test
  void and_passesWhatEveryFilterPasses_askingInOrderUntilOneRejects() {
    List<String> asked = new ArrayList<>();
    EventFilter<Pod> f =
        EventFilter.and(
            recording("gen", asked, EventFilter.generationChanged()),
            recording("labels", asked, EventFilter.labelsChanged()));
    Pod g1 = labelled(1, Map.of("x", "1"));
    Pod g2 = labelled(2, Map.of("x", "1"));
    Pod g2Relabelled = labelled(2, Map.of("x", "2"));
    Pod g3Relabelled = labelled(3, Map.of("x", "3"));

    assertThat(f.acceptsUpdate(g1, g2)).isFalse();
    assertThat(asked).containsExactly("gen", "labels");
    asked.clear();
    assertThat(f.acceptsUpdate(g2, g2Relabelled)).isFalse();
    assertThat(asked).containsExactly("gen");
    assertThat(f.acceptsUpdate(g2Relabelled, g3Relabelled)).isTrue();
    assertPassesAddsAndDeletes(f);
    assertThat(f).hasToString("and(gen, labels)");

    EventFilter<Pod> none = EventFilter.and();
    assertPassesAddsAndDeletes(none);
    assertThat(none.acceptsUpdate(g1, g1)).isTrue();
  }

  @Test
  void or_passesWhatAnyFilterPasses_askingInOrderUntilOneAccepts() {
    List<String> asked = new ArrayList<>();
    EventFilter<Pod> f =
        EventFilter.or(
            recording("gen", asked, EventFilter.generationChanged()),
            recording("labels", asked, EventFilter.labelsChanged()));
    Pod g1 = generation(1);
    Pod relabelled = labelled(1, Map.of("x", "y"));

    assertThat(f.acceptsUpdate(g1, generation(2))).isTrue();
    assertThat(asked).containsExactly("gen");
    asked.clear();
    assertThat(f.acceptsUpdate(g1, relabelled)).isTrue();
    assertThat(asked).containsExactly("gen", "labels");
    assertThat(f.acceptsUpdate(g1, generation(1))).isFalse();
    assertPassesAddsAndDeletes(f);
    assertThat(f).hasToString("or(gen, labels)");

    EventFilter<Pod> none = EventFilter.or();
    assertThat(none.acceptsAdd(g1, true)).isFalse();
    assertThat(none.acceptsUpdate(g1, generation(2))).isFalse();
    assertThat(none.acceptsDelete(g1, false)).isFalse();
  }

  @Test
  void not_negatesEveryKindOfEvent() {
    EventFilter<Pod> f = EventFilter.not(EventFilter.generationChanged());
    assertThat(f.acceptsUpdate(generation(1), generation(1))).isTrue();
    assertThat(f.acceptsUpdate(generation(1), generation(2))).isFalse();
    assertThat(f.acceptsAdd(generation(1), true)).isFalse();
    assertThat(f.acceptsDelete(generation(1), false)).isFalse();
    assertThat(f).hasToString("not(generationChanged)");

    EventFilter<Pod> notProd =
        EventFilter.not(EventFilter.labelsMatching(LabelSelector.parse("env=prod")));
    assertThat(notProd.acceptsAdd(pod("ns", "a", Map.of("env", "dev")), false)).isTrue();
    assertThat(notProd.acceptsDelete(pod("ns", "a", Map.of("env", "prod")), false)).isFalse();
  }

  @Test
  void composition_nests() {
    // A spec change, or a relabel that leaves the finalizers alone.
    EventFilter<Pod> f =
        EventFilter.or(
            EventFilter.generationChanged(),
            EventFilter.and(
                EventFilter.labelsChanged(), EventFilter.not(EventFilter.finalizersChanged())));
    Pod plain = generation(1);
    Pod relabelled = labelled(1, Map.of("x", "y"));
    Pod relabelledAndFinalized = labelled(1, Map.of("x", "y"));
    relabelledAndFinalized.getMetadata().setFinalizers(List.of("f"));
    assertThat(f.acceptsUpdate(plain, generation(2))).isTrue();
    assertThat(f.acceptsUpdate(plain, relabelled)).isTrue();
    assertThat(f.acceptsUpdate(plain, relabelledAndFinalized)).isFalse();
    assertThat(f.acceptsUpdate(plain, generation(1))).isFalse();
    assertThat(f)
        .hasToString("or(generationChanged, and(labelsChanged, not(finalizersChanged)))");
  }

  @Test
  void generationChangedSinceAccepted_comparesWithTheLastGenerationItPassed() {
    EventFilter<Pod> f = EventFilter.generationChangedSinceAccepted(10);
    assertPassesAddsAndDeletes(EventFilter.generationChangedSinceAccepted(10));
    assertThat(f.acceptsAdd(generation(1), true)).isTrue();
    assertThat(f.acceptsUpdate(generation(1), generation(1))).isFalse(); // a resync
    assertThat(f.acceptsUpdate(generation(1), generation(2))).isTrue();
    assertThat(f.acceptsUpdate(generation(2), generation(2))).isFalse();
    // The old state is not what counts: generation 2 was passed already.
    assertThat(f.acceptsUpdate(generation(1), generation(2))).isFalse();
    // ... and a generation the filter never passed does pass, though the update keeps it.
    assertThat(f.acceptsUpdate(generation(3), generation(3))).isTrue();
    assertThat(f.acceptsUpdate(generation(3), generation(3))).isFalse();
  }

  @Test
  void generationChangedSinceAccepted_lastInAnAnd_passesASpecChangeMadeWhileFilteredOut() {
    LabelSelector prod = LabelSelector.parse("env=prod");
    EventFilter<Pod> stateless =
        EventFilter.and(EventFilter.labelsMatching(prod), EventFilter.generationChanged());
    EventFilter<Pod> remembering =
        EventFilter.and(
            EventFilter.labelsMatching(prod), EventFilter.generationChangedSinceAccepted(10));
    Pod prodG1 = labelled(1, Map.of("env", "prod"));
    Pod devG1 = labelled(1, Map.of("env", "dev"));
    Pod devG2 = labelled(2, Map.of("env", "dev"));
    Pod prodG2 = labelled(2, Map.of("env", "prod"));

    List<List<Boolean>> saw = new ArrayList<>();
    for (EventFilter<Pod> f : List.of(stateless, remembering)) {
      saw.add(
          List.of(
              f.acceptsAdd(prodG1, true),
              f.acceptsUpdate(prodG1, devG1), // relabelled away
              f.acceptsUpdate(devG1, devG2), // the spec changed meanwhile
              f.acceptsUpdate(devG2, prodG2), // relabelled back: generation 2 is news
              f.acceptsUpdate(prodG2, prodG2))); // a resync
    }
    assertThat(saw.get(0)).containsExactly(true, false, false, false, false);
    assertThat(saw.get(1)).containsExactly(true, false, false, true, false);
  }

  @Test
  void changedSinceAccepted_forgetsOnDelete_andPassesUpdatesOfKeysItDoesNotKnow() {
    RememberingEventFilter<Pod> f =
        (RememberingEventFilter<Pod>)
            EventFilter.<Pod>changedSinceAccepted(p -> p.getMetadata().getLabels(), 10);
    Pod x = pod("ns", "a", Map.of("v", "x"));
    assertThat(f.acceptsUpdate(x, x)).isTrue(); // an unknown key: passed, and remembered
    assertThat(f.acceptsUpdate(x, x)).isFalse();
    assertThat(f.remembered()).isEqualTo(1);
    assertThat(f.acceptsDelete(x, false)).isTrue();
    assertThat(f.remembered()).isZero();
    assertThat(f.acceptsUpdate(x, x)).isTrue();
    // Adds always pass, and record their value.
    assertThat(f.acceptsAdd(x, false)).isTrue();
    assertThat(f.acceptsAdd(x, false)).isTrue();
    assertThat(f.acceptsUpdate(x, x)).isFalse();
    // Keys are namespace/name.
    Pod other = pod("other", "a", Map.of("v", "x"));
    assertThat(f.acceptsUpdate(other, other)).isTrue();
    assertThat(f.remembered()).isEqualTo(2);
  }

  @Test
  void changedSinceAccepted_remembersANullValue() {
    EventFilter<Pod> f = EventFilter.changedSinceAccepted(p -> p.getMetadata().getLabels(), 10);
    Pod none = podWith(p -> p.getMetadata().setLabels(null));
    assertThat(f.acceptsAdd(none, true)).isTrue();
    assertThat(f.acceptsUpdate(none, none)).isFalse();
    assertThat(f.acceptsUpdate(none, pod("ns", "a", Map.of("x", "y")))).isTrue();
    assertThat(f.acceptsUpdate(none, none)).isTrue();
  }

  @Test
  void changedSinceAccepted_isBounded_forgettingTheLeastRecentlyUsedKey() {
    RememberingEventFilter<Pod> f =
        (RememberingEventFilter<Pod>) EventFilter.<Pod>generationChangedSinceAccepted(2);
    Pod a = pod("ns", "a");
    Pod b = pod("ns", "b");
    Pod c = pod("ns", "c");
    f.acceptsAdd(a, true);
    f.acceptsAdd(b, true);
    assertThat(f.acceptsUpdate(a, a)).isFalse(); // a is now the most recently used
    f.acceptsAdd(c, true); // evicts b
    assertThat(f.remembered()).isEqualTo(2);
    assertThat(f.acceptsUpdate(a, a)).isFalse();
    assertThat(f.acceptsUpdate(c, c)).isFalse();
    assertThat(f.acceptsUpdate(b, b)).isTrue(); // forgotten: passed rather than lost
    assertThat(f.remembered()).isEqualTo(2);
    assertThat(f).hasToString("generationChangedSinceAccepted[capacity 2]");
  }

  @Test
  void changedSinceAccepted_refusesACapacityBelowOne() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> EventFilter.<Pod>generationChangedSinceAccepted(0))
        .withMessageContaining("at least 1");
  }

  private static EventFilter<Pod> recording(String name, List<String> asked, EventFilter<Pod> f) {
    return new EventFilter<>() {
      @Override
      public boolean acceptsUpdate(Pod oldObj, Pod newObj) {
        asked.add(name);
        return f.acceptsUpdate(oldObj, newObj);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }
}
