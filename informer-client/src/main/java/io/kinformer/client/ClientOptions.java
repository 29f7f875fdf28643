package io.kinformer.client;

import io.kinformer.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Transport settings of a {@link KubeClient} that are not part of the kubeconfig.
 *
 * <pre>{@code
 * KubeClient client = KubeClient.create(config,
 *     ClientOptions.builder().userAgentSuffix("my-controller/1.2").build());
 * }</pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param userAgentSuffix appended to the {@code User-Agent} (e.g. your controller's name and
 *     version), or null
 * @param connectTimeout how long to wait for a TCP (and TLS) connection; default 10 s. There is
 *     deliberately no read timeout: a healthy watch may be silent for minutes, and the informer
 *     layer detects dead watches itself
 * @param pingInterval how often an HTTP/2 connection is pinged so that a dead one is noticed;
 *     default 30 s; zero disables pings. Without pings a watch on a dead HTTP/2 connection still
 *     fails at its inactivity limit, but that only resets its stream: the next watch may be opened
 *     on the same dead connection until TCP gives up on it
 * @param clock the clock for token expiry and token-file re-reads ({@link Clock#system()} unless a
 *     test injects a fake)
 * @param execTimeout how long a kubeconfig's exec credential plugin ({@code user.exec}) may run
 *     before it is killed and the request that needed it fails; default 60 s. client-go waits for
 *     ever, and a plugin that hangs (waiting for a browser login, a network that does not answer)
 *     would then stop every request of the client without a word; a plugin that gets a token
 *     normally answers within a few seconds
 * @param decodingOptimizations whether the client decodes responses with its optimizations for
 *     speed and memory; default true. False decodes the informers' lists and watches and every
 *     {@link ResourceClient} response with plain Jackson databind into the fabric8 model, to rule
 *     the optimizations out when a decoded object looks wrong; the objects are equal either way,
 *     and false costs decoding time and retained heap. Off with false, as optimizations: the
 *     bounded table of property names ({@code CacheJsonFactory}), shared strings ({@code
 *     StringPool}, {@code PooledStringDeserializer}, {@code UniqueStrings}), the deserializers
 *     that exist for speed or memory only ({@code QuantityDeserializer}, {@code
 *     FieldsV1Deserializer}) and the compaction of decoded objects ({@code CacheCompactor} with its
 *     {@code SmallMap}s). Kept in both modes, as behaviour: the streaming list and watch decoders
 *     with their limits on bytes and string length ({@code ListCodec}, {@code WatchCodec}, {@code CodecTailStream}),
 *     skipping an object that does not bind with its WARN and metric ({@code ObjectBinder},
 *     {@code UndecodableObjects}), {@code Status} bodies and watch {@code ERROR} events ({@code
 *     StatusCodec}), and freezing after the transform ({@code CacheFreezer}, with the read-only forms it
 *     gives collections), which makes every collection of a cached object read-only, as {@link io.kinformer.cache.ReadOnlyStore}
 *     promises
 */
public record ClientOptions(
    @Nullable String userAgentSuffix,
    Duration connectTimeout,
    Duration pingInterval,
    Clock clock,
    Duration execTimeout,
    boolean decodingOptimizations) {

  /**
   * Validates the options.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public ClientOptions {
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(pingInterval, "pingInterval");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(execTimeout, "execTimeout");
    if (execTimeout.isNegative() || execTimeout.isZero()) {
      throw new IllegalArgumentException("execTimeout must be positive: " + execTimeout);
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException("connectTimeout must be positive: " + connectTimeout);
    }
    if (pingInterval.isNegative()) {
      throw new IllegalArgumentException("pingInterval must not be negative: " + pingInterval);
    }
    if (userAgentSuffix != null && (userAgentSuffix.isBlank() || !isHeaderSafe(userAgentSuffix))) {
      throw new IllegalArgumentException(
          "userAgentSuffix must be printable ASCII and not blank: '" + userAgentSuffix + "'");
    }
  }

  private static boolean isHeaderSafe(String s) {
    return s.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
  }

  /**
   * The defaults: no suffix, 10 s connect timeout, 30 s pings, system clock, 60 s for an exec
   * credential plugin, decoding optimizations on.
   */
  public static ClientOptions defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.userAgentSuffix = userAgentSuffix;
    b.connectTimeout = connectTimeout;
    b.pingInterval = pingInterval;
    b.clock = clock;
    b.execTimeout = execTimeout;
    b.decodingOptimizations = decodingOptimizations;
    return b;
  }

  /**
   * Builds {@link ClientOptions}.
   *
   * <p>Thread safety: confine to one thread.
   */
  public static final class Builder {
    private @Nullable String userAgentSuffix;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration pingInterval = Duration.ofSeconds(30);
    private Clock clock = Clock.system();
    private Duration execTimeout = Duration.ofSeconds(60);
    private boolean decodingOptimizations = true;

    private Builder() {}

    /** Appended to the User-Agent, e.g. {@code my-controller/1.2}. */
    public Builder userAgentSuffix(@Nullable String suffix) {
      this.userAgentSuffix = suffix;
      return this;
    }

    /** The TCP/TLS connect timeout. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** The HTTP/2 ping interval; zero disables pings. */
    public Builder pingInterval(Duration interval) {
      this.pingInterval = interval;
      return this;
    }

    /** The clock for credential expiry and re-reads. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** How long an exec credential plugin may run before it is killed. */
    public Builder execTimeout(Duration timeout) {
      this.execTimeout = timeout;
      return this;
    }

    /**
     * Whether responses are decoded with the client's optimizations (default true); false decodes
     * with plain Jackson, to rule them out when diagnosing a decoding problem, at a cost in
     * decoding time and memory. See {@link ClientOptions}.
     */
    public Builder decodingOptimizations(boolean enabled) {
      this.decodingOptimizations = enabled;
      return this;
    }

    /**
     * Builds the options.
     *
     * @throws IllegalArgumentException naming a bad value
     */
    public ClientOptions build() {
      return new ClientOptions(
          userAgentSuffix, connectTimeout, pingInterval, clock, execTimeout,
          decodingOptimizations);
    }
  }
}
