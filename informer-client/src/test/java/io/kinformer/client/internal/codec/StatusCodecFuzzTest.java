package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kinformer.cache.ApiException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Coverage-guided fuzzing of {@link StatusCodec}, which turns the body of a refused request (a
 * {@code Status}, plain text or anything else) into an {@link ApiException}.
 *
 * <p>Property: for any body, {@code fromResponse} returns an {@code ApiException} with a
 * positive code (the Status's own code when it has a positive one, else the HTTP code) and a
 * bounded message; it never throws. {@code parseRetryAfter} on any header value returns null or a
 * non-negative duration.
 *
 * <p>A normal build replays the committed corpus in {@code StatusCodecFuzzTestInputs/<method>/}
 * (under {@code src/test/resources/io/kinformer/client/internal/codec/}); the
 * {@code fuzz-status-codec} execution
 * of {@code mvn verify} then fuzzes {@code #fromResponse} for {@code kinformer.fuzz.seconds} (15 s
 * by default; see docs/reliability.md for long runs). Generated inputs and any crashing input go to
 * {@code informer-client/target/jazzer/}; a crashing input copied into the inputs directory stays a
 * regression test once committed.
 */
class StatusCodecFuzzTest {

  private static final StatusCodec CODEC = new StatusCodec(Codecs.newMapper().reader());
  private static final int HTTP_CODE = 422;

  @FuzzTest(maxDuration = "30s")
  void fromResponse(byte[] body) {
    Response response = new Response.Builder()
        .request(new Request.Builder().url("http://fuzz/api/v1/pods").build())
        .protocol(Protocol.HTTP_1_1)
        .code(HTTP_CODE)
        .message("Unprocessable Entity")
        .body(ResponseBody.create(body, MediaType.get("application/json")))
        .build();

    ApiException e = CODEC.fromResponse(response);

    assertThat(e).isNotNull();
    assertThat(e.code()).isPositive();
    if (e.statusMessage().isPresent()) {
      // A Status message is quoted whole; a plain body is cut to 200 characters and an "…".
      assertThat(e.statusMessage().get().length())
          .isLessThanOrEqualTo(Math.max(body.length, 200) + 1);
    }
    String retryAfter = new String(body, StandardCharsets.UTF_8);
    Duration d = StatusCodec.parseRetryAfter(retryAfter);
    assertThat(d == null || !d.isNegative()).isTrue();
  }
}
