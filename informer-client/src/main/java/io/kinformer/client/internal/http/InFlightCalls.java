package io.kinformer.client.internal.http;

import java.util.Map;
import java.util.WeakHashMap;
import okhttp3.Call;
import org.jspecify.annotations.Nullable;

/**
 * The OkHttp call each thread has in flight through one {@link HttpListerWatcher}, so that {@link
 * HttpListerWatcher#cancelCalls} can cancel it: a reflector's close() relies on that, since OkHttp
 * over HTTP/1.1 ignores interrupts while blocked in a socket read.
 *
 * <p>A cancellation is sticky: a thread whose calls were cancelled has every later call cancelled
 * as soon as it starts, which closes the race with a close() that runs just before the call. Both
 * maps are weak, so the threads of closed reflectors do not pile up here.
 *
 * <p>Thread safety: thread-safe. Locks: {@code this}, held for map updates only, never while a
 * call is cancelled or executed.
 */
public final class InFlightCalls {

  /** The call each thread is in, between {@link #start} and {@link #end}. */
  // @GuardedBy("this")
  private final Map<Thread, Call> calls = new WeakHashMap<>();

  /** Threads whose calls were cancelled; never cleared (a reflector's thread ends soon after). */
  // @GuardedBy("this")
  private final Map<Thread, Boolean> cancelled = new WeakHashMap<>();

  /**
   * Records {@code call}, not yet executed, as the calling thread's; cancels it at once if that
   * thread's calls were cancelled, so that executing it fails. Pair with {@link #end()}.
   */
  public void start(Call call) {
    boolean cancel;
    synchronized (this) {
      calls.put(Thread.currentThread(), call);
      cancel = cancelled.containsKey(Thread.currentThread());
    }
    if (cancel) {
      call.cancel();
    }
  }

  /** The calling thread is done with its call (response read, or the call failed). */
  public void end() {
    synchronized (this) {
      calls.remove(Thread.currentThread());
    }
  }

  /** Cancels {@code thread}'s call in flight, and every call it starts from now on. */
  public void cancel(Thread thread) {
    @Nullable Call call;
    synchronized (this) {
      cancelled.put(thread, Boolean.TRUE);
      call = calls.get(thread);
    }
    if (call != null) {
      call.cancel(); // closes the socket: a read blocked on it fails at once
    }
  }
}
