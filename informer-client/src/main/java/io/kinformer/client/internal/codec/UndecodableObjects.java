package io.kinformer.client.internal.codec;

import io.kinformer.client.ResourceType;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where objects that did not bind to their model class are reported (see {@link ObjectBinder}):
 * a WARN naming the object, the field and the fix, a count, and a hook for a metric.
 *
 * <p>A list that holds many such objects (every custom resource of a version the class does not
 * match) logs the first {@link #LOGGED_PER_RESPONSE} of each response and then one line with how
 * many more there were; a watch logs each event.
 *
 * <p>Thread safety: thread-safe.
 */
public final class UndecodableObjects implements ObjectBinder.Reporter {

  private static final Logger log = LoggerFactory.getLogger(UndecodableObjects.class);

  /** How many skipped objects one list response logs one by one. */
  static final int LOGGED_PER_RESPONSE = 10;

  private final String owner;
  private final Runnable onSkipped;
  private final LongAdder count = new LongAdder();

  /**
   * @param owner who reads the objects, for the log (an informer's name, or {@code ""})
   * @param onSkipped called once per skipped object, for a metric; must be quick and thread-safe
   */
  public UndecodableObjects(String owner, Runnable onSkipped) {
    this.owner = owner;
    this.onSkipped = onSkipped;
  }

  /** Logs only; for clients outside an informer. */
  public static UndecodableObjects logOnly() {
    return new UndecodableObjects("", () -> { });
  }

  /** How many objects were skipped (or deleted with a partly bound object) so far. */
  long count() {
    return count.sum();
  }

  @Override
  public void skipped(
      ResourceType<?> type, @Nullable String key, String field, String reason, String what) {
    count.increment();
    onSkipped.run();
    log.warn("{}skipped {} {}: its field {} does not decode into {} ({}); the other objects are"
            + " cached and the informer goes on. Fix the object, or the model class. From {}",
        prefix(), type.watchKind(), key == null ? "(name unknown)" : key, field,
        type.javaType().getName(), reason, what);
  }

  void deletedPartly(ResourceType<?> type, String key, String field, String reason, String what) {
    count.increment();
    onSkipped.run();
    log.warn("{}deleted {} {}, whose field {} does not decode into {} ({}): handlers get the object"
            + " with the fields after it unset. Fix the model class. From {}",
        prefix(), type.watchKind(), key, field, type.javaType().getName(), reason, what);
  }

  private String prefix() {
    return owner.isEmpty() ? "" : owner + ": ";
  }

  /** The reports of one list response, read on one thread. */
  Response startResponse() {
    return new Response();
  }

  /**
   * The skips of one list response: logs the first few, then counts.
   *
   * <p>Thread safety: confined to the thread that decodes the response.
   */
  final class Response implements ObjectBinder.Reporter {
    private int skipped;

    @Override
    public void skipped(
        ResourceType<?> type, @Nullable String key, String field, String reason, String what) {
      skipped++;
      if (skipped <= LOGGED_PER_RESPONSE) {
        UndecodableObjects.this.skipped(type, key, field, reason, what);
      } else {
        count.increment();
        onSkipped.run();
      }
    }

    /** Logs how many skipped objects were not logged one by one. */
    void end(ResourceType<?> type, String what) {
      if (skipped > LOGGED_PER_RESPONSE) {
        log.warn("{}skipped {} more {} objects that do not decode into {}, from {}", prefix(),
            skipped - LOGGED_PER_RESPONSE, type.watchKind(), type.javaType().getName(), what);
      }
    }
  }
}
