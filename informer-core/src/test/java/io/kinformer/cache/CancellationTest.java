package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

class CancellationTest {

  @Test
  void newCancellation_isNotCancelled() {
    assertThat(new Cancellation().isCancelled()).isFalse();
  }

  @Test
  void cancel_runsEachRegisteredActionOnceInRegistrationOrderOnTheCancellingThread() {
    Cancellation c = new Cancellation();
    List<String> ran = new CopyOnWriteArrayList<>();
    c.onCancel(() -> ran.add("first on " + Thread.currentThread().getName()));
    c.onCancel(() -> ran.add("second"));
    assertThat(ran).as("before the cancel").isEmpty();

    c.cancel();
    c.cancel();

    assertThat(c.isCancelled()).isTrue();
    assertThat(ran).containsExactly("first on " + Thread.currentThread().getName(), "second");
  }

  @Test
  void onCancel_afterTheCancel_runsTheActionAtOnce() {
    Cancellation c = new Cancellation();
    c.cancel();
    AtomicInteger ran = new AtomicInteger();

    Cancellation.Registration r = c.onCancel(ran::incrementAndGet);

    assertThat(ran).hasValue(1);
    r.close(); // nothing left to unregister
    c.cancel();
    assertThat(ran).as("runs at most once").hasValue(1);
  }

  @Test
  void closedRegistration_doesNotRunOnCancel_andTheOthersStillDo() {
    Cancellation c = new Cancellation();
    List<String> ran = new CopyOnWriteArrayList<>();
    Cancellation.Registration gone = c.onCancel(() -> ran.add("unregistered"));
    c.onCancel(() -> ran.add("kept"));

    gone.close();
    gone.close(); // idempotent
    c.cancel();

    assertThat(ran).containsExactly("kept");
  }

  @Test
  void theSameRunnableRegisteredTwice_runsTwice_andEachRegistrationUnregistersItsOwn() {
    Cancellation c = new Cancellation();
    AtomicInteger ran = new AtomicInteger();
    Runnable action = ran::incrementAndGet;
    Cancellation.Registration first = c.onCancel(action);
    c.onCancel(action);
    c.onCancel(action);

    first.close();
    c.cancel();

    assertThat(ran).hasValue(2);
  }

  @Test
  void anActionThatThrows_isLogged_andTheOthersStillRun() throws Exception {
    Cancellation c = new Cancellation();
    List<String> ran = new CopyOnWriteArrayList<>();
    c.onCancel(() -> ran.add("before"));
    c.onCancel(new Runnable() {
      @Override
      public void run() {
        throw new IllegalStateException("boom in the action");
      }

      @Override
      public String toString() {
        return "the failing action";
      }
    });
    c.onCancel(() -> ran.add("after"));

    String logged = LogCapture.stderrOf(c::cancel);

    assertThat(ran).containsExactly("before", "after");
    assertThat(logged).contains("WARN").contains("the failing action")
        .contains("boom in the action");
  }

  @Test
  void anActionThatThrows_registeredAfterTheCancel_isLoggedNotThrown() throws Exception {
    Cancellation c = new Cancellation();
    c.cancel();

    String logged = LogCapture.stderrOf(() -> c.onCancel(() -> {
      throw new IllegalStateException("late boom");
    }));

    assertThat(logged).contains("WARN").contains("late boom");
  }

  @Test
  void anAction_mayCallBackIntoTheCancellation() {
    Cancellation c = new Cancellation();
    List<String> ran = new CopyOnWriteArrayList<>();
    c.onCancel(() -> {
      ran.add("cancelled=" + c.isCancelled());
      c.onCancel(() -> ran.add("registered from an action"));
      c.cancel();
    });

    c.cancel();

    assertThat(ran).containsExactly("cancelled=true", "registered from an action");
  }

  @Test
  void concurrentCancels_runEveryActionExactlyOnce() throws Exception {
    Cancellation c = new Cancellation();
    int actions = 200;
    AtomicReferenceArray<Integer> runs = new AtomicReferenceArray<>(actions);
    for (int i = 0; i < actions; i++) {
      int n = i;
      runs.set(n, 0);
      c.onCancel(() -> runs.accumulateAndGet(n, 1, Integer::sum));
    }
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> done = new CopyOnWriteArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          go.await();
          c.cancel();
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(10, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(c.isCancelled()).isTrue();
    for (int i = 0; i < actions; i++) {
      assertThat(runs.get(i)).as("runs of action %d", i).isEqualTo(1);
    }
  }

  @Test
  void registrationsRacingTheCancel_eachRunExactlyOnce() throws Exception {
    Cancellation c = new Cancellation();
    int actions = 500;
    AtomicReferenceArray<Integer> runs = new AtomicReferenceArray<>(actions);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch registering = new CountDownLatch(1);
      Future<?> registrar = pool.submit(() -> {
        for (int i = 0; i < actions; i++) {
          int n = i;
          runs.set(n, 0);
          c.onCancel(() -> runs.accumulateAndGet(n, 1, Integer::sum));
          if (i == actions / 10) {
            registering.countDown();
          }
        }
      });
      registering.await(10, TimeUnit.SECONDS);
      c.cancel();
      registrar.get(10, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    for (int i = 0; i < actions; i++) {
      assertThat(runs.get(i)).as("runs of action %d", i).isEqualTo(1);
    }
  }

  @Test
  void none_isNeverCancelled_storesNothing_andRefusesToBeCancelled() {
    Cancellation none = Cancellation.none();
    AtomicReference<String> ran = new AtomicReference<>();

    Cancellation.Registration r = none.onCancel(() -> ran.set("ran"));
    r.close();

    assertThat(none.isCancelled()).isFalse();
    assertThat(Cancellation.none()).isSameAs(none);
    assertThatThrownBy(none::cancel).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("new Cancellation()");
    assertThat(none.isCancelled()).isFalse();
    assertThat(ran).hasValue(null);
  }

  @Test
  void onCancel_rejectsNull() {
    assertThatThrownBy(() -> new Cancellation().onCancel(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("action");
  }
}
