package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InformersTest {

  @Test
  void waitForCacheSync_conditionsAlreadyTrue_isTrueAtOnce() {
    assertThat(Informers.waitForCacheSync(Duration.ZERO, () -> true, () -> true)).isTrue();
  }

  @Test
  void waitForCacheSync_conditionNeverTrue_isFalseOnTimeout() {
    assertThat(Informers.waitForCacheSync(Duration.ofMillis(20), () -> true, () -> false))
        .isFalse();
  }

  @Test
  void waitForCacheSync_pollsUntilEveryConditionIsTrue() {
    AtomicInteger asked = new AtomicInteger();
    assertThat(
            Informers.waitForCacheSync(Duration.ofSeconds(30), () -> asked.incrementAndGet() > 2))
        .isTrue();
    assertThat(asked.get()).isEqualTo(3);
  }

  @Test
  void waitForCacheSync_whenInterrupted_isFalseAndKeepsTheFlag() {
    Thread.currentThread().interrupt();
    try {
      assertThat(Informers.waitForCacheSync(Duration.ofSeconds(30), () -> false)).isFalse();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void waitForCacheSync_informerThatCannotList_isFalseOnTimeout() {
    FakeClock clock = new FakeClock();
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    ApiException forbidden = new ApiException(403, "Forbidden", "no", null, List.of(), false);
    source.failNextWatch(forbidden); // the streaming list: refused, so the reflector lists
    source.failNextList(forbidden);
    try (SharedIndexInformer<Pod> informer =
        SharedIndexInformer.builder("unsynced", source).clock(clock).scheduler(clock).build()) {
      informer.start();
      assertThat(Informers.waitForCacheSync(Duration.ofMillis(20), informer)).isFalse();
      assertThat(informer.hasSynced()).isFalse();
    }
  }
}
