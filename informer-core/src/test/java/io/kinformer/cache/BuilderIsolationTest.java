package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.ReflectorState.BackingOff;
import io.kinformer.time.Backoff;
import io.kinformer.time.testing.FakeClock;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Objects built from one builder share no mutable state: each reflector makes its own backoff
 * from the builder's policy, and an informer keeps the settings it was built with.
 */
class BuilderIsolationTest {

  private static final InformerException REFUSED =
      new InformerException("connect failed", new ConnectException("Connection refused"));

  @RegisterExtension final StderrCapture stderr = new StderrCapture();

  private final FakeClock clock = new FakeClock();
  private final ScriptedListerWatcher script = new ScriptedListerWatcher(clock);

  /** 800 ms doubling, no jitter: the delays say how far a backoff's sequence went. */
  private static Backoff.Policy unjittered(List<Backoff> made) {
    return (c, random) -> {
      Backoff b =
          Backoff.exponential(
              Duration.ofMillis(800), Duration.ofSeconds(30), 2.0, 0.0, Duration.ofMinutes(2), c,
              random);
      made.add(b);
      return b;
    };
  }

  /** Steps {@code r} (its next request refused) until it backs off; returns the delay. */
  private static Duration nextBackoff(Reflector<Pod> r) {
    for (int i = 0; i < 100; i++) {
      if (r.step() instanceof BackingOff b) {
        return b.delay();
      }
    }
    throw new AssertionError("no backoff within 100 steps: " + r.state());
  }

  @Test
  void reflectorsOfOneBuilder_backOffIndependently() {
    List<Backoff> made = new ArrayList<>();
    Reflector.Builder<Pod> b =
        Reflector.builder("pods", script, new RecordingStore<Pod>())
            .clock(clock)
            .scheduler(clock)
            .random(new Random(7))
            .backoff(unjittered(made));
    try (Reflector<Pod> first = b.build();
        Reflector<Pod> second = b.build()) {
      script.watchFails(REFUSED).watchFails(REFUSED).watchFails(REFUSED).watchFails(REFUSED);

      List<Duration> firstWaits =
          List.of(nextBackoff(first), nextBackoff(first), nextBackoff(first));
      Duration secondWait = nextBackoff(second);

      assertThat(made).hasSize(2);
      assertThat(made.get(0)).isNotSameAs(made.get(1));
      assertThat(firstWaits)
          .containsExactly(Duration.ofMillis(800), Duration.ofMillis(1600), Duration.ofMillis(3200));
      assertThat(secondWait).isEqualTo(Duration.ofMillis(800));
    }
  }

  @Test
  void informersOfOneBuilder_backOffIndependently() {
    List<Backoff> made = new ArrayList<>();
    SharedIndexInformer.Builder<Pod> b =
        SharedIndexInformer.builder("isolated", script)
            .clock(clock)
            .scheduler(clock)
            .random(new Random(7))
            .reflectorExecutor(loop -> {})
            .deliveryExecutor(Runnable::run)
            .backoff(unjittered(made));
    try (SharedIndexInformer<Pod> one = b.build();
        SharedIndexInformer<Pod> two = b.build()) {
      one.start();
      two.start();
      Reflector<Pod> r1 = reflectorOf(one);
      Reflector<Pod> r2 = reflectorOf(two);
      script.watchFails(REFUSED).watchFails(REFUSED).watchFails(REFUSED);

      Duration oneFirst = nextBackoff(r1);
      Duration oneSecond = nextBackoff(r1);
      Duration twoFirst = nextBackoff(r2);

      assertThat(made).hasSize(2);
      assertThat(List.of(oneFirst, oneSecond))
          .containsExactly(Duration.ofMillis(800), Duration.ofMillis(1600));
      assertThat(twoFirst).isEqualTo(Duration.ofMillis(800));
    }
  }

  @Test
  void changingTheBuilderAfterBuild_changesNoInformer() {
    List<Backoff> before = new ArrayList<>();
    List<Backoff> after = new ArrayList<>();
    SharedIndexInformer.Builder<Pod> b =
        SharedIndexInformer.builder("settled", script)
            .clock(clock)
            .scheduler(clock)
            .reflectorExecutor(loop -> {})
            .deliveryExecutor(Runnable::run)
            .backoff(unjittered(before));
    try (SharedIndexInformer<Pod> informer = b.build()) {
      b.index("late", p -> List.of(p.getMetadata().getName())).backoff(unjittered(after));

      informer.start();

      assertThat(informer.getIndexer().getIndexers()).doesNotContainKey("late");
      assertThat(before).hasSize(1);
      assertThat(after).isEmpty();
    }
  }

  private static Reflector<Pod> reflectorOf(SharedIndexInformer<Pod> informer) {
    Reflector<Pod> r = ((DefaultSharedIndexInformer<Pod>) informer).reflector();
    if (r == null) {
      throw new AssertionError("informer " + informer.name() + " made no reflector");
    }
    return r;
  }
}
