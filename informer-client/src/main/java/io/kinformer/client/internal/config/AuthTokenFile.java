package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfigException;
import io.kinformer.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bearer token read from a file and re-read once it is older than {@link #REFRESH_PERIOD}, like
 * client-go's {@code transport.NewCachedFileTokenSource} (a {@code cachingTokenSource} with a
 * one-minute period), so a projected service-account token that the kubelet rotates is picked up.
 * A 401 re-reads the file at once.
 *
 * <p>Surrounding whitespace is trimmed, as client-go does. When a re-read fails, or finds an empty
 * file or a token an HTTP header cannot carry, but a token was read before, the old token stays in
 * use (client-go does the same for read errors) and a WARN is logged, without the token.
 *
 * <p>Thread safety: thread-safe; {@link #lock} guards the cached token and its read time. The file
 * is read under the lock (a small local file; callers would otherwise all read it at once).
 */
final class AuthTokenFile implements AuthTokenSource {

  static final Duration REFRESH_PERIOD = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(AuthTokenFile.class);

  private final Path file;
  private final String label;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();

  // @GuardedBy("lock"): null until the first successful read.
  private @Nullable String token;
  // @GuardedBy("lock"): clock.nanoTime() of the read that produced token.
  private long readAtNanos;

  AuthTokenFile(Path file, String label, Clock clock) {
    this.file = file;
    this.label = label;
    this.clock = clock;
  }

  @Override
  public String token() {
    lock.lock();
    try {
      long now = clock.nanoTime();
      if (token != null && now - readAtNanos < REFRESH_PERIOD.toNanos()) {
        return token;
      }
      return readLocked(now);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean refreshAfterUnauthorized(String rejected) {
    lock.lock();
    try {
      String fresh = readLocked(clock.nanoTime());
      return !fresh.equals(rejected);
    } finally {
      lock.unlock();
    }
  }

  private String readLocked(long now) {
    assert lock.isHeldByCurrentThread();
    String read;
    try {
      // Surrounding whitespace (the final newline of most files) is not part of the token:
      // client-go's file token source trims it too (strings.TrimSpace).
      read = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException | SecurityException e) {
      if (token != null) {
        log.warn("{}: cannot re-read token file {}; keeping the previous token", label, file, e);
        readAtNanos = now;
        return token;
      }
      throw new KubeConfigException(
          label + ": cannot read token file " + file + " (" + e.getClass().getSimpleName() + ")",
          e);
    }
    if (read.isEmpty()) {
      if (token != null) {
        log.warn("{}: token file {} is empty; keeping the previous token", label, file);
        readAtNanos = now;
        return token;
      }
      throw new KubeConfigException(label + ": token file " + file + " is empty");
    }
    String problem = AuthConfig.headerValueProblem(read);
    if (problem != null) {
      if (token != null) {
        log.warn("{}: token file {} {}; keeping the previous token", label, file, problem);
        readAtNanos = now;
        return token;
      }
      throw new KubeConfigException(label + ": token file " + file + " " + problem);
    }
    if (token != null && !token.equals(read)) {
      log.debug("{}: token file {} changed; using the new token", label, file);
    }
    token = read;
    readAtNanos = now;
    return read;
  }

  @Override
  public String toString() {
    return "AuthTokenFile{" + file + "}";
  }
}
