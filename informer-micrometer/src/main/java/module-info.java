import org.jspecify.annotations.NullMarked;

/**
 * kinformer's work-queue and informer metrics through Micrometer ({@code MicrometerMetrics}). It
 * takes a {@code MeterRegistry}, so Micrometer is required transitively.
 */
@NullMarked
module io.kinformer.micrometer {
  requires transitive io.kinformer.core;
  requires transitive micrometer.core;
  requires static transitive org.jspecify;

  exports io.kinformer.micrometer;
}
