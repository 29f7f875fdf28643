package io.kinformer.cache;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ScriptedListerWatcher} with hooks, for tests ported from client-go whose fakes act in
 * the middle of a request: code run when the n-th list or watch call is made (client-go's {@code
 * ListFunc}/{@code WatchFunc} that cancel the context or step a fake clock), and code run once the
 * first k events of the n-th watch were read, before the reflector asks for the next one (client-go
 * cancelling the context after sending k events). Hooks run on the thread that makes the request,
 * so a hook that closes the reflector stops it as client-go's cancel does: the event in hand is
 * applied, the next read finds the watch closed. It also records, in order, the options of every
 * request (client-go's {@code fakeListWatcher.requestOptions}) and whether each watch was closed
 * and read.
 *
 * <p>Thread safety: confine to the test thread.
 */
final class HookedListerWatcher implements ListerWatcher<Pod> {

  final ScriptedListerWatcher script;
  /** The options of every list and watch call, in order. */
  final List<ListOptions> requestOptions = new ArrayList<>();
  /** Every watch returned, in order. */
  final List<HookedWatch> watches = new ArrayList<>();

  private final List<IntConsumer> onList = new ArrayList<>();
  private final List<IntConsumer> onWatch = new ArrayList<>();
  private final Map<Long, Runnable> afterEvents = new HashMap<>();
  private int lists;

  /** What {@link #stop()} hooks run: set by the test, to close its reflector. */
  Runnable stopHook = () -> {};

  HookedListerWatcher(ScriptedListerWatcher script) {
    this.script = script;
  }

  /** Runs {@code hook} with the call's number (1 for the first) as each list call is made. */
  HookedListerWatcher onListCall(IntConsumer hook) {
    onList.add(hook);
    return this;
  }

  /** Runs {@code hook} with the call's number (1 for the first) as each watch call is made. */
  HookedListerWatcher onWatchCall(IntConsumer hook) {
    onWatch.add(hook);
    return this;
  }

  /** Runs {@code hook} as the {@code n}-th watch call (1 for the first) is made. */
  HookedListerWatcher onWatchCall(int n, Runnable hook) {
    return onWatchCall(
        i -> {
          if (i == n) {
            hook.run();
          }
        });
  }

  /**
   * Runs {@code hook} once the first {@code events} events (0: none) of the {@code watch}-th watch
   * (1 for the first) were read, when the reflector asks for the next one.
   */
  HookedListerWatcher afterEvents(int watch, int events, Runnable hook) {
    afterEvents.put(((long) watch << 32) | events, hook);
    return this;
  }

  /** A hook that runs {@link #stopHook} as it is when the hook runs. */
  Runnable stop() {
    return () -> stopHook.run();
  }

  /** The requests made, as {@link ScriptedListerWatcher#requests} records them. */
  List<String> requests() {
    return script.requests;
  }

  @Override
  public boolean supportsWatchList() {
    return script.supportsWatchList();
  }

  @Override
  public ListResult<Pod> list(ListOptions options, Cancellation cancellation) {
    requestOptions.add(options);
    int n = ++lists;
    onList.forEach(h -> h.accept(n));
    return script.list(options, cancellation);
  }

  @Override
  public Watch<Pod> watch(ListOptions options, Cancellation cancellation) {
    requestOptions.add(options);
    int n = watches.size() + 1;
    HookedWatch placeholder = new HookedWatch(n, null);
    watches.add(placeholder);
    onWatch.forEach(h -> h.accept(n));
    Watch<Pod> w;
    try {
      w = script.watch(options, cancellation);
    } catch (RuntimeException e) {
      placeholder.failedToOpen = true;
      throw e;
    }
    HookedWatch hooked = new HookedWatch(n, w);
    watches.set(n - 1, hooked);
    return hooked;
  }

  /** A watch that runs the hooks due between its events and records its use. */
  final class HookedWatch implements Watch<Pod> {
    private final int number;
    private final @Nullable Watch<Pod> delegate;
    boolean failedToOpen;
    /** How many times {@link #next()} was called. */
    int reads;
    /** How many events it returned. */
    int events;
    /** How many times {@link #close()} was called. */
    int closes;

    HookedWatch(int number, @Nullable Watch<Pod> delegate) {
      this.number = number;
      this.delegate = delegate;
    }

    boolean closed() {
      return closes > 0;
    }

    @Override
    public @Nullable WatchEvent<Pod> next() {
      reads++;
      Runnable hook = afterEvents.remove(((long) number << 32) | events);
      if (hook != null) {
        hook.run();
      }
      if (closes > 0 || delegate == null) {
        return null;
      }
      WatchEvent<Pod> e = delegate.next();
      if (e != null) {
        events++;
      }
      return e;
    }

    @Override
    public void close() {
      closes++;
      if (delegate != null) {
        delegate.close();
      }
    }
  }
}
