package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedIndexInformer#resourceVersionSeen}: a writer waits for its own change to reach the
 * cache. The informer runs on the test's thread ({@link SteppedInformer}), so "not yet" is
 * asserted at exact points.
 */
class ReadYourWritesTest {

  private final FakeClock clock = new FakeClock();
  private final FakeListerWatcher<Pod> source = TestPods.fakeSource();
  private final SteppedInformer<Pod> i = new SteppedInformer<>("ryw", source, clock);

  @AfterEach
  void close() {
    i.close();
  }

  @Test
  void aWrite_isSeenOnceItsEventIsApplied_notWhenItIsOnlyQueued() {
    i.start().settle();
    String rv = source.add(pod("ns", "a"));
    CompletableFuture<Void> seen = i.informer.resourceVersionSeen("ns/a", rv);

    i.step(); // ADDED a: read and queued
    assertThat(seen).as("queued, not applied").isNotDone();
    i.tasks.runAll();

    assertThat(seen).isCompleted();
    assertThat(i.informer.getIndexer().getByKey("ns/a")).isPresent();
  }

  @Test
  void aDeletion_isSeenOnceTheStoreIsPastIt() {
    source.add(pod("ns", "a"));
    i.start().settle();
    String rv = source.delete(pod("ns", "a"));
    CompletableFuture<Void> seen = i.informer.resourceVersionSeen("ns/a", rv);
    assertThat(seen).isNotDone();

    i.settle();

    assertThat(seen).isCompleted();
    assertThat(i.informer.getIndexer().getByKey("ns/a")).isEmpty();
  }

  @Test
  void aLaterVersion_waitsThroughEarlierEvents_andABookmarkReachesIt() {
    i.start().settle();
    source.add(pod("ns", "a"));
    CompletableFuture<Void> later = i.informer.resourceVersionSeen(null, "50");
    i.settle();
    assertThat(later).as("the store is at " + source.resourceVersion()).isNotDone();

    source.sendToWatches(WatchEvent.of(WatchEventType.BOOKMARK, TestPods.bookmark("50")));
    i.settle();

    assertThat(later).isCompleted();
  }

  @Test
  void anOlderVersion_isSeenAtOnce_andTheObjectsOwnVersionCountsForItsKey() {
    source.add(pod("ns", "a"));
    String rvOfB = source.add(pod("ns", "b"));
    i.start().settle();

    assertThat(i.informer.resourceVersionSeen("ns/a", "1")).isCompleted();
    assertThat(i.informer.resourceVersionSeen("ns/b", rvOfB)).isCompleted();
  }

  @Test
  void closing_failsTheWaiters_andLaterCallers() throws Exception {
    i.start().settle();
    CompletableFuture<Void> waiting = i.informer.resourceVersionSeen("ns/a", "99");

    i.close();

    assertThat(waiting).isCompletedExceptionally();
    ExecutionException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> waiting.get());
    assertThat(e.getCause()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    assertThat(i.informer.resourceVersionSeen("ns/a", "1")).isCompletedExceptionally();
  }

  @Test
  void awaitResourceVersion_returnsFalseAfterTheTimeout_trueOnceSeen() throws Exception {
    i.start().settle();

    assertThat(i.informer.awaitResourceVersion("ns/a", "99", Duration.ZERO)).isFalse();
    assertThat(i.informer.awaitResourceVersion(null, source.resourceVersion(), Duration.ZERO))
        .isTrue();
  }

  @Test
  void aVersionThatCannotBeCompared_isRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> i.informer.resourceVersionSeen("ns/a", "abc"))
        .withMessageContaining("\"abc\" cannot be compared");
  }

  @Test
  void writtenVersions_sayTheCacheIsBehind_untilItHasSeenTheWrite_thenForgetIt() {
    source.add(pod("ns", "a"));
    i.start().settle();
    WrittenVersions written = new WrittenVersions(i.informer.getIndexer());
    assertThat(written.isCacheCurrent("ns/a")).as("nothing written").isTrue();

    String rv = source.modify(pod("ns", "a"));
    written.record("ns/a", rv);
    assertThat(written.isCacheCurrent("ns/a")).isFalse();
    assertThat(written.size()).isEqualTo(1);

    i.settle();

    assertThat(written.isCacheCurrent("ns/a")).isTrue();
    assertThat(written.size()).as("dropped once seen").isZero();
  }

  @Test
  void writtenVersions_keepTheNewestWrite_andSeeADeletion() {
    source.add(pod("ns", "a"));
    i.start().settle();
    WrittenVersions written = new WrittenVersions(i.informer.getIndexer());
    String first = source.modify(pod("ns", "a"));
    String deleted = source.delete(pod("ns", "a"));
    written.record("ns/a", deleted);
    written.record("ns/a", first); // an older one recorded late does not win

    i.step(); // MODIFIED a only
    i.tasks.runAll();
    assertThat(written.isCacheCurrent("ns/a")).as("the deletion is not applied yet").isFalse();
    i.settle();

    assertThat(written.isCacheCurrent("ns/a")).isTrue();
  }
}
