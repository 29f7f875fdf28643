package io.kinformer.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import mockwebserver3.MockResponse;
import mockwebserver3.MockResponseBody;
import okio.BufferedSink;

/**
 * A chunked MockWebServer response body that sends its chunks (each flushed on its own), then
 * holds the stream open, silent, until {@link #release()}; then ends it cleanly. Like a watch on
 * a quiet resource.
 */
public final class HttpHeldBody implements MockResponseBody {

  private final List<String> chunks;
  private final CountDownLatch released = new CountDownLatch(1);

  public HttpHeldBody(List<String> chunks) {
    this.chunks = chunks;
  }

  /** A 200 watch response with this body. */
  public MockResponse response() {
    return new MockResponse.Builder()
        .code(200)
        .addHeader("Content-Type", "application/json")
        .body(this)
        .removeHeader("Content-Length")
        .addHeader("Transfer-Encoding", "chunked")
        .build();
  }

  public void release() {
    released.countDown();
  }

  @Override
  public long getContentLength() {
    return -1;
  }

  @Override
  public void writeTo(BufferedSink sink) throws IOException {
    for (String chunk : chunks) {
      byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
      sink.writeUtf8(Integer.toHexString(bytes.length)).writeUtf8("\r\n");
      sink.write(bytes).writeUtf8("\r\n");
      sink.flush();
    }
    try {
      released.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("held body interrupted");
    }
    sink.writeUtf8("0\r\n\r\n");
    sink.flush();
  }
}
