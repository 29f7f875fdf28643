package io.kinformer.client.internal.http;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.Watch;
import io.kinformer.cache.WatchEvent;
import io.kinformer.client.internal.codec.WatchCodec;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import okhttp3.Call;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.exc.JacksonIOException;

/**
 * A watch over one open HTTP response, decoded by a {@link WatchCodec}.
 *
 * <p>{@link #next()} blocks on the socket in the reader's thread. {@link #close()} from any thread
 * cancels the OkHttp call, which makes a blocked read fail at once; the reader then sees that the
 * watch was closed and returns null instead of an error. The response is released by whichever of
 * the two comes last, so a close never races a read on the body.
 *
 * <p>A decoding failure (malformed JSON, an unknown event type, an event over {@link
 * WatchCodec#MAX_EVENT_BYTES}) ends the watch with the codec's {@code InformerException}; the call
 * is cancelled first, so releasing the response never drains the rest of a huge or endless body.
 * The reflector then relists after a backoff, as client-go does after an event it cannot decode;
 * an I/O failure carries its {@code IOException} as the cause, for which the reflector re-watches
 * instead.
 *
 * <p>Thread safety: {@code next()} from one thread at a time; {@code close()} from any thread.
 * Locks: {@code lock} guards {@code reading}, {@code closed} and {@code released}; it is never held
 * while reading the socket.
 *
 * @param <T> the object type
 */
final class HttpWatch<T extends HasMetadata> implements Watch<T> {

  private static final Logger log = LoggerFactory.getLogger(HttpWatch.class);

  private final Call call;
  private final Response response;
  private final WatchCodec<T> codec;
  private final WatchIdleGuard guard;
  private final String what;

  private final ReentrantLock lock = new ReentrantLock();

  /** Whether a thread is inside {@code next()}, reading the body. */
  // @GuardedBy("lock")
  private boolean reading;

  /** Set by close(); never cleared. */
  // @GuardedBy("lock")
  private boolean closed;

  /** Set once the stream ended, failed or was closed: next() returns null from then on. */
  // @GuardedBy("lock")
  private boolean finished;

  /** Whether the response has been closed; done exactly once, by the last of reader and closer. */
  // @GuardedBy("lock")
  private boolean released;

  /** Told how many more bytes of the body each event took (a metric). */
  private final LongConsumer bytesDecoded;
  /** The codec's byte count when bytesDecoded was last told; the reading thread's only. */
  private long bytesReported;

  HttpWatch(
      Call call, Response response, WatchCodec<T> codec, WatchIdleGuard guard, String what) {
    this(call, response, codec, guard, what, n -> { });
  }

  HttpWatch(Call call, Response response, WatchCodec<T> codec, WatchIdleGuard guard, String what,
      LongConsumer bytesDecoded) {
    this.call = call;
    this.response = response;
    this.codec = codec;
    this.guard = guard;
    this.what = what;
    this.bytesDecoded = bytesDecoded;
  }

  @Override
  public @Nullable WatchEvent<T> next() {
    lock.lock();
    try {
      if (reading) {
        throw new IllegalStateException("next() called concurrently on the watch of " + what);
      }
      if (closed || finished) {
        return null;
      }
      reading = true;
    } finally {
      lock.unlock();
    }
    WatchEvent<T> event = null;
    RuntimeException failure = null;
    guard.enterRead();
    try {
      event = codec.next();
      long read = codec.bytesRead();
      bytesDecoded.accept(read - bytesReported);
      bytesReported = read;
    } catch (JacksonIOException e) {
      failure = ioFailure(e);
    } catch (RuntimeException e) {
      failure = e;
    }
    guard.exitRead();
    lock.lock();
    try {
      reading = false;
      if (closed) {
        // Our own close() made the read fail (or raced the last event): report a clean end.
        call.cancel();
        finished = true;
        releaseLocked();
        return null;
      }
      if (failure != null) {
        // We give up on this stream: cancel so that the release does not drain the rest of it.
        call.cancel();
      }
      if (failure != null || event == null) {
        finished = true;
        releaseLocked();
      }
    } finally {
      lock.unlock();
    }
    if (failure != null) {
      throw failure;
    }
    if (event == null) {
      log.debug("watch ended by the server: {}", what);
    } else {
      log.trace("watch event {} from {}", event.type(), what);
    }
    return event;
  }

  private InformerException ioFailure(JacksonIOException e) {
    Throwable cause = e.getCause();
    if (guard.fired()) {
      // The guard cancelled the call, which is what made the read fail.
      return new InformerException(
          "watch went silent: no data for " + guard.idle() + " on " + what, cause);
    }
    return new InformerException("I/O error reading the watch of " + what + ": " + cause, cause);
  }

  @Override
  public void close() {
    boolean releaseNow;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      releaseNow = !reading;
    } finally {
      lock.unlock();
    }
    // Cancel first: it closes the socket, which unblocks a reader at once, and it keeps the
    // release below from trying to drain the rest of the body.
    call.cancel();
    if (releaseNow) {
      lock.lock();
      try {
        finished = true;
        releaseLocked();
      } finally {
        lock.unlock();
      }
    }
    log.debug("watch closed: {}", what);
  }

  private void releaseLocked() {
    assert lock.isHeldByCurrentThread();
    if (!released) {
      released = true;
      guard.stop();
      codec.close();
      response.close();
    }
  }
}
