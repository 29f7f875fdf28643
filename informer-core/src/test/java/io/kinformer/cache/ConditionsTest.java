package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Conditions}, on an informer that runs on the test's thread ({@link SteppedInformer}). */
class ConditionsTest {

  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final SteppedInformer<Pod> i = new SteppedInformer<>("conditions", source, new FakeClock());

  @AfterEach
  void close() {
    i.close();
  }

  private static Pod labelled(String name, String app) {
    Pod p = pod("ns", name);
    p.getMetadata().setLabels(Map.of("app", app));
    return p;
  }

  private static boolean isWeb(Pod p) {
    return "web".equals(p.getMetadata().getLabels().get("app"));
  }

  @Test
  void awaitCondition_holdingInTheCacheAlready_completesOnceTheHandlerHasSeenIt() {
    source.add(labelled("a", "web"));
    i.start().settle();

    CompletableFuture<Pod> web = Conditions.awaitCondition(i.informer, "ns/a", ConditionsTest::isWeb);
    assertThat(web).as("its replay of the cache is queued").isNotDone();
    i.tasks.runAll();

    assertThat(web).isCompletedWithValueMatching(p -> p.getMetadata().getName().equals("a"));
  }

  @Test
  void awaitCondition_waitsThroughChangesThatDoNotSatisfyIt_andIgnoresOtherKeys() {
    source.add(labelled("a", "db"));
    i.start().settle();
    CompletableFuture<Pod> web = Conditions.awaitCondition(i.informer, "ns/a", ConditionsTest::isWeb);
    i.tasks.runAll();

    source.add(labelled("b", "web"));
    source.modify(labelled("a", "cache"));
    i.settle();
    assertThat(web).isNotDone();

    source.modify(labelled("a", "web"));
    i.settle();

    assertThat(web).isCompletedWithValueMatching(ConditionsTest::isWeb);
  }

  @Test
  void awaitCreated_andAwaitDeleted_followTheObject() {
    i.start().settle();
    CompletableFuture<Pod> created = Conditions.awaitCreated(i.informer, "ns/a");
    CompletableFuture<Void> deletedWhileAbsent = Conditions.awaitDeleted(i.informer, "ns/a");
    i.tasks.runAll();
    assertThat(deletedWhileAbsent).as("absent from the synced cache").isCompleted();
    assertThat(created).isNotDone();

    source.add(pod("ns", "a"));
    i.settle();
    assertThat(created).isCompleted();

    CompletableFuture<Void> deleted = Conditions.awaitDeleted(i.informer, "ns/a");
    i.tasks.runAll();
    assertThat(deleted).isNotDone();
    source.delete(pod("ns", "a"));
    i.settle();

    assertThat(deleted).isCompleted();
  }

  @Test
  void aConditionThatThrows_failsTheFuture_andACompletedWaitRemovesItsHandler() {
    source.add(pod("ns", "a"));
    i.start().settle();
    CompletableFuture<Pod> broken =
        Conditions.awaitCondition(
            i.informer,
            "ns/a",
            p -> {
              throw new IllegalStateException("a condition's bug");
            });
    i.tasks.runAll();
    assertThat(broken).isCompletedExceptionally();
    assertThat(i.informer.handlerCount()).as("its handler removed").isZero();

    CompletableFuture<Pod> cancelled = Conditions.awaitCondition(i.informer, "ns/b", p -> true);
    cancelled.cancel(false);
    source.add(pod("ns", "b"));
    i.settle();

    assertThat(cancelled).isCancelled();
    assertThat(i.informer.handlerCount()).isZero();
    CompletableFuture<Pod> another = Conditions.awaitCreated(i.informer, "ns/b");
    i.tasks.runAll();
    assertThat(another).as("the informer goes on").isCompleted();
    assertThat(i.informer.handlerCount()).isZero();
  }
}
